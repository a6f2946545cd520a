//! [`OpenapiModule`]: what a module imports to serve the OpenAPI document of its routes.

use std::fmt;
use std::sync::Arc;

use utoipa::Modify;
use utoipa::openapi::{Info, OpenApi};

/// The path of the document under the importing module's prefix, unless given.
pub(crate) const DEFAULT_PATH: &str = "/openapi.json";

/// The OpenAPI module: import it to serve `GET /openapi.json`, under the importing module's
/// prefix, an OpenAPI 3.1 document of every route of the importing module and of the modules
/// it imports.
///
/// The document lists each route's path with its parameters, its method, an operation id
/// (`Controller_handler`), its controller as tag, the summary and description of the handler's
/// doc comment, the request body, parameters and response its extractor and result types
/// describe, the details of its `#[utoipa::path(..)]`, and the security schemes of its guards
/// ([`GuardDeclaration::security`](crate::app::GuardDeclaration::security)). The `OPTIONS` routes that
/// [`CorsModule`](crate::CorsModule) generates are left out; an `OPTIONS` handler of a
/// controller is listed.
///
/// Every other route is listed by default, with its handler's doc comment: internal routes,
/// routes of modules whose CORS is off and routes behind guards alike. `openapi: false` in a
/// module's declaration leaves out its routes and those of the modules it imports,
/// `#[controller(openapi = false)]` a controller's, `#[route(.., openapi = false)]` one route's;
/// the most specific says, so `openapi = true` (`openapi: true` on a module) lists again what
/// its controller or module leaves out. A route left out is still served.
///
/// The document is a route of the importing module like the others (controller
/// `OpenapiModule`, handler `document` in the route table): under its CORS, so a documentation
/// site on an allowed origin can fetch it, and behind its guards and layers. It is made on its
/// first request, once, and served from memory after that.
///
/// ```
/// use cors_axum::openapi::OpenapiModule;
/// use cors_axum::prelude::*;
///
/// pub struct ItemsController;
///
/// #[controller("items")]
/// impl ItemsController {
///     /// Lists the items.
///     #[route("GET")]
///     async fn list() -> &'static str { "[]" }
/// }
///
/// rest_root_module! {
///     pub struct AppModule { imports: [CorsModule, OpenapiModule], controllers: [ItemsController] }
/// }
///
/// let routes = AppModule::routes().unwrap();
/// let document = routes
///     .iter()
///     .find(|r| r.path() == "/openapi.json" && !r.is_generated())
///     .unwrap();
/// assert_eq!((document.controller(), document.handler()), ("OpenapiModule", "document"));
/// assert_eq!(document.cors(), Some("AppModule"));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenapiModule;

impl OpenapiModule {
    /// The module with the document's `info` (its title and version, such as
    /// `Info::new("Items API", "1.2.0")`), for `imports: [..]`. Without it, the title is the
    /// importing module's name and the version `0.0.0`.
    pub fn with(info: Info) -> OpenapiModuleWith {
        OpenapiModuleWith {
            info: Some(info),
            ..OpenapiModuleWith::default()
        }
    }
}

/// [`OpenapiModule`] with its settings, made by [`OpenapiModule::with`].
#[derive(Clone)]
#[must_use]
pub struct OpenapiModuleWith {
    pub(crate) info: Option<Info>,
    pub(crate) path: String,
    pub(crate) page: Option<String>,
    pub(crate) modifiers: Vec<Arc<dyn Modify + Send + Sync>>,
}

impl Default for OpenapiModuleWith {
    fn default() -> Self {
        Self {
            info: None,
            path: DEFAULT_PATH.to_owned(),
            page: None,
            modifiers: Vec::new(),
        }
    }
}

impl fmt::Debug for OpenapiModuleWith {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenapiModule")
            .field("title", &self.info.as_ref().map(|info| &info.title))
            .field("path", &self.path)
            .field("page", &self.page)
            .field("modifiers", &self.modifiers.len())
            .finish()
    }
}

impl OpenapiModuleWith {
    /// Serves the document at `path` under the importing module's prefix, instead of
    /// `/openapi.json`.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Also serves a [RapiDoc](https://rapidocweb.com) page that shows the document at `path`
    /// under the importing module's prefix, such as `"/docs"`: a route of the module like the
    /// document. The page loads RapiDoc's script from its CDN (unpkg.com) in the browser.
    #[cfg(feature = "openapi-rapidoc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "openapi-rapidoc")))]
    pub fn page(mut self, path: impl Into<String>) -> Self {
        self.page = Some(path.into());
        self
    }

    /// Changes the document once it is made, with utoipa's [`Modify`]: servers, extra
    /// components, security requirements for the whole API. Applied in the order given.
    pub fn modify(mut self, modifier: impl Modify + Send + Sync + 'static) -> Self {
        self.modifiers.push(Arc::new(modifier));
        self
    }

    /// Applies the modifiers to `document`.
    pub(crate) fn apply(&self, document: &mut OpenApi) {
        for modifier in &self.modifiers {
            modifier.modify(document);
        }
    }
}

impl From<OpenapiModule> for OpenapiModuleWith {
    fn from(_: OpenapiModule) -> Self {
        Self::default()
    }
}
