//! Router assembly: each path's method router, CORS placed where the path's layers let it sit
//! (in the handler, around the route's own layers, or around the path's), with the `405` answer
//! and the generated `OPTIONS` route; and the answer to unknown paths, the `404`.

use axum::Router;
use axum::routing::{MethodFilter, MethodRouter, on_service};
use http::{Method, StatusCode};
use tower_layer::Layer;

use super::scope::Prepared;
use super::walk::{Collected, ModuleScope};
use crate::cors::CorsLayer;
use crate::cors::answer::FixedAnswer;
use crate::cors::respond::PathCors;
use crate::cors::source::PlanSource;
use crate::handler::RouteSetup;

/// Where CORS sits on a route: in its handler (the cheapest: one axum `Route` per method), or
/// in a layer around the layers it must wrap, the route's own or the path's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placement {
    Handler,
    AroundRoute,
    AroundPath,
}

impl Placement {
    /// Where CORS sits on a route with its own layers (`route_layered`, of the route or its
    /// controller) on a path with layers of its modules or of the application (`path_layered`).
    fn of(path_layered: bool, route_layered: bool) -> Self {
        match (path_layered, route_layered) {
            (true, _) => Placement::AroundPath,
            (false, true) => Placement::AroundRoute,
            (false, false) => Placement::Handler,
        }
    }
}

/// The method router of one path, CORS placed as its layers let it sit.
pub(super) fn method_router<S: Clone + Send + Sync + 'static>(
    module: &ModuleScope<S>,
    group: &[&Collected<S>],
    prepared: &mut Vec<Prepared>,
    cors: Option<&PathCors>,
    methods: &[Method],
    generate_options: bool,
) -> MethodRouter<S> {
    let path_layered = !module.layers.is_empty();
    let mut method_router = MethodRouter::new();
    for (route, prepared) in group.iter().zip(prepared.drain(..)) {
        let placement = Placement::of(path_layered, route.def.layered);
        let guards = if route.def.guards.is_empty() {
            module.guards.clone()
        } else {
            // The macro declares the names of the route's guards in their order; a route
            // written by hand may not.
            let names = prepared
                .guard_names
                .iter()
                .copied()
                .chain(std::iter::repeat("a guard"));
            let own = route.def.guards.iter().map(|guard| guard.0).zip(names);
            module.guards.iter().copied().chain(own).collect()
        };
        let setup = RouteSetup {
            guards,
            cors: cors.filter(|_| placement == Placement::Handler).cloned(),
            scope: prepared.scope,
        };
        method_router = match (cors, placement) {
            // The route's own layers are inside its CORS.
            (Some(cors), Placement::AroundRoute) => {
                let built = (route.def.method_router)(MethodRouter::new(), setup);
                method_router.merge(built.layer(CorsLayer::for_path(cors.clone())))
            }
            _ => (route.def.method_router)(method_router, setup),
        };
    }
    for layer in &module.layers {
        method_router = layer(method_router);
    }
    let Some(cors) = cors else {
        return method_router;
    };
    let layer = CorsLayer::for_path(cors.clone());
    method_router = if path_layered {
        method_router.layer(layer.clone())
    } else {
        // The `405` answer, which no handler gives.
        method_router
            .fallback_service(layer.layer(FixedAnswer::status(StatusCode::METHOD_NOT_ALLOWED)))
    };
    if generate_options {
        // Outside the modules' layers: the generated route is the CORS module's own, which
        // no authentication stands in front of. Merged into it, so that the `405` answer
        // keeps its CORS.
        let options = layer.layer(FixedAnswer::allow(methods));
        method_router = on_service(MethodFilter::OPTIONS, options).merge(method_router);
    }
    method_router
}

/// `router` with the answer to paths that match no route, the `404`, under CORS where the root
/// module's plan says (`source`).
pub(super) fn answer_unknown_paths<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    source: Option<PlanSource>,
) -> Router<S> {
    let Some(source) = source else {
        return router;
    };
    let layer = CorsLayer::for_path(PathCors::new(source, None, false));
    router.fallback_service(layer.layer(FixedAnswer::status(StatusCode::NOT_FOUND)))
}
