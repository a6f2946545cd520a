//! Mounting: the router built path by path, each path's routes checked (`checks.rs`), their
//! providers scoped (`scope.rs`), its plan made (`planning.rs`), its method router assembled
//! (`assemble.rs`) and its routes recorded in the route table; then the answer to unknown paths.

use axum::Router;
use cors_axum_core::CorsOptions;
use http::Method;

use super::assemble::{answer_unknown_paths, method_router};
use super::checks::{check_cors_service, check_routes, controller_of};
use super::paths::Paths;
use super::planning::Planning;
use super::scope::{Prepared, Scopes};
use super::walk::{Collected, Walk};
use crate::cors::reload::Reloadable;
use crate::cors::respond::PathCors;
use crate::error::BuildError;
use crate::methods::{method_rank, path_methods};
use crate::provider::ProviderBuilder;
use crate::table::{CorsCoverage, RouteInfo, RoutePath, RouteTable};

/// The router being built, path by path.
pub(super) struct Builder<'w, S: 'static> {
    walk: &'w Walk<S>,
    /// `None` only while a path is being added: `Router::route` takes the router by value.
    router: Option<Router<S>>,
    table: RouteTable,
    paths: Paths,
    scopes: Scopes,
    planning: Planning,
    /// Reused from path to path.
    prepared: Vec<Prepared>,
}

/// What [`Builder::finish`] gives: the router, the route table, and the application's table of
/// plans where it is reloadable.
pub(super) type Finished<S> = (Router<S>, RouteTable, Option<Reloadable>);

impl<'w, S: Clone + Send + Sync + 'static> Builder<'w, S> {
    /// The builder of `walk`'s router, with the application's providers and CORS options, its
    /// plans swapped by a reload where `reloadable`.
    pub(super) fn new(
        walk: &'w Walk<S>,
        providers: ProviderBuilder,
        application: Option<CorsOptions>,
        reloadable: bool,
    ) -> Self {
        Self {
            walk,
            router: Some(Router::new()),
            // One row per route, and one per path for a generated `OPTIONS` route: reserved
            // for the routes, the table grows at most once more.
            table: RouteTable {
                routes: Vec::with_capacity(walk.routes.len()),
                warnings: Vec::new(),
            },
            paths: Paths::default(),
            scopes: Scopes::new(providers, walk.modules.len()),
            planning: Planning::new(application, reloadable),
            prepared: Vec::new(),
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
        let mut prepared = std::mem::take(&mut self.prepared);
        prepared.clear();
        for route in group.iter() {
            prepared.push(self.scopes.prepare(walk, &path, route)?);
        }
        // The methods matter to CORS only: its plan and the generated `OPTIONS` route.
        let methods = match module.cors {
            Some(_) => path_methods(group.iter().map(|r| &r.def.method)),
            None => Vec::new(),
        };
        let at = (walk, &mut self.scopes);
        let (plan, coverage) = self.planning.plan(at, &path, &methods, group)?;
        let has_cors = plan.as_ref().is_some_and(|planned| planned.has_cors);
        let service = prepared.iter().any(|p| p.cors_service);
        let cors = plan.map(|planned| PathCors::new(planned.source, Some(path.clone()), service));
        let takes_service = prepared.iter().map(|p| p.cors_service);
        check_cors_service(walk, &path, group, takes_service, &coverage)?;
        let generate_options = has_cors && !group.iter().any(|r| r.def.method == Method::OPTIONS);
        let cors = cors.as_ref();
        let routes = method_router(
            module,
            group,
            &mut prepared,
            cors,
            &methods,
            generate_options,
        );
        self.prepared = prepared;
        let generated = generate_options.then(|| self.planning.module_coverage(group[0].module));
        let into = (&mut self.table, &mut self.paths);
        record(walk, into, &path, group, coverage, generated)?;
        let router = self
            .router
            .take()
            .expect("the router is put back after each path");
        self.router = Some(router.route(&path, routes));
        Ok(())
    }

    /// The router, with the answer to unknown paths under the root's plan, the route table in
    /// mounting order, and, where the application is reloadable, its table of plans with what
    /// a reload makes it again from.
    pub(super) fn finish(mut self) -> Result<Finished<S>, BuildError> {
        let router = self
            .router
            .take()
            .expect("the router is put back after each path");
        let unknown = self.planning.unknown_path((self.walk, &mut self.scopes))?;
        let router = answer_unknown_paths(router, unknown);
        Ok((router, self.table, self.planning.into_reloadable()))
    }
}

/// Writes the routes of `path` (`group`, covered as `coverage` says, none of them where it is
/// empty) into `table`, with the
/// generated `OPTIONS` route where there is one (`generated`, its coverage), and checks the
/// path against those already mounted (`paths`).
#[inline]
fn record<S>(
    walk: &Walk<S>,
    (table, paths): (&mut RouteTable, &mut Paths),
    path: &RoutePath,
    group: &[&Collected<S>],
    coverage: Vec<CorsCoverage>,
    generated: Option<CorsCoverage>,
) -> Result<(), BuildError> {
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
    paths.add(path, start, &table.routes)
}
