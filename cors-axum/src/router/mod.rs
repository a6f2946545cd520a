//! Building an axum `Router` from a tree of modules: the walk over the modules, their routes
//! grouped by path, each path mounted once with its plan, and the answer to unknown paths.

mod checks;
#[cfg(feature = "openapi")]
mod document;
mod mount;
mod paths;
mod planning;
mod walk;

use std::borrow::Cow;

use cors_axum_core::CorsOptions;
use rustc_hash::FxHashMap;

use crate::controller::ControllerEntry;
use crate::error::BuildError;
use crate::guard::NamedGuard;
use crate::module::{Module, PathLayer};
use crate::provider::ProviderBuilder;
use mount::{Builder, Built};
use walk::{Collected, Inherited, Walk};

/// What an application is built from.
pub(crate) struct BuildInput<S: 'static> {
    pub(crate) root: Box<dyn Module<S>>,
    /// The application's providers.
    pub(crate) providers: ProviderBuilder,
    /// The application's guards, run first.
    pub(crate) guards: Vec<NamedGuard<S>>,
    /// The application's layers, outermost last.
    pub(crate) layers: Vec<PathLayer<S>>,
    /// Whether a reload may replace the application's CORS options (`.cors_reload(..)`).
    pub(crate) reloadable: bool,
}

/// Builds the router of `input`.
pub(crate) fn build<S: Clone + Send + Sync + 'static>(
    input: BuildInput<S>,
) -> Result<Built<S>, BuildError> {
    let mut providers = input.providers;
    let application = providers.take::<CorsOptions>();
    let inherited = Inherited {
        cors: None,
        guards: input.guards.into(),
        guard_needs: Vec::new(),
        // The application's layers are outermost: last in the list, which runs inner to outer.
        layers: input.layers.into_iter().rev().collect(),
        guard_docs: Vec::new(),
        listed_in_openapi: true,
    };
    let (root, reloadable) = (&*input.root, input.reloadable);
    let walk = Walk::of(
        root,
        &inherited,
        providers,
        application.as_ref(),
        reloadable,
    )?;
    let mut builder = Builder::new(&walk, application, reloadable);
    for mut group in by_path(&walk.routes) {
        builder.mount_path(&mut group)?;
    }
    let (router, mut table, plans) = builder.finish()?;
    for warning in &walk.warnings {
        tracing::warn!(target: "cors_axum", "{warning}");
    }
    report_unlisted(&walk);
    table.warnings = walk.warnings;
    Ok((router, table, plans))
}

/// `routes`, grouped by path, paths in the order they were first met: fixed for a given
/// binary; the route table is sorted when it is read.
fn by_path<S>(routes: &[Collected<S>]) -> Vec<Vec<&Collected<S>>> {
    let mut groups: Vec<Vec<_>> = Vec::new();
    let mut group_of: FxHashMap<&Cow<'static, str>, usize> =
        FxHashMap::with_capacity_and_hasher(routes.len(), Default::default());
    for route in routes {
        let next = groups.len();
        let group = *group_of.entry(&route.path).or_insert(next);
        if group == next {
            groups.push(Vec::new());
        }
        groups[group].push(route);
    }
    groups
}

/// Logs the controllers of the root module's crate that no module lists: their routes are
/// not served, which is easy to miss.
fn report_unlisted<S: 'static>(walk: &Walk<S>) {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return;
    }
    let root_crate = crate_of(walk.root_type_name);
    for entry in inventory::iter::<ControllerEntry> {
        if crate_of(entry.module_path) == root_crate && !walk.listed.contains(&(entry.type_id)()) {
            tracing::debug!(
                controller = entry.name,
                module_path = entry.module_path,
                "controller is not listed in the `controllers` of any module of this application"
            );
        }
    }
}

/// The crate of a type or module path.
fn crate_of(path: &str) -> &str {
    path.split("::").next().unwrap_or(path)
}
