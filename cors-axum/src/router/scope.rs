//! Provider scoping: the providers each route sees (its own, its controller's, its module's,
//! the application's, the most specific winning), merged once per module for the routes that
//! have none of their own, and what a route needs, checked against them.

use super::checks::{check_providers, controller_of};
use super::walk::{Collected, Walk};
use crate::error::BuildError;
use crate::provider::{ProviderBuilder, ProviderScope};

/// What a route needs, found before its method router is built.
pub(super) struct Prepared {
    /// The providers it sees.
    pub(super) scope: Option<ProviderScope>,
    /// Whether its handler or controller takes `CorsService`.
    pub(super) cors_service: bool,
    /// The names of its controller's and its own guards, in the order they run.
    pub(super) guard_names: Vec<&'static str>,
}

/// The providers of an application's routes.
pub(super) struct Scopes {
    /// The application's providers ([`ApplicationBuilder::provide`]).
    ///
    /// [`ApplicationBuilder::provide`]: crate::app::ApplicationBuilder::provide
    application: ProviderBuilder,
    /// The providers of each module's routes without providers of their own, made once.
    modules: Vec<Option<Option<ProviderScope>>>,
}

impl Scopes {
    /// The scopes of `modules` modules under the application's providers.
    pub(super) fn new(application: ProviderBuilder, modules: usize) -> Self {
        Self {
            application,
            modules: vec![None; modules],
        }
    }

    /// What `route` (on `path`) needs and sees, checked: every `Inject<T>` it takes has a
    /// provider.
    #[inline]
    pub(super) fn prepare<S>(
        &mut self,
        walk: &Walk<S>,
        path: &str,
        route: &Collected<S>,
    ) -> Result<Prepared, BuildError> {
        let module = &walk.modules[route.module];
        let controller_providers = &controller_of(walk, route).providers;
        let need = route.def.needs();
        let levels = [
            route.providers.as_ref(),
            controller_providers.as_ref(),
            Some(&module.providers),
            Some(&self.application),
        ];
        check_providers(walk, path, route, &need, levels)?;
        let scope = match (controller_providers, &route.providers) {
            (None, None) => self.module(walk, route.module),
            (controller, own) => scope([
                Some(&self.application),
                Some(&module.providers),
                controller.as_ref(),
                own.as_ref(),
            ]),
        };
        Ok(Prepared {
            scope,
            cors_service: need.cors_service,
            guard_names: need.guards,
        })
    }

    /// The providers of module `index`'s routes without providers of their own, made once.
    pub(super) fn module<S>(&mut self, walk: &Walk<S>, index: usize) -> Option<ProviderScope> {
        let module = &walk.modules[index];
        let application = &self.application;
        self.modules[index]
            .get_or_insert_with(|| scope([Some(application), Some(&module.providers), None, None]))
            .clone()
    }
}

/// The providers of `levels`, most general first, merged; `None` when there are none.
fn scope(levels: [Option<&ProviderBuilder>; 4]) -> Option<ProviderScope> {
    if levels.iter().flatten().all(|p| p.is_empty()) {
        return None;
    }
    let mut scope = ProviderBuilder::new();
    for level in levels.into_iter().flatten() {
        scope.extend(level.clone());
    }
    Some(scope.into_scope())
}
