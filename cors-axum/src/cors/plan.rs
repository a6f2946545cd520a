//! The plan of a path: the CORS every request to it meets, decided once, by one merge of the
//! levels of options, and read by every place that answers for the path: the handler wrapper,
//! route layers, the generated `OPTIONS` route, passthrough, the `404`/`405` answers and reload.
//!
//! The merge, least specific first, field by field: the `CorsModule` imports from the root down
//! to the module, the application's options (`.provide(..)` of its builder, which a reload
//! replaces), the module's `providers_per_rou`, the controller's, the route's. A level that
//! switches CORS off (`enabled(false)`) or passes preflights through is a value of that merge like
//! any other.

use std::sync::Arc;

use cors_axum_core::{CorsConfigError, CorsOptions, CorsPolicy, CorsRequest, RequestKind};
use http::header::{CONTENT_LENGTH, VARY};
use http::{HeaderMap, HeaderValue, Method};
use rustc_hash::FxHashMap;

use super::module::CorsImport;
use crate::error::BuildError;
use crate::provider::ProviderScope;
use crate::table::{CorsCoverage, CorsLevel};

/// The CORS of one route (one method of a path).
#[derive(Debug, Clone)]
pub(crate) enum RoutePlan {
    /// CORS on: the compiled policy, and whether preflights also go to the route's own
    /// `OPTIONS` handler.
    On {
        policy: Box<CorsPolicy>,
        passthrough: bool,
    },
    /// CORS switched off: no CORS header; preflights refused where another route of the path
    /// has CORS, passed on to the routes where none has. What stays on without CORS
    /// is decided by `checks`, the policy compiled from the route's options (its origins, bypass
    /// paths, protection and WebSocket switches), `None` where nothing stays on: unsafe
    /// cross-origin requests refused where cross-origin protection is on (trusting no origin,
    /// letting the bypass paths through), WebSocket handshakes from an origin the options do
    /// not allow refused unless `check_websocket_origin(false)`.
    Off { checks: Option<Box<CorsPolicy>> },
}

impl RoutePlan {
    /// Compiles `options` for a route with `methods`, or, with `None`, for requests whose
    /// route is unknown (a plain `CorsLayer`, the `404` answer).
    pub(crate) fn compile(
        options: &CorsOptions,
        methods: Option<&[Method]>,
    ) -> Result<Self, CorsConfigError> {
        if !options.is_enabled() {
            let handshakes = methods.is_none_or(|methods| {
                methods
                    .iter()
                    .any(|m| *m == Method::GET || *m == Method::CONNECT)
            });
            return RoutePlan::off(options, handshakes);
        }
        let policy = match methods {
            Some(methods) => CorsPolicy::for_route(options, methods)?,
            None => CorsPolicy::from_options(options)?,
        };
        // Preflight answers are built here, without a body: written with the CORS headers, the
        // length is part of the prebuilt answer, so that axum need not grow the map for it.
        let policy = policy.with_preflight_header(CONTENT_LENGTH, HeaderValue::from_static("0"));
        Ok(RoutePlan::On {
            policy: Box::new(policy),
            passthrough: options.passes_preflight_through(),
        })
    }

    /// The plan of a route whose CORS is switched off by `options`: the checks that stay on,
    /// the WebSocket handshake's only where the route may upgrade (`handshakes`).
    pub(crate) fn off(options: &CorsOptions, handshakes: bool) -> Result<Self, CorsConfigError> {
        let websocket = handshakes && options.checks_websocket_origin();
        if !options.protects_cross_origin() && !websocket {
            return Ok(RoutePlan::Off { checks: None });
        }
        let options = &options.clone().check_websocket_origin(websocket);
        Ok(RoutePlan::Off {
            checks: Some(Box::new(CorsPolicy::from_options(options)?)),
        })
    }

    /// The policy that decides a request's origin: the CORS policy where CORS is on; where it
    /// is off, the checks' only for a WebSocket handshake (`handshake`, asked only then), the
    /// one request whose origin they decide.
    pub(crate) fn origin_policy(&self, handshake: impl FnOnce() -> bool) -> Option<&CorsPolicy> {
        match self {
            RoutePlan::On { policy, .. } => Some(policy),
            RoutePlan::Off {
                checks: Some(checks),
            } if checks.checks_websocket_origin() && handshake() => Some(checks),
            RoutePlan::Off { .. } => None,
        }
    }

    /// The policy, where CORS is on.
    pub(crate) fn policy(&self) -> Option<&CorsPolicy> {
        match self {
            RoutePlan::On { policy, .. } => Some(policy),
            RoutePlan::Off { .. } => None,
        }
    }
}

/// The compiled CORS of one path: the module's plan, and per-method plans where a controller
/// or route has options of its own.
#[derive(Debug)]
pub(crate) struct PathPlan {
    default: RoutePlan,
    by_method: Vec<(Method, RoutePlan)>,
    /// Whether any of its policies decides origins asynchronously.
    asynchronous: bool,
    /// Whether CORS is on for any route of the path.
    has_cors: bool,
    /// The `Vary` of a preflight answer refused because CORS is off for the method asked for,
    /// on a path where it is on for another: the answers to preflights of one URL differ by
    /// the request headers of a preflight, so a cache must keep them apart.
    off_preflight_vary: Option<HeaderValue>,
}

impl PathPlan {
    pub(crate) fn new(default: RoutePlan, by_method: Vec<(Method, RoutePlan)>) -> Self {
        let plans = || std::iter::once(&default).chain(by_method.iter().map(|(_, plan)| plan));
        let asynchronous = plans()
            .filter_map(|plan| match plan {
                RoutePlan::On { policy, .. } => Some(policy),
                RoutePlan::Off { checks } => checks.as_ref(),
            })
            .any(|policy| policy.decides_origins_asynchronously());
        let some_off = plans().any(|plan| matches!(plan, RoutePlan::Off { .. }));
        let has_cors = plans().any(|plan| matches!(plan, RoutePlan::On { .. }));
        let off_preflight_vary = if some_off {
            preflight_vary(plans().filter_map(RoutePlan::policy))
        } else {
            None
        };
        Self {
            default,
            by_method,
            asynchronous,
            has_cors,
            off_preflight_vary,
        }
    }

    /// A path with one plan for every method.
    pub(crate) fn single(plan: RoutePlan) -> Self {
        Self::new(plan, Vec::new())
    }

    /// The plan of the route `method` is for.
    fn route(&self, method: &Method) -> &RoutePlan {
        self.by_method
            .iter()
            .find(|(m, _)| m == method)
            .map_or(&self.default, |(_, plan)| plan)
    }

    /// The plan that answers `request`: for a preflight, that of the route the browser asks to
    /// call; for any other request, that of its own method.
    pub(crate) fn route_for(&self, request: &CorsRequest<'_>) -> &RoutePlan {
        if self.by_method.is_empty() {
            return &self.default;
        }
        if request.kind() != RequestKind::Preflight {
            return self.route(request.method());
        }
        request
            .requested_method()
            .and_then(|m| Method::from_bytes(m.as_bytes()).ok())
            .map_or(&self.default, |m| self.route(&m))
    }

    /// Whether preflights go on to the path's own `OPTIONS` handler.
    pub(crate) fn passes_preflight_through(&self) -> bool {
        matches!(
            self.route(&Method::OPTIONS),
            RoutePlan::On {
                passthrough: true,
                ..
            }
        )
    }

    /// Whether CORS is on for any route of the path.
    pub(crate) fn has_cors(&self) -> bool {
        self.has_cors
    }

    /// Whether the plan does nothing to any request: CORS off for every route, and no
    /// cross-origin protection.
    pub(crate) fn is_inert(&self) -> bool {
        std::iter::once(&self.default)
            .chain(self.by_method.iter().map(|(_, plan)| plan))
            .all(|plan| matches!(plan, RoutePlan::Off { checks: None }))
    }

    /// Whether a request may need an asynchronous origin decision first.
    pub(crate) fn is_asynchronous(&self) -> bool {
        self.asynchronous
    }

    /// See the field.
    pub(crate) fn off_preflight_vary(&self) -> Option<&HeaderValue> {
        self.off_preflight_vary.as_ref()
    }
}

/// The `Vary` names every preflight answer of `policies` carries, together.
fn preflight_vary<'a>(policies: impl Iterator<Item = &'a CorsPolicy>) -> Option<HeaderValue> {
    let mut headers = HeaderMap::new();
    let not_a_preflight = HeaderMap::new();
    let request = CorsRequest::new(&Method::OPTIONS, &not_a_preflight);
    for policy in policies {
        // A refused answer carries the same `Vary` as a granted one.
        let mut answer = HeaderMap::new();
        policy.preflight(&request).write(&mut answer);
        for names in answer.get_all(VARY) {
            cors_axum_core::merge_vary(&mut headers, names);
        }
    }
    headers.remove(VARY)
}

/// The options of the `CorsModule` imports along the way from the root to a module, merged, and
/// the module nearest to it that imported one. Shared by the modules it covers.
#[derive(Debug)]
pub(crate) struct Imported {
    options: CorsOptions,
    from: &'static str,
}

impl Imported {
    /// The imported CORS of `module`, which imports `own` (if any) and inherits `inherited`.
    pub(crate) fn resolve(
        module: &'static str,
        own: Option<CorsImport>,
        inherited: Option<&Arc<Imported>>,
    ) -> Result<Option<Arc<Imported>>, PlanError> {
        let Some(own) = own else {
            return Ok(inherited.cloned());
        };
        let options = match inherited {
            // Importing `CorsModule` switches CORS on again under a module that switched it off.
            Some(inherited) if own.options.is_enabled() => inherited
                .options
                .merge(&CorsOptions::new().enabled(true))
                .merge(&own.options),
            Some(inherited) => inherited.options.merge(&own.options),
            None => own.options,
        };
        let given_in = if own.with_opts {
            format!("`CorsModule::with_opts(..)` imported by `{module}`")
        } else {
            format!("`CorsModule` imported by `{module}`")
        };
        validate(&options, module, &given_in)?;
        Ok(Some(Arc::new(Imported {
            options,
            from: module,
        })))
    }
}

/// What one module's plans are made of, besides the application's options and the routes'
/// own: kept for reloads, which make the plans again from it.
#[derive(Debug)]
pub(crate) struct ModuleRecipe {
    module: &'static str,
    /// How the module spells its providers key, for messages.
    providers_key: &'static str,
    imported: Arc<Imported>,
    /// The module's own options (`providers_per_rou`).
    provided: Option<CorsOptions>,
}

impl ModuleRecipe {
    pub(crate) fn new(
        module: &'static str,
        providers_key: &'static str,
        imported: Arc<Imported>,
        provided: Option<CorsOptions>,
    ) -> Self {
        Self {
            module,
            providers_key,
            imported,
            provided,
        }
    }

    /// Whether the paths of `self` and `other` get the same plans: the same imports, and no
    /// options of their own. Two modules may then share a path.
    pub(crate) fn same_plans_as(&self, other: &ModuleRecipe) -> bool {
        Arc::ptr_eq(&self.imported, &other.imported)
            && self.provided.is_none()
            && other.provided.is_none()
    }
}

/// A route's own options, as the merge needs them.
#[derive(Debug, Clone)]
pub(crate) struct RouteOptions {
    pub(crate) method: Method,
    pub(crate) controller: &'static str,
    pub(crate) handler: &'static str,
    pub(crate) controller_options: Option<CorsOptions>,
    pub(crate) route_options: Option<CorsOptions>,
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
            let plan = RoutePlan::off(&self.options, false)
                .map_err(|source| cors_error(self.recipe.module, self.given_in(), source))?;
            return Ok(PathPlan::single(plan));
        }
        Ok(PathPlan::single(self.compile(&self.options, None, None)?))
    }

    /// Where the module's options were given, for errors.
    fn given_in(&self) -> String {
        format!("the CORS options of `{}`", self.recipe.module)
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
            default = RoutePlan::off(&self.options, false)
                .map_err(|source| cors_error(self.recipe.module, self.given_in(), source))?;
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
        RoutePlan::compile(options, methods).map_err(|source| {
            let module = self.recipe.module;
            match route {
                Some((route, path, given_in)) => PlanError::Invalid {
                    module,
                    route: Some(format!("{} {path}", route.method)),
                    given_in: given_in.to_owned(),
                    source: Box::new(source),
                },
                None => cors_error(module, self.given_in(), source),
            }
        })
    }
}

/// `options` with the values their origin decisions take bound from `values`.
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

/// Checks `options`, as merged up to the level `given_in`, so that an error names the level
/// that made them invalid.
fn validate(options: &CorsOptions, module: &'static str, given_in: &str) -> Result<(), PlanError> {
    if !options.is_enabled() {
        return Ok(());
    }
    CorsPolicy::from_options(options)
        .map(drop)
        .map_err(|source| cors_error(module, given_in.to_owned(), source))
}

fn cors_error(module: &'static str, given_in: String, source: CorsConfigError) -> PlanError {
    PlanError::Invalid {
        module,
        route: None,
        given_in,
        source: Box::new(source),
    }
}

/// Why a module's plans cannot be made.
#[derive(Debug)]
pub(crate) enum PlanError {
    /// Invalid options, and where: the route where they are a controller's or a route's, and
    /// the level that made them invalid.
    Invalid {
        module: &'static str,
        route: Option<String>,
        given_in: String,
        source: Box<CorsConfigError>,
    },
    /// An origin decision takes a value that the module's providers do not have; `source`
    /// says so as the engine does.
    MissingValue {
        module: &'static str,
        providers_key: &'static str,
        given_in: String,
        type_name: &'static str,
        source: Box<CorsConfigError>,
    },
}

impl From<PlanError> for BuildError {
    fn from(error: PlanError) -> Self {
        match error {
            PlanError::Invalid {
                module,
                route,
                given_in,
                source,
            } => BuildError::Cors {
                module,
                route,
                given_in,
                source,
            },
            PlanError::MissingValue {
                module,
                providers_key,
                given_in,
                type_name,
                ..
            } => BuildError::MissingCorsValue {
                module,
                providers_key,
                given_in,
                type_name,
            },
        }
    }
}
