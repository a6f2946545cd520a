//! `CorsModule`: generated `OPTIONS` routes and CORS handling for the routes of the module
//! that imports it; `CorsService` for credentialed responses; `CorsLayer` for plain routers.

mod layer;
mod service;

use std::collections::HashMap;
use std::sync::Arc;

use axum::response::IntoResponse;
use cors_axum_core::{CorsOptions, CorsPolicy};
use http::{HeaderValue, Method, StatusCode, header};

pub(crate) use layer::PathCors;
pub use layer::{CorsHandling, CorsLayer, ResponseFuture};
pub use service::{CorsService, CorsServiceRejection};

use crate::error::BuildError;
use crate::module::{Module, ModuleDefinition, ModuleHook, ModuleRoutes, PathRoutes};

/// The CORS module: import it to give every path of the importing module an `OPTIONS` route
/// and CORS handling on all of its routes.
///
/// Imported as is, it allows any origin (`Access-Control-Allow-Origin: *`); with
/// [`with_opts`](Self::with_opts) the options apply to the whole importing module. Options
/// given in the module's `providers_per_rou`, on a controller (`#[controller(cors = ..)]`) or on
/// a route (`#[route("GET", cors = ..)]`) are more specific and win, field by field.
///
/// ```
/// use cors_axum::prelude::*;
/// # pub struct FirstController;
/// # #[controller] impl FirstController { #[route("GET")] async fn get() -> &'static str { "GET" } }
///
/// rest_root_module! {
///     pub struct AppModule {
///         imports: [CorsModule::with_opts(CorsOptions::new().origin("https://example.com"))],
///         controllers: [FirstController],
///     }
/// }
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
}

impl Module for CorsModule {
    fn definition(&self) -> ModuleDefinition {
        CorsModuleWithOpts::default().definition()
    }
}

/// [`CorsModule`] with module-level options, made by [`CorsModule::with_opts`].
#[derive(Debug, Clone, Default)]
pub struct CorsModuleWithOpts {
    options: CorsOptions,
}

impl Module for CorsModuleWithOpts {
    fn definition(&self) -> ModuleDefinition {
        // One name and one module identity for both spellings, so that importing it twice is
        // reported whichever spelling is used.
        ModuleDefinition::new::<CorsModule>("CorsModule").hook_into_importer(CorsHook {
            options: self.options.clone(),
        })
    }
}

/// What `CorsModule` does to the module that imports it.
struct CorsHook {
    options: CorsOptions,
}

impl ModuleHook for CorsHook {
    fn name(&self) -> &'static str {
        "CorsModule"
    }

    fn apply(&self, module: &mut ModuleRoutes) -> Result<(), BuildError> {
        let module_options = match module.module_value::<CorsOptions>() {
            Some(provided) => self.options.merge(provided),
            None => self.options.clone(),
        };
        let module_name = module.module_name();
        // Paths without options of their own share one compiled policy per set of methods.
        let mut shared: HashMap<Vec<Method>, Arc<PathCors>> = HashMap::new();
        for path in module.paths_mut() {
            let methods = allowed_methods(path);
            let generated_allow = (!path.answers(&Method::OPTIONS)).then(|| allow_header(&methods));
            let cors = if has_own_options(path) {
                Arc::new(path_cors(module_name, path, &methods, &module_options)?)
            } else if let Some(cors) = shared.get(&methods) {
                cors.clone()
            } else {
                let cors = Arc::new(path_cors(module_name, path, &methods, &module_options)?);
                shared.insert(methods, cors.clone());
                cors
            };
            if let Some(allow) = generated_allow {
                path.add_route(
                    Method::OPTIONS,
                    "CorsModule",
                    "options",
                    axum::routing::options(move || {
                        let allow = allow.clone();
                        async move { (StatusCode::NO_CONTENT, [(header::ALLOW, allow)]).into_response() }
                    }),
                )?;
            }
            path.layer(CorsLayer::for_path(cors));
        }
        Ok(())
    }
}

/// The methods a path answers once `CorsModule` is imported: its own, and `OPTIONS`.
fn allowed_methods(path: &PathRoutes) -> Vec<Method> {
    let mut methods = path.methods();
    if !methods.contains(&Method::OPTIONS) {
        methods.insert(0, Method::OPTIONS);
    }
    methods
}

/// Whether a route of the path has controller- or route-level CORS options.
fn has_own_options(path: &PathRoutes) -> bool {
    path.routes().iter().any(|route| {
        route.controller_value::<CorsOptions>().is_some()
            || route.route_value::<CorsOptions>().is_some()
    })
}

/// Compiles the policies of one path: the module's, and one per route with options of its own.
fn path_cors(
    module: &'static str,
    path: &PathRoutes,
    methods: &[Method],
    module_options: &CorsOptions,
) -> Result<PathCors, BuildError> {
    let error = |method: Option<&Method>, source| BuildError::Cors {
        module,
        path: path.path().to_owned(),
        method: method.map(ToString::to_string),
        source: Box::new(source),
    };
    let default =
        CorsPolicy::for_route(module_options, methods).map_err(|source| error(None, source))?;

    let mut by_method = Vec::new();
    for route in path.routes() {
        let controller = route.controller_value::<CorsOptions>();
        let own = route.route_value::<CorsOptions>();
        if controller.is_none() && own.is_none() {
            continue;
        }
        let mut options = module_options.clone();
        for more_specific in [controller, own].into_iter().flatten() {
            options = options.merge(more_specific);
        }
        let policy = CorsPolicy::for_route(&options, methods)
            .map_err(|source| error(Some(route.method()), source))?;
        by_method.push((route.method().clone(), policy));
    }
    // `HEAD` is answered by the `GET` route unless the path has a `HEAD` route of its own.
    let has_head = path.routes().iter().any(|r| r.method() == Method::HEAD);
    if let Some((_, get)) = by_method.iter().find(|(m, _)| *m == Method::GET)
        && !has_head
    {
        by_method.push((Method::HEAD, get.clone()));
    }

    Ok(PathCors { default, by_method })
}

/// The `Allow` value of a path: its methods, comma-separated.
fn allow_header(methods: &[Method]) -> HeaderValue {
    let allow = methods
        .iter()
        .map(Method::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    // Method names are tokens, always a valid header value.
    HeaderValue::from_str(&allow).unwrap_or(HeaderValue::from_static("OPTIONS"))
}
