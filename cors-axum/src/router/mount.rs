//! Mounting: the router built path by path, each path's routes checked and their providers
//! scoped (`checks.rs`), its plan made (`planning.rs`), its method router assembled with CORS
//! placed where the path's layers let it sit (in the handler, around the route's own layers,
//! or around the path's), the `405` answer and the generated `OPTIONS` route, and its routes
//! recorded in the route table; then the answer to unknown paths, the `404`.

use axum::Router;
use axum::routing::{MethodFilter, MethodRouter, on_service};
use cors_axum_core::CorsOptions;
use http::{Method, StatusCode};
use tower_layer::Layer;

use super::checks::{Prepared, check_cors_service, check_routes, controller_of, prepare};
use super::paths::Paths;
use super::planning::Planning;
use super::walk::{Collected, ModuleScope, Walk};
use crate::cors::CorsLayer;
use crate::cors::answer::FixedAnswer;
use crate::cors::reload::Reloadable;
use crate::cors::respond::PathCors;
use crate::error::BuildError;
use crate::handler::RouteSetup;
use crate::methods::{method_rank, path_methods};
use crate::table::{CorsCoverage, RouteInfo, RoutePath, RouteTable};

/// What an application is built into: its router, its route table in mounting order, and, where
/// it is reloadable, its table of plans with what a reload makes it again from.
pub(crate) type Built<S> = (Router<S>, RouteTable, Option<Reloadable>);

/// The router being built, path by path.
pub(super) struct Builder<'w, S: 'static> {
    walk: &'w Walk<S>,
    router: Router<S>,
    table: RouteTable,
    paths: Paths,
    planning: Planning,
}

impl<'w, S: Clone + Send + Sync + 'static> Builder<'w, S> {
    /// The builder of `walk`'s router, with the application's CORS options, its plans swapped
    /// by a reload where `reloadable`.
    pub(super) fn new(
        walk: &'w Walk<S>,
        application: Option<CorsOptions>,
        reloadable: bool,
    ) -> Self {
        Self {
            walk,
            router: Router::new(),
            // One row per route, and one per path for a generated `OPTIONS` route: reserved
            // for the routes, the table grows at most once more.
            table: RouteTable {
                routes: Vec::with_capacity(walk.routes.len()),
                warnings: Vec::new(),
            },
            paths: Paths::default(),
            planning: Planning::new(application, reloadable),
        }
    }

    /// Mounts the routes of one path, `group`.
    pub(super) fn mount_path(
        &mut self,
        group: &mut Vec<&'w Collected<S>>,
    ) -> Result<(), BuildError> {
        let walk = self.walk;
        let path = RoutePath::of(&group[0].path);
        // Declaration order is not meaningful: sort, so that a duplicate is reported the same
        // way every time, naming both routes. Most groups come sorted already (a controller
        // declares one route per method of a path, usually in the usual order).
        let key = |r: &&Collected<S>| {
            let controller = &controller_of(walk, r).controller;
            let method = method_rank(&r.def.method);
            (method, r.module, controller.name, r.def.handler)
        };
        if !group.is_sorted_by_key(key) {
            group.sort_by_key(key);
        }
        check_routes(walk, &path, group)?;
        let module = &walk.modules[group[0].module];
        let prepared = group
            .iter()
            .map(|route| prepare(walk, &path, route))
            .collect::<Result<Vec<_>, _>>()?;
        // The methods matter to CORS only: its plan and the generated `OPTIONS` route.
        let methods = match module.cors {
            Some(_) => path_methods(group.iter().map(|r| &r.def.method)),
            None => Vec::new(),
        };
        let (plan, coverage) = self.planning.plan(walk, &path, &methods, group)?;
        let takes_service = prepared.iter().map(|p| p.cors_service);
        check_cors_service(walk, &path, group, takes_service, &coverage)?;
        let service = prepared.iter().any(|p| p.cors_service);
        let generate_options = plan.as_ref().is_some_and(|(_, has_cors)| *has_cors)
            && !group.iter().any(|r| r.def.method == Method::OPTIONS);
        let cors = plan.map(|(source, _)| PathCors::new(source, Some(path.clone()), service));
        let cors = cors.as_ref();
        let routes = method_router(module, group, prepared, cors, &methods, generate_options);
        let generated = generate_options.then(|| self.planning.module_coverage(group[0].module));
        self.record(&path, group, coverage, generated)?;
        self.router = std::mem::take(&mut self.router).route(&path, routes);
        Ok(())
    }

    /// The router, with the answer to paths that match no route, the `404`, under the root's
    /// plan, the route table in mounting order, and, where the application is reloadable, its
    /// table of plans with what a reload makes it again from.
    pub(super) fn finish(mut self) -> Result<Built<S>, BuildError> {
        let mut router = self.router;
        if let Some(source) = self.planning.unknown_path(self.walk)? {
            let layer = CorsLayer::for_path(PathCors::new(source, None, false));
            router =
                router.fallback_service(layer.layer(FixedAnswer::status(StatusCode::NOT_FOUND)));
        }
        Ok((router, self.table, self.planning.into_reloadable()))
    }

    /// Writes the routes of `path` (`group`, covered as `coverage` says, none of them where
    /// it is empty) into the route table, with the generated `OPTIONS` route where there is
    /// one (`generated`, its coverage), and checks the path against those already mounted.
    #[inline]
    fn record(
        &mut self,
        path: &RoutePath,
        group: &[&Collected<S>],
        coverage: Vec<CorsCoverage>,
        generated: Option<CorsCoverage>,
    ) -> Result<(), BuildError> {
        let (walk, table) = (self.walk, &mut self.table);
        let start = table.len();
        let mut coverage = coverage.into_iter();
        table.routes.extend(group.iter().map(|route| RouteInfo {
            method: route.def.method.clone(),
            path: path.clone(),
            module: walk.modules[route.module].name,
            controller: controller_of(walk, route).controller.name,
            handler: route.def.handler,
            cors: coverage.next().unwrap_or(CorsCoverage::None),
            generated: false,
        }));
        if let Some(cors) = generated {
            table.routes.push(RouteInfo {
                method: Method::OPTIONS,
                path: path.clone(),
                module: walk.modules[group[0].module].name,
                controller: "CorsModule",
                handler: "options",
                cors,
                generated: true,
            });
        }
        self.paths.add(path, start, &table.routes)
    }
}

/// The method router of one path, CORS placed as its layers let it sit: in the handler (the
/// cheapest: one axum `Route` per method) where no layer is in the way, else in a layer around
/// the route's own layers (of the route or its controller) or, where the path has layers of
/// its modules or of the application, around the path's; with the `405` answer and, where
/// `generate_options`, the generated `OPTIONS` route.
fn method_router<S: Clone + Send + Sync + 'static>(
    module: &ModuleScope<S>,
    group: &[&Collected<S>],
    prepared: Vec<Prepared>,
    cors: Option<&PathCors>,
    methods: &[Method],
    generate_options: bool,
) -> MethodRouter<S> {
    let scope = &module.scope;
    let path_layered = !scope.layers.is_empty();
    let mut method_router = MethodRouter::new();
    for (route, prepared) in group.iter().zip(prepared) {
        let guards = if route.def.guards.is_empty() {
            scope.guards.clone()
        } else {
            // Each guard's name, from its declaration, in the order the guards run.
            let names = prepared.guard_names.iter().copied();
            let own = route.def.guards.iter().map(|guard| guard.0).zip(names);
            scope.guards.iter().copied().chain(own).collect()
        };
        let in_handler = !path_layered && !route.def.layered;
        let setup = RouteSetup {
            guards,
            cors: cors.filter(|_| in_handler).cloned(),
            scope: prepared.scope,
        };
        method_router = match cors {
            // The route's own layers are inside its CORS.
            Some(cors) if !path_layered && route.def.layered => {
                let built = (route.def.method_router)(MethodRouter::new(), setup);
                method_router.merge(built.layer(CorsLayer::for_path(cors.clone())))
            }
            _ => (route.def.method_router)(method_router, setup),
        };
    }
    for layer in &scope.layers {
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
