//! The planner: the one merge of a module's levels of options, compiled into the plan of each
//! of its paths.
//!
//! The merge, least specific first, field by field: the `CorsModule` imports from the root down
//! to the module (`imported.rs`), the application's options (`.provide(..)` of its builder,
//! which a reload replaces), the module's `providers_per_rou`, the controller's, the route's. A
//! level that switches CORS off (`enabled(false)`) or passes preflights through is a value of
//! that merge like any other. The values an origin decision takes are bound from the module's
//! providers as its plans are made.

use std::sync::Arc;

use cors_axum_core::{CorsConfigError, CorsOptions};
use http::Method;
use rustc_hash::FxHashMap;

use super::imported::ModuleRecipe;
use super::plan::{PathPlan, RoutePlan};
use super::plan_error::{PlanError, cors_error, validate};
use crate::provider::ProviderScope;
use crate::table::{CorsCoverage, CorsLevel};

/// A route's own options, as the merge needs them.
#[derive(Debug, Clone)]
pub(crate) struct RouteOptions {
    pub(crate) method: Method,
    pub(crate) controller: &'static str,
    pub(crate) handler: &'static str,
    pub(crate) controller_options: Option<Box<CorsOptions>>,
    pub(crate) route_options: Option<Box<CorsOptions>>,
}

impl RouteOptions {
    fn has_own(&self) -> bool {
        self.controller_options.is_some() || self.route_options.is_some()
    }
}

/// The application's level of the merge: its options, and where they were given.
pub(crate) struct ApplicationLevel<'a> {
    pub(crate) options: Option<&'a CorsOptions>,
    pub(crate) given_in: &'a str,
}

/// Makes the plans of one module's paths: the one merge, and its compilation.
pub(crate) struct ModulePlanner {
    recipe: Arc<ModuleRecipe>,
    /// The values the module's origin decisions may take: the application's and the module's
    /// providers.
    values: ProviderScope,
    /// The imports, the application's options and the module's, merged.
    options: CorsOptions,
    /// The most specific level of `options`: the module's when it gives options of its own,
    /// the application's when only the application does.
    level: CorsLevel,
    /// Paths without options of their own share one plan per set of methods.
    shared: FxHashMap<Vec<Method>, Arc<PathPlan>>,
}

impl ModulePlanner {
    /// The planner of `recipe`'s paths with the application's level of the merge, whose
    /// origin decisions take their values from `values`.
    pub(crate) fn new(
        recipe: Arc<ModuleRecipe>,
        application: &ApplicationLevel<'_>,
        values: ProviderScope,
    ) -> Result<Self, PlanError> {
        let module = recipe.module;
        let mut options = recipe.imported.options.clone();
        let level = match (&recipe.provided, application.options) {
            (None, Some(_)) => CorsLevel::Application,
            _ => CorsLevel::Module,
        };
        if let Some(given) = application.options {
            options = bind(options.merge(given), &values, &recipe, application.given_in)?;
            validate(&options, module, application.given_in)?;
        }
        if let Some(provided) = &recipe.provided {
            let given_in = format!("`{}` of `{module}`", recipe.providers_key);
            options = bind(options.merge(provided), &values, &recipe, &given_in)?;
            validate(&options, module, &given_in)?;
        }
        let given_in = format!("`CorsModule` imported by `{}`", recipe.imported.from);
        let options = bind(options, &values, &recipe, &given_in)?;
        Ok(Self {
            recipe,
            values,
            options,
            level,
            shared: FxHashMap::default(),
        })
    }

    /// The coverage of a route with the module's options.
    pub(crate) fn module_coverage(&self) -> CorsCoverage {
        self.coverage(&self.options, self.level)
    }

    fn coverage(&self, options: &CorsOptions, level: CorsLevel) -> CorsCoverage {
        if options.is_enabled() {
            CorsCoverage::From {
                module: self.recipe.imported.from,
                level,
            }
        } else {
            CorsCoverage::Off(level)
        }
    }

    /// The plan of a path with `methods` and `routes`, and how each route is covered (in the
    /// order of `routes`).
    pub(crate) fn path(
        &mut self,
        path: &str,
        methods: &[Method],
        routes: &[RouteOptions],
    ) -> Result<(Arc<PathPlan>, Vec<CorsCoverage>), PlanError> {
        if routes.iter().any(RouteOptions::has_own) {
            return self.path_with_own_options(path, methods, routes);
        }
        let coverage = vec![self.module_coverage(); routes.len()];
        if let Some(plan) = self.shared.get(methods) {
            return Ok((plan.clone(), coverage));
        }
        let module = self.compile(&self.options, Some(methods), None)?;
        let plan = Arc::new(PathPlan::single(module));
        self.shared.insert(methods.to_vec(), plan.clone());
        Ok((plan, coverage))
    }

    /// The plan of the answer to paths that match no route (`404`): the module's options, for
    /// whatever method a preflight asks for, since no route says otherwise.
    pub(crate) fn unknown_path(&self) -> Result<PathPlan, PlanError> {
        if !self.options.is_enabled() {
            // No handler answers an unknown path, so nothing upgrades there.
            return Ok(PathPlan::single(self.off()?));
        }
        Ok(PathPlan::single(self.compile(&self.options, None, None)?))
    }

    /// The module's options switched off where no route upgrades a connection: the checks
    /// that stay on, without the WebSocket handshake's.
    fn off(&self) -> Result<RoutePlan, PlanError> {
        RoutePlan::off(&self.options, false).map_err(|source| self.invalid(source))
    }

    /// The error of the module's options, invalid.
    fn invalid(&self, source: CorsConfigError) -> PlanError {
        let module = self.recipe.module;
        cors_error(module, format!("the CORS options of `{module}`"), source)
    }

    /// The plan of a path where some routes have options of their own.
    fn path_with_own_options(
        &self,
        path: &str,
        methods: &[Method],
        routes: &[RouteOptions],
    ) -> Result<(Arc<PathPlan>, Vec<CorsCoverage>), PlanError> {
        let mut default = self.compile(&self.options, Some(methods), None)?;
        let mut by_method = Vec::new();
        let mut coverage = Vec::with_capacity(routes.len());
        for route in routes {
            if !route.has_own() {
                coverage.push(self.module_coverage());
                continue;
            }
            let mut options = self.options.clone();
            let mut level = self.level;
            if let Some(controller) = &route.controller_options {
                options = options.merge(controller);
                level = CorsLevel::Controller;
            }
            if let Some(own) = &route.route_options {
                options = options.merge(own);
                level = CorsLevel::Route;
            }
            let given_in = given_in(route, level);
            options = bind(options, &self.values, &self.recipe, &given_in)?;
            let plan = self.compile(&options, Some(methods), Some((route, path, &given_in)))?;
            coverage.push(self.coverage(&options, level));
            by_method.push((route.method.clone(), plan));
        }
        // A path whose every route switches CORS off is off for what no route answers too: the
        // generated `OPTIONS` route and the `405` answer.
        if by_method.len() == routes.len()
            && by_method
                .iter()
                .all(|(_, p)| matches!(p, RoutePlan::Off { .. }))
        {
            default = self.off()?;
        }
        // `HEAD` is answered by the `GET` route unless the path has a `HEAD` route of its own.
        let has_head = routes.iter().any(|r| r.method == Method::HEAD);
        let get = by_method
            .iter()
            .find(|(m, _)| *m == Method::GET)
            .map(|(_, get)| get.clone());
        if let Some(get) = get {
            if !has_head {
                by_method.push((Method::HEAD, get.clone()));
            }
            // An HTTP/2 WebSocket handshake (an extended `CONNECT`, RFC 8441) is the `GET` of
            // HTTP/1.1 over another protocol: decided by the `GET` route's plan, unless a
            // `CONNECT` route has options of its own.
            if !by_method.iter().any(|(m, _)| *m == Method::CONNECT) {
                by_method.push((Method::CONNECT, get));
            }
        }
        Ok((Arc::new(PathPlan::new(default, by_method)), coverage))
    }

    /// Compiles `options`; an error names the route (`route`, on `path`, its options given in
    /// `given_in`) whose options they are, or the module.
    fn compile(
        &self,
        options: &CorsOptions,
        methods: Option<&[Method]>,
        route: Option<(&RouteOptions, &str, &str)>,
    ) -> Result<RoutePlan, PlanError> {
        RoutePlan::compile(options, methods).map_err(|source| match route {
            Some((route, path, given_in)) => PlanError::Invalid {
                module: self.recipe.module,
                route: Some(format!("{} {path}", route.method)),
                given_in: given_in.to_owned(),
                source: Box::new(source),
            },
            None => self.invalid(source),
        })
    }
}

/// Where a route's own options were given, for errors.
fn given_in(route: &RouteOptions, level: CorsLevel) -> String {
    match level {
        CorsLevel::Route => format!(
            "`#[route(..)]` of `{}::{}`",
            route.controller, route.handler
        ),
        _ => format!("`#[controller(..)]` of `{}`", route.controller),
    }
}

/// `options` with the values their origin decisions take (`AllowOrigin::async_predicate_with`)
/// bound from `values`, the providers of the module they decide for.
fn bind(
    options: CorsOptions,
    values: &ProviderScope,
    recipe: &ModuleRecipe,
    given_in: &str,
) -> Result<CorsOptions, PlanError> {
    let module = recipe.module;
    let needed = options.needed_values();
    if needed.is_empty() {
        return Ok(options);
    }
    let missing = needed.iter().find(|(id, _)| !values.provides(*id));
    options
        .with_values(|id| values.value(id))
        .map_err(|source| match missing {
            Some((_, type_name)) => PlanError::MissingValue {
                module,
                providers_key: recipe.providers_key,
                given_in: given_in.to_owned(),
                type_name,
                source: Box::new(source),
            },
            None => cors_error(module, given_in.to_owned(), source),
        })
}
