//! [`CorsModule`]: what a module imports to get CORS.

use cors_axum_core::CorsOptions;

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

/// `CorsModule` as a module imports it.
#[derive(Debug, Clone)]
pub(crate) struct CorsImport {
    pub(crate) options: CorsOptions,
    /// Imported with `with_opts`, for errors.
    pub(crate) with_opts: bool,
}

impl From<CorsModule> for CorsImport {
    fn from(_: CorsModule) -> Self {
        CorsImport {
            options: CorsOptions::new(),
            with_opts: false,
        }
    }
}

impl From<CorsModuleWithOpts> for CorsImport {
    fn from(module: CorsModuleWithOpts) -> Self {
        CorsImport {
            options: module.options,
            with_opts: true,
        }
    }
}
