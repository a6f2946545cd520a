//! The checks of one path's routes before it is mounted: no method twice, modules that share
//! the path agreeing on CORS and layers, a provider for everything the routes and their guards
//! take, and CORS for the routes that take `CorsService`; each error naming the routes. And the
//! providers each route sees: its own, its controller's, its module's, the application's, the
//! most specific winning.

use std::sync::Arc;

use super::walk::{Collected, ControllerScope, ModuleScope, Walk, merged};
use crate::error::BuildError;
use crate::provider::ProviderScope;
use crate::table::CorsCoverage;

/// What a route needs, found before its method router is built.
pub(super) struct Prepared {
    /// The providers it sees.
    pub(super) scope: Option<ProviderScope>,
    /// Whether its handler or controller takes `CorsService`.
    pub(super) cors_service: bool,
    /// The names of its controller's and its own guards, in the order they run.
    pub(super) guard_names: Vec<&'static str>,
}

/// What `route` (on `path`) needs and sees, checked: every `Inject<T>` it and its guards take
/// has a provider in the application's providers, its module's, its controller's or its own.
#[inline]
pub(super) fn prepare<S>(
    walk: &Walk<S>,
    path: &str,
    route: &Collected<S>,
) -> Result<Prepared, BuildError> {
    let module = &walk.modules[route.module];
    let controller = controller_of(walk, route).providers.as_ref();
    let need = route.def.needs();
    let own = route.providers.as_ref();
    let levels = [
        Some(&walk.application),
        Some(&module.providers),
        controller,
        own,
    ];
    let provided = |type_id| levels.iter().flatten().any(|p| p.provides(type_id));
    for (type_id, type_name) in &need.injected {
        if !provided(*type_id) {
            return Err(BuildError::MissingProvider {
                route: format!("{} {path}", route.def.method),
                handler: describe(walk, route),
                module: module.name,
                providers_key: module.providers_key,
                type_name,
            });
        }
    }
    // Guards run with the route's providers: what they declare is checked the same way.
    for guard in module.scope.guard_needs.iter().chain(&need.guard_injected) {
        if !provided(guard.type_id) {
            return Err(BuildError::MissingGuardProvider {
                guard: guard.guard,
                route: format!("{} {path}", route.def.method),
                handler: describe(walk, route),
                module: module.name,
                providers_key: module.providers_key,
                type_name: guard.type_name,
            });
        }
    }
    let scope = match (controller, own) {
        (None, None) => module.routes_providers.clone(),
        _ => merged(&levels),
    };
    Ok(Prepared {
        scope,
        cors_service: need.cors_service,
        guard_names: need.guards,
    })
}

/// The controller of `route`, with its providers.
pub(super) fn controller_of<'w, S>(
    walk: &'w Walk<S>,
    route: &Collected<S>,
) -> &'w ControllerScope<S> {
    &walk.modules[route.module].controllers[route.controller]
}

/// `Module::Controller::handler`, for errors.
pub(super) fn describe<S>(walk: &Walk<S>, route: &Collected<S>) -> String {
    let module = &walk.modules[route.module];
    let controller = &controller_of(walk, route).controller;
    format!(
        "{}::{}::{}",
        module.name, controller.name, route.def.handler
    )
}

/// Checks the routes of one path, sorted by method: no method twice, and, where several
/// modules serve the path, the same CORS and layers in each.
#[inline]
pub(super) fn check_routes<S>(
    walk: &Walk<S>,
    path: &str,
    group: &[&Collected<S>],
) -> Result<(), BuildError> {
    for pair in group.windows(2) {
        if pair[0].def.method == pair[1].def.method {
            return Err(BuildError::DuplicateRoute {
                method: pair[0].def.method.to_string(),
                path: path.to_owned(),
                first: describe(walk, pair[0]),
                second: describe(walk, pair[1]),
            });
        }
    }
    let first = group[0];
    let Some(other) = group.iter().find(|r| r.module != first.module) else {
        return Ok(());
    };
    let modules = &walk.modules;
    let Some(why) = disagree(&modules[first.module], &modules[other.module]) else {
        return Ok(());
    };
    Err(BuildError::PathInTwoModules {
        path: path.to_owned(),
        first: describe(walk, first),
        second: describe(walk, other),
        why,
    })
}

/// Why modules `a` and `b` cannot share a path, if they cannot.
fn disagree<S>(a: &ModuleScope<S>, b: &ModuleScope<S>) -> Option<&'static str> {
    let same_cors = match (&a.cors, &b.cors) {
        (None, None) => true,
        (Some(a), Some(b)) => a.same_plans_as(b),
        _ => false,
    };
    let (a_layers, b_layers) = (&a.scope.layers, &b.scope.layers);
    let same_layers = a_layers.len() == b_layers.len()
        && a_layers
            .iter()
            .zip(b_layers)
            .all(|(a, b)| Arc::ptr_eq(a, b));
    match (same_cors, same_layers) {
        (true, true) => None,
        (false, _) => Some("their CORS differs"),
        (true, false) => Some("their layers differ"),
    }
}

#[inline]
/// A route that takes `CorsService` (`takes_service`, in the order of `group`) must be covered
/// by a CORS policy it can answer with; `coverage` is empty where no `CorsModule` covers the
/// path.
pub(super) fn check_cors_service<S>(
    walk: &Walk<S>,
    path: &str,
    group: &[&Collected<S>],
    takes_service: impl Iterator<Item = bool>,
    coverage: &[CorsCoverage],
) -> Result<(), BuildError> {
    for (i, (route, service)) in group.iter().zip(takes_service).enumerate() {
        if service && !matches!(coverage.get(i), Some(CorsCoverage::From { .. })) {
            return Err(BuildError::CorsServiceWithoutCors {
                route: format!("{} {path}", route.def.method),
                handler: describe(walk, route),
                module: walk.modules[route.module].name,
            });
        }
    }
    Ok(())
}
