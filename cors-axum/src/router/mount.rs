//! Mounting one path: its routes checked, its plan made, CORS placed where the path's layers
//! let it sit, and the path added to the router.

use std::sync::Arc;

use axum::Router;
use axum::routing::{MethodFilter, MethodRouter, on_service};
use cors_axum_core::CorsOptions;
use http::{Method, StatusCode};
use rustc_hash::FxHashMap;
use tower_layer::Layer;

use super::paths::Paths;
use super::walk::{Collected, ControllerScope, ModuleScope, Walk};
use crate::cors::CorsLayer;
use crate::cors::answer::FixedAnswer;
use crate::cors::plan::PathPlan;
use crate::cors::planner::{ApplicationLevel, ModulePlanner, RouteOptions};
use crate::cors::reload::{ModuleReload, ReloadPath, Reloadable, Remake};
use crate::cors::respond::PathCors;
use crate::cors::source::{PlanSource, PlanTable, SharedTable};
use crate::error::BuildError;
use crate::handler::RouteSetup;
use crate::methods::{method_rank, path_methods};
use crate::provider::{ProviderBuilder, ProviderScope};
use crate::table::{CorsCoverage, RouteInfo, RouteTable};
use crate::wiring::Needs;

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

/// What a route needs, found before its method router is built.
struct Prepared {
    /// The providers it sees.
    scope: Option<ProviderScope>,
    /// Whether its handler or controller takes `CorsService`.
    cors_service: bool,
    /// The names of its controller's and its own guards, in the order they run.
    guard_names: Vec<&'static str>,
}

/// A path's plan, as mounting needs it.
struct Planned {
    source: PlanSource,
    /// Whether CORS is on for any route of the path (or may be, after a reload).
    has_cors: bool,
}

/// The router being built, path by path.
pub(super) struct Builder<'w, S: 'static> {
    walk: &'w Walk<S>,
    /// `None` only while a path is being added: `Router::route` takes the router by value.
    router: Option<Router<S>>,
    table: RouteTable,
    paths: Paths,
    /// The application's providers ([`ApplicationBuilder::provide`]).
    ///
    /// [`ApplicationBuilder::provide`]: crate::ApplicationBuilder::provide
    providers: ProviderBuilder,
    application: Option<CorsOptions>,
    /// The table of plans a reload swaps, where the application is reloadable; its plans,
    /// path after path, until [`finish`](Self::finish) stores them.
    reloadable: Option<(SharedTable, Vec<Arc<PathPlan>>)>,
    /// The providers of each module's routes without providers of their own.
    module_scopes: Vec<Option<Option<ProviderScope>>>,
    planners: FxHashMap<usize, ModulePlanner>,
    reloads: FxHashMap<usize, ModuleReload>,
    /// Reused from path to path.
    prepared: Vec<Prepared>,
}

impl<'w, S: Clone + Send + Sync + 'static> Builder<'w, S> {
    pub(super) fn new(
        walk: &'w Walk<S>,
        providers: ProviderBuilder,
        application: Option<CorsOptions>,
        reloadable: bool,
    ) -> Self {
        Self {
            walk,
            router: Some(Router::new()),
            table: RouteTable::default(),
            paths: Paths::default(),
            application,
            providers,
            reloadable: reloadable.then(|| (SharedTable::default(), Vec::new())),
            module_scopes: vec![None; walk.modules.len()],
            planners: FxHashMap::default(),
            reloads: FxHashMap::default(),
            prepared: Vec::new(),
        }
    }

    /// Mounts the routes of one path, `group`.
    pub(super) fn mount_path(
        &mut self,
        group: &mut Vec<&'w Collected<S>>,
    ) -> Result<(), BuildError> {
        let path: Arc<str> = Arc::from(&*group[0].path);
        // Declaration order is not meaningful: sort, so that a duplicate is reported the same
        // way every time, naming both routes.
        group.sort_by_key(|r| {
            let controller = &self.controller_of(r).controller;
            (
                method_rank(&r.def.method),
                r.module,
                controller.name,
                r.def.handler,
            )
        });
        self.check_routes(&path, group)?;
        let walk = self.walk;
        let module = &walk.modules[group[0].module];
        let mut prepared = std::mem::take(&mut self.prepared);
        prepared.clear();
        for route in group.iter() {
            prepared.push(self.prepare(&path, route)?);
        }
        // The methods matter to CORS only: its plan and the generated `OPTIONS` route.
        let methods = match module.cors {
            Some(_) => path_methods(group.iter().map(|r| &r.def.method)),
            None => Vec::new(),
        };
        let (plan, coverage) = self.plan(&path, &methods, group)?;
        let has_cors = plan.as_ref().is_some_and(|planned| planned.has_cors);
        let service = prepared.iter().any(|p| p.cors_service);
        let cors = plan.map(|planned| PathCors::new(planned.source, Some(path.clone()), service));
        self.check_cors_service(&path, group, &prepared, &coverage)?;
        let generate_options = has_cors && !group.iter().any(|r| r.def.method == Method::OPTIONS);
        let method_router = self.method_router(
            module,
            group,
            &mut prepared,
            cors.as_ref(),
            &methods,
            generate_options,
        );
        self.prepared = prepared;
        self.record(&path, group, coverage, generate_options)?;
        let router = self
            .router
            .take()
            .expect("the router is put back after each path");
        self.router = Some(router.route(&path, method_router));
        Ok(())
    }

    /// A route that takes `CorsService` must be covered by a CORS policy it can answer with.
    fn check_cors_service(
        &self,
        path: &str,
        group: &[&'w Collected<S>],
        prepared: &[Prepared],
        coverage: &[CorsCoverage],
    ) -> Result<(), BuildError> {
        for ((route, prepared), coverage) in group.iter().zip(prepared).zip(coverage) {
            if prepared.cors_service && !matches!(coverage, CorsCoverage::From { .. }) {
                return Err(BuildError::CorsServiceWithoutCors {
                    route: format!("{} {path}", route.def.method),
                    handler: self.describe(route),
                    module: self.walk.modules[route.module].name,
                });
            }
        }
        Ok(())
    }

    /// Writes the path's routes (and its generated `OPTIONS` route) into the route table, and
    /// checks the path against those already mounted.
    fn record(
        &mut self,
        path: &Arc<str>,
        group: &[&'w Collected<S>],
        coverage: Vec<CorsCoverage>,
        generate_options: bool,
    ) -> Result<(), BuildError> {
        let walk = self.walk;
        let start = self.table.len();
        self.table
            .routes
            .extend(group.iter().zip(coverage).map(|(route, cors)| {
                let controller =
                    &walk.modules[route.module].controllers[route.controller].controller;
                RouteInfo {
                    method: route.def.method.clone(),
                    path: path.clone(),
                    module: walk.modules[route.module].name,
                    controller: controller.name,
                    handler: route.def.handler,
                    cors,
                    generated: false,
                }
            }));
        if generate_options {
            self.table.routes.push(RouteInfo {
                method: Method::OPTIONS,
                path: path.clone(),
                module: walk.modules[group[0].module].name,
                controller: "CorsModule",
                handler: "options",
                cors: self.planners[&group[0].module].module_coverage(),
                generated: true,
            });
        }
        self.paths.add(path, start, &self.table.routes)
    }

    /// The controller of `route`, with its providers.
    fn controller_of(&self, route: &Collected<S>) -> &'w ControllerScope<S> {
        &self.walk.modules[route.module].controllers[route.controller]
    }

    /// `Module::Controller::handler`, for errors.
    fn describe(&self, route: &Collected<S>) -> String {
        let module = &self.walk.modules[route.module];
        let controller = &self.controller_of(route).controller;
        format!(
            "{}::{}::{}",
            module.name, controller.name, route.def.handler
        )
    }

    /// Checks the routes of one path, sorted by method: no method twice, and, where several
    /// modules serve the path, the same CORS and layers in each.
    fn check_routes(&self, path: &str, group: &[&Collected<S>]) -> Result<(), BuildError> {
        for pair in group.windows(2) {
            if pair[0].def.method == pair[1].def.method {
                return Err(BuildError::DuplicateRoute {
                    method: pair[0].def.method.to_string(),
                    path: path.to_owned(),
                    first: self.describe(pair[0]),
                    second: self.describe(pair[1]),
                });
            }
        }
        let first = group[0];
        let Some(other) = group.iter().find(|r| r.module != first.module) else {
            return Ok(());
        };
        let modules = &self.walk.modules;
        let (a, b) = (&modules[first.module], &modules[other.module]);
        let same_cors = match (&a.cors, &b.cors) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same_plans_as(b),
            _ => false,
        };
        let same_layers = a.layers.len() == b.layers.len()
            && a.layers
                .iter()
                .zip(&b.layers)
                .all(|(a, b)| Arc::ptr_eq(a, b));
        let why = match (same_cors, same_layers) {
            (true, true) => return Ok(()),
            (false, _) => "their CORS differs",
            (true, false) => "their layers differ",
        };
        Err(BuildError::PathInTwoModules {
            path: path.to_owned(),
            first: self.describe(first),
            second: self.describe(other),
            why,
        })
    }

    /// What `route` needs and sees, checked: every `Inject<T>` it takes has a provider.
    fn prepare(&mut self, path: &str, route: &Collected<S>) -> Result<Prepared, BuildError> {
        let module = &self.walk.modules[route.module];
        let controller_providers = &self.controller_of(route).providers;
        let need = Needs::of(route.def.needs);
        let levels = [
            route.providers.as_ref(),
            controller_providers.as_ref(),
            Some(&module.providers),
            Some(&self.providers),
        ];
        let provided = |type_id| levels.iter().flatten().any(|p| p.provides(type_id));
        for (type_id, type_name) in &need.injected {
            if !provided(*type_id) {
                return Err(BuildError::MissingProvider {
                    route: format!("{} {path}", route.def.method),
                    handler: self.describe(route),
                    module: module.name,
                    providers_key: module.providers_key,
                    type_name,
                });
            }
        }
        // Guards run with the route's providers: what they declare is checked the same way.
        for guard in module.guard_needs.iter().chain(&need.guard_injected) {
            if !provided(guard.type_id) {
                return Err(BuildError::MissingGuardProvider {
                    guard: guard.guard,
                    route: format!("{} {path}", route.def.method),
                    handler: self.describe(route),
                    module: module.name,
                    providers_key: module.providers_key,
                    type_name: guard.type_name,
                });
            }
        }
        let scope = match (controller_providers, &route.providers) {
            (None, None) => self.module_scope(route.module),
            (controller, own) => scope([
                Some(&self.providers),
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
    fn module_scope(&mut self, index: usize) -> Option<ProviderScope> {
        let module = &self.walk.modules[index];
        let providers = &self.providers;
        self.module_scopes[index]
            .get_or_insert_with(|| scope([Some(providers), Some(&module.providers), None, None]))
            .clone()
    }

    /// The plan of a path, with whether CORS is on for any of its routes, and how each of them
    /// is covered; no plan where no `CorsModule` covers it, or where the plan does nothing for
    /// good (not reloadable).
    fn plan(
        &mut self,
        path: &Arc<str>,
        methods: &[Method],
        group: &[&Collected<S>],
    ) -> Result<(Option<Planned>, Vec<CorsCoverage>), BuildError> {
        let index = group[0].module;
        if self.walk.modules[index].cors.is_none() {
            return Ok((None, vec![CorsCoverage::None; group.len()]));
        }
        let routes: Vec<RouteOptions> = group
            .iter()
            .map(|route| {
                let controller = self.controller_of(route);
                RouteOptions {
                    method: route.def.method.clone(),
                    controller: controller.controller.name,
                    handler: route.def.handler,
                    controller_options: controller.cors.clone(),
                    route_options: route.cors.clone(),
                }
            })
            .collect();
        let (plan, coverage) = self.planner(index)?.path(path, methods, &routes)?;
        let reloadable = self.reloadable.is_some();
        if !reloadable && plan.is_inert() {
            return Ok((None, coverage));
        }
        let has_cors = plan.has_cors() || reloadable;
        let (source, place) = self.source(plan);
        if let Some(place) = place {
            self.reload_of(index).paths.push(ReloadPath {
                index: place,
                path: path.clone(),
                methods: methods.to_vec(),
                routes,
            });
        }
        Ok((Some(Planned { source, has_cors }), coverage))
    }

    /// Where requests read `plan`: the plan itself, or its place in the table of plans of a
    /// reloadable application (and that place).
    fn source(&mut self, plan: Arc<PathPlan>) -> (PlanSource, Option<usize>) {
        let Some((table, plans)) = &mut self.reloadable else {
            return (PlanSource::Static(plan), None);
        };
        let index = plans.len();
        plans.push(plan);
        let table = table.clone();
        (PlanSource::Table { table, index }, Some(index))
    }

    /// The planner of module `index`'s paths, made once.
    fn planner(&mut self, index: usize) -> Result<&mut ModulePlanner, BuildError> {
        if !self.planners.contains_key(&index) {
            let recipe = self.walk.modules[index]
                .cors
                .clone()
                .expect("a planner is made for a module under CORS");
            let values = self.values_of(index);
            let application = ApplicationLevel {
                options: self.application.as_ref(),
                given_in: "`.provide(..)` of the application builder",
            };
            let planner = ModulePlanner::new(recipe, &application, values)?;
            self.planners.insert(index, planner);
        }
        Ok(self.planners.get_mut(&index).expect("inserted above"))
    }

    /// The values module `index`'s origin decisions may take: the application's providers and
    /// the module's own, as its routes see them.
    fn values_of(&mut self, index: usize) -> ProviderScope {
        self.module_scope(index).unwrap_or_default()
    }

    /// What a reload of module `index`'s plans needs, made once.
    fn reload_of(&mut self, index: usize) -> &mut ModuleReload {
        if !self.reloads.contains_key(&index) {
            let recipe = self.walk.modules[index].cors.clone();
            let target = ModuleReload {
                recipe: recipe.expect("a reload is made for a module under CORS"),
                values: self.values_of(index),
                paths: Vec::new(),
                unknown_path: None,
            };
            self.reloads.insert(index, target);
        }
        self.reloads.get_mut(&index).expect("inserted above")
    }

    /// The method router of one path, CORS placed as its layers let it sit.
    fn method_router(
        &self,
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
                let own = route.def.guards.iter().copied().zip(names);
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

    /// The router, with the answer to unknown paths under the root's plan, the route table in
    /// mounting order, and, where the application is reloadable, its table of plans with what
    /// a reload makes it again from.
    pub(super) fn finish(mut self) -> Result<Finished<S>, BuildError> {
        let mut router = self
            .router
            .take()
            .expect("the router is put back after each path");
        if self.walk.root().cors.is_some() {
            let plan = Arc::new(self.planner(0)?.unknown_path()?);
            if self.reloadable.is_some() || !plan.is_inert() {
                let (source, place) = self.source(plan);
                if place.is_some() {
                    self.reload_of(0).unknown_path = place;
                }
                let layer = CorsLayer::for_path(PathCors::new(source, None, false));
                router = router
                    .fallback_service(layer.layer(FixedAnswer::status(StatusCode::NOT_FOUND)));
            }
        }
        let reloadable = self.reloadable.take().map(|(table, plans)| {
            table.store(Arc::new(PlanTable::new(plans)));
            let mut modules: Vec<_> = self.reloads.drain().collect();
            modules.sort_by_key(|(index, _)| *index);
            Reloadable {
                table,
                remake: Remake::Application(modules.into_iter().map(|(_, m)| m).collect()),
                in_force: self.application.clone().unwrap_or_default(),
            }
        });
        Ok((router, self.table, reloadable))
    }
}

/// What [`Builder::finish`] gives: the router, the route table, and the application's table of
/// plans where it is reloadable.
pub(super) type Finished<S> = (Router<S>, RouteTable, Option<Reloadable>);

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
