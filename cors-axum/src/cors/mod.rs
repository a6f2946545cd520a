//! CORS: [`CorsModule`] (generated `OPTIONS` routes and CORS handling for the routes of the
//! module that imports it and of the modules it imports), [`CorsService`] for credentialed
//! responses, [`CorsLayer`] for plain routers, and the types they are made of.

mod layer;
pub(crate) mod reload;
mod service;

use std::collections::HashMap;
use std::sync::Arc;

use axum::routing::MethodRouter;
use cors_axum_core::{CorsConfigError, CorsOptions, CorsPolicy};
use http::{HeaderValue, Method};

pub use layer::{CorsHandling, CorsLayer, ResponseFuture};
pub(crate) use layer::{OptionsEndpoint, PathCors, PathSource, RoutePolicy, StatusAnswer};
pub use reload::CorsReload;
pub use service::{CorsService, CorsServiceRejection};

/// What an [asynchronous origin decision](crate::AllowOrigin::async_predicate) is given, and
/// the error it may fail with.
pub use cors_axum_core::{BoxError, OriginQuery};

use crate::error::BuildError;
use crate::module::{Import, IntoImport};
use crate::table::{CorsLevel, RouteCors};

/// The CORS module: import it to give every path of the importing module, and of the modules
/// it imports, an `OPTIONS` route and CORS handling on all of its routes.
///
/// Imported as is, it allows any origin (`Access-Control-Allow-Origin: *`); with
/// [`with_opts`](Self::with_opts) the options apply to the whole importing module. Imported
/// into the root module, it covers the whole application, the `404` answer for unknown paths
/// included. A module that imports `CorsModule` itself merges its options over those it
/// inherits; [`CorsModule::disabled()`] switches CORS off for a module and its imports, and
/// `cors = false` off for one controller or route. Options given in the module's
/// `providers_per_rou`, on a controller (`#[controller(cors = ..)]`) or on a route
/// (`#[route("GET", cors = ..)]`) are more specific and win, field by field.
///
/// ```
/// use cors_axum::prelude::*;
///
/// pub struct FirstController;
///
/// #[controller]
/// impl FirstController {
///     #[route("GET")]
///     async fn get() -> &'static str { "GET" }
/// }
///
/// rest_root_module! {
///     pub struct AppModule {
///         imports: [CorsModule::with_opts(CorsOptions::new().origin("https://example.com"))],
///         controllers: [FirstController],
///     }
/// }
///
/// let routes = AppModule::routes().unwrap();
/// let methods: Vec<_> = routes.iter().map(|r| r.method().as_str()).collect();
/// assert_eq!(methods, ["OPTIONS", "GET"]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct CorsModule;

impl CorsModule {
    /// The module with module-level `options`, for `imports: [..]`.
    pub fn with_opts(options: CorsOptions) -> CorsModuleWithOpts {
        CorsModuleWithOpts { options }
    }

    /// CORS switched off for the importing module and the modules it imports (unless they
    /// import `CorsModule` themselves), whatever the modules importing it configure.
    pub fn disabled() -> CorsModuleWithOpts {
        Self::with_opts(CorsOptions::disabled())
    }
}

/// [`CorsModule`] with module-level options, made by [`CorsModule::with_opts`].
#[derive(Debug, Clone, Default)]
pub struct CorsModuleWithOpts {
    options: CorsOptions,
}

// Not recommended, so that a non-module is reported with the message of `IntoImport` rather
// than with a list of everything that can be imported.
#[diagnostic::do_not_recommend]
impl<S: 'static> IntoImport<S> for CorsModule {
    fn into_import(self) -> Import<S> {
        Import::cors(CorsImport {
            options: CorsOptions::new(),
            with_opts: false,
        })
    }
}

#[diagnostic::do_not_recommend]
impl<S: 'static> IntoImport<S> for CorsModuleWithOpts {
    fn into_import(self) -> Import<S> {
        Import::cors(CorsImport {
            options: self.options,
            with_opts: true,
        })
    }
}

/// `CorsModule` as a module imports it.
#[derive(Debug, Clone)]
pub(crate) struct CorsImport {
    options: CorsOptions,
    with_opts: bool,
}

/// The CORS that covers a module: the options of the `CorsModule` imports along the way from
/// the root, merged, and the module nearest to it that imported one.
#[derive(Debug, Clone)]
pub(crate) struct ModuleCors {
    options: CorsOptions,
    from: &'static str,
}

impl ModuleCors {
    /// The CORS of module `module`, which imports `own` (if any) and inherits `inherited`.
    pub(crate) fn resolve(
        module: &'static str,
        own: Option<CorsImport>,
        inherited: Option<&ModuleCors>,
    ) -> Result<Option<ModuleCors>, BuildError> {
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
        if !options.is_enabled() {
            return Ok(Some(ModuleCors {
                options,
                from: module,
            }));
        }
        let given_in = if own.with_opts {
            format!("`CorsModule::with_opts(..)` imported by `{module}`")
        } else {
            format!("`CorsModule` imported by `{module}`")
        };
        // Only to validate: compiled without storing its values for the life of the process.
        CorsPolicy::from_options_reloadable(&options)
            .map_err(|e| cors_error(module, None, given_in, e))?;
        Ok(Some(ModuleCors {
            options,
            from: module,
        }))
    }

    /// Whether CORS is on (not switched off with `CorsModule::disabled()`).
    pub(crate) fn is_enabled(&self) -> bool {
        self.options.is_enabled()
    }

    /// The CORS of paths that match no route (the `404` answer), with the options the
    /// application provides: the methods a preflight asks for are allowed, since no route says
    /// otherwise. `reloadable` compiles it to be replaced by a reload.
    pub(crate) fn fallback_cors(
        &self,
        application: Option<&CorsOptions>,
        reloadable: bool,
    ) -> Result<PathCors, BuildError> {
        let options = match application {
            Some(given) => self.options.merge(given),
            None => self.options.clone(),
        };
        let compiled = if reloadable {
            CorsPolicy::from_options_reloadable(&options)
        } else {
            CorsPolicy::from_options(&options)
        };
        let policy = compiled.map_err(|e| {
            cors_error(
                self.from,
                None,
                format!("`CorsModule` imported by `{}`", self.from),
                e,
            )
        })?;
        let default = RoutePolicy::Enabled {
            policy: Box::new(layer::served(policy)),
            passthrough: false,
        };
        Ok(PathCors::new(default, Vec::new()))
    }
}

/// `CorsOptions` provided where a module's CORS applies, least specific first.
#[derive(Clone, Copy)]
pub(crate) struct Provided<'a> {
    /// By the application (`.provide(..)` of its builder).
    pub(crate) application: Option<&'a CorsOptions>,
    /// By the module (`providers_per_rou`).
    pub(crate) module: Option<&'a CorsOptions>,
}

/// One route of a path, as CORS needs it.
pub(crate) struct CorsRoute<'a> {
    pub(crate) method: &'a Method,
    pub(crate) controller: &'static str,
    pub(crate) handler: &'static str,
    pub(crate) controller_options: Option<&'a CorsOptions>,
    pub(crate) route_options: Option<&'a CorsOptions>,
}

/// Applies a module's CORS to its paths, one after the other.
pub(crate) struct ModuleCorsPaths {
    module: &'static str,
    from: &'static str,
    options: CorsOptions,
    /// Paths without options of their own share one compiled policy per set of methods.
    shared: HashMap<Vec<Method>, Arc<PathCors>>,
    /// When the application's options can be reloaded: what it takes to compile the paths
    /// again, and where to put the result.
    reload: Option<reload::ModuleReload>,
}

impl ModuleCorsPaths {
    /// The CORS of `module`'s paths: `cors` merged with the module's own `providers_per_rou`.
    pub(crate) fn new(
        module: &'static str,
        cors: &ModuleCors,
        provided: Provided<'_>,
    ) -> Result<Self, BuildError> {
        let mut options = cors.options.clone();
        let levels = [
            (
                provided.application,
                "`.provide(..)` of the application builder".to_owned(),
            ),
            (
                provided.module,
                format!("`providers_per_rou` of `{module}`"),
            ),
        ];
        for (given, given_in) in levels {
            let Some(given) = given else { continue };
            options = options.merge(given);
            if options.is_enabled() {
                // Only to validate: compiled without storing its values for the life of the
                // process, which a reload would otherwise add to each time.
                CorsPolicy::from_options_reloadable(&options)
                    .map_err(|e| cors_error(module, None, given_in, e))?;
            }
        }
        Ok(Self {
            module,
            from: cors.from,
            options,
            shared: HashMap::new(),
            reload: None,
        })
    }

    /// Makes the module's paths reloadable by `reload`, with the options the module itself
    /// provides (`module`), which a reload of the application's options leaves as they are.
    pub(crate) fn reloadable(mut self, cors: &ModuleCors, module: Option<&CorsOptions>) -> Self {
        self.reload = Some(reload::ModuleReload::new(
            self.module,
            cors.clone(),
            module.cloned(),
        ));
        self
    }

    /// What a reload of this module's paths needs, once they are all compiled.
    pub(crate) fn into_reload_target(self) -> Option<reload::ModuleReload> {
        self.reload
    }

    /// Compiles the CORS of one path with `routes`; returns it with the `OPTIONS` route to add
    /// when the path has none, and how each route is covered (in the order of `routes`).
    /// `service` when a handler of the path takes `CorsService`.
    pub(crate) fn path<S: Clone + Send + Sync + 'static>(
        &mut self,
        path: &Arc<str>,
        routes: &[CorsRoute<'_>],
        service: bool,
    ) -> Result<CompiledPath<S>, BuildError> {
        let mut methods: Vec<Method> = crate::controller::METHOD_ORDER
            .iter()
            .filter(|m| {
                routes
                    .iter()
                    .any(|r| crate::controller::answers(r.method, m))
            })
            .cloned()
            .collect();
        let generate_options = !methods.contains(&Method::OPTIONS);
        if generate_options {
            methods.insert(0, Method::OPTIONS);
        }
        let (cors, coverage) = self.path_cors(path, &methods, routes)?;
        let source = match &mut self.reload {
            None => PathSource::Static(cors),
            Some(reload) => PathSource::Reloadable(reload.add_path(path, &methods, routes, cors)),
        };
        let options_route = generate_options.then(|| {
            let endpoint =
                OptionsEndpoint::new(source.clone(), allow_header(&methods), path.clone());
            axum::routing::on_service(axum::routing::MethodFilter::OPTIONS, endpoint)
        });
        Ok(CompiledPath {
            layer: CorsLayer::for_path(source, Some(path.clone()), service),
            options_route,
            coverage,
        })
    }

    /// The compiled CORS of one path with `methods` and `routes`, and how each route is covered
    /// (in the order of `routes`).
    pub(crate) fn path_cors(
        &mut self,
        path: &str,
        methods: &[Method],
        routes: &[CorsRoute<'_>],
    ) -> Result<(Arc<PathCors>, Vec<RouteCors>), BuildError> {
        let own_options = routes
            .iter()
            .any(|r| r.controller_options.is_some() || r.route_options.is_some());
        let mut coverage = Vec::with_capacity(routes.len());
        if own_options {
            let cors = self.compile_routes(path, methods, routes, &mut coverage)?;
            return Ok((Arc::new(cors), coverage));
        }
        let level = self.module_coverage();
        coverage.extend(routes.iter().map(|_| level.clone()));
        if let Some(cors) = self.shared.get(methods) {
            return Ok((cors.clone(), coverage));
        }
        let cors = Arc::new(PathCors::new(
            self.policy(&self.options, methods, path, None)?,
            Vec::new(),
        ));
        self.shared.insert(methods.to_vec(), cors.clone());
        Ok((cors, coverage))
    }

    /// Whether CORS is on for the module's routes (unless a controller or route says otherwise).
    pub(crate) fn is_enabled(&self) -> bool {
        self.options.is_enabled()
    }

    pub(crate) fn module_coverage(&self) -> RouteCors {
        if self.options.is_enabled() {
            RouteCors::From {
                module: self.from,
                level: CorsLevel::Module,
            }
        } else {
            RouteCors::Off(CorsLevel::Module)
        }
    }

    /// The policies of a path where some routes have options of their own.
    fn compile_routes(
        &self,
        path: &str,
        methods: &[Method],
        routes: &[CorsRoute<'_>],
        coverage: &mut Vec<RouteCors>,
    ) -> Result<PathCors, BuildError> {
        let default = self.policy(&self.options, methods, path, None)?;
        let mut by_method = Vec::new();
        for route in routes {
            if route.controller_options.is_none() && route.route_options.is_none() {
                coverage.push(self.module_coverage());
                continue;
            }
            let mut options = self.options.clone();
            let mut level = CorsLevel::Module;
            if let Some(controller) = route.controller_options {
                options = options.merge(controller);
                level = CorsLevel::Controller;
            }
            if let Some(own) = route.route_options {
                options = options.merge(own);
                level = CorsLevel::Route;
            }
            let given_in = match level {
                CorsLevel::Route => {
                    format!(
                        "`#[route(..)]` of `{}::{}`",
                        route.controller, route.handler
                    )
                }
                _ => format!("`#[controller(..)]` of `{}`", route.controller),
            };
            let policy = self.policy(&options, methods, path, Some((route, given_in)))?;
            coverage.push(match &policy {
                RoutePolicy::Disabled => RouteCors::Off(level),
                RoutePolicy::Enabled { .. } => RouteCors::From {
                    module: self.from,
                    level,
                },
            });
            by_method.push((route.method.clone(), policy));
        }
        // `HEAD` is answered by the `GET` route unless the path has a `HEAD` route of its own.
        let has_head = routes.iter().any(|r| *r.method == Method::HEAD);
        if !has_head && let Some((_, get)) = by_method.iter().find(|(m, _)| *m == Method::GET) {
            by_method.push((Method::HEAD, get.clone()));
        }
        Ok(PathCors::new(default, by_method))
    }

    fn policy(
        &self,
        options: &CorsOptions,
        methods: &[Method],
        path: &str,
        route: Option<(&CorsRoute<'_>, String)>,
    ) -> Result<RoutePolicy, BuildError> {
        if !options.is_enabled() {
            return Ok(RoutePolicy::Disabled);
        }
        let compiled = if self.reload.is_some() {
            CorsPolicy::for_route_reloadable(options, methods)
        } else {
            CorsPolicy::for_route(options, methods)
        };
        match compiled {
            Ok(policy) => Ok(RoutePolicy::Enabled {
                policy: Box::new(layer::served(policy)),
                passthrough: options.passes_preflight_through(),
            }),
            Err(e) => Err(match route {
                Some((route, given_in)) => cors_error(
                    self.module,
                    Some(format!("{} {path}", route.method)),
                    given_in,
                    e,
                ),
                None => cors_error(
                    self.module,
                    None,
                    format!("the CORS options of `{}`", self.module),
                    e,
                ),
            }),
        }
    }
}

/// The CORS of one path, ready to be put on its method router.
pub(crate) struct CompiledPath<S> {
    pub(crate) layer: CorsLayer,
    pub(crate) options_route: Option<MethodRouter<S>>,
    pub(crate) coverage: Vec<RouteCors>,
}

fn cors_error(
    module: &'static str,
    route: Option<String>,
    given_in: String,
    source: CorsConfigError,
) -> BuildError {
    BuildError::Cors {
        module,
        route,
        given_in,
        source: Box::new(source),
    }
}

/// The `Allow` value of a path: its methods, comma-separated.
fn allow_header(methods: &[Method]) -> HeaderValue {
    let allow = methods
        .iter()
        .map(Method::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    HeaderValue::from_str(&allow).expect("method names are tokens, a valid header value")
}
