//! Modules: what a module declares, how modules import each other, and the hooks through
//! which an imported module (such as [`CorsModule`](crate::CorsModule)) acts on the routes of
//! the module that imports it.

use std::any::TypeId;
use std::fmt;
use std::sync::Arc;

use axum::routing::MethodRouter;
use http::Method;

use crate::controller::ControllerRef;
use crate::error::BuildError;
use crate::provider::{ProviderBuilder, ProviderLayer};

/// A module: a unit of controllers, providers and imports.
///
/// Declared with [`rest_root_module!`](crate::rest_root_module); implement it by hand for a
/// module that only contributes [hooks](ModuleHook), as [`CorsModule`](crate::CorsModule) does.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a module",
    label = "listed in `imports`, but it is not a module",
    note = "declare it with `rest_root_module!` or `feature_module!`, or implement `cors_axum::Module`"
)]
pub trait Module: Send + Sync + 'static {
    /// What the module declares.
    fn definition(&self) -> ModuleDefinition;
}

/// What a module declares: its name, imports, controllers, providers and the hooks it applies
/// to modules that import it.
#[must_use]
pub struct ModuleDefinition {
    pub(crate) name: &'static str,
    pub(crate) type_id: TypeId,
    pub(crate) imports: Vec<Import>,
    pub(crate) controllers: Vec<ControllerRef>,
    pub(crate) providers: ProviderBuilder,
    pub(crate) importer_hooks: Vec<Arc<dyn ModuleHook>>,
}

impl fmt::Debug for ModuleDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModuleDefinition")
            .field("name", &self.name)
            .field("imports", &self.imports)
            .field(
                "controllers",
                &self.controllers.iter().map(|c| c.name).collect::<Vec<_>>(),
            )
            .field("providers", &self.providers.len())
            .field(
                "importer_hooks",
                &self
                    .importer_hooks
                    .iter()
                    .map(|h| h.name())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl ModuleDefinition {
    /// An empty definition of module `M` named `name`.
    pub fn new<M: Module>(name: &'static str) -> Self {
        Self {
            name,
            type_id: TypeId::of::<M>(),
            imports: Vec::new(),
            controllers: Vec::new(),
            providers: ProviderBuilder::new(),
            importer_hooks: Vec::new(),
        }
    }

    /// Imports another module.
    pub fn import(mut self, import: impl IntoImport) -> Self {
        self.imports.push(import.into_import());
        self
    }

    /// Adds controller `C`.
    pub fn controller<C: crate::Controller>(self) -> Self {
        self.controller_ref(ControllerRef::of::<C>())
    }

    #[doc(hidden)]
    pub fn controller_ref(mut self, controller: ControllerRef) -> Self {
        self.controllers.push(controller);
        self
    }

    /// Adds providers visible to every route of this module.
    pub fn providers(mut self, providers: impl crate::provider::IntoProviders) -> Self {
        self.providers.extend(providers.into_providers());
        self
    }

    /// Adds a hook that acts on the routes of every module that imports this one.
    pub fn hook_into_importer(mut self, hook: impl ModuleHook) -> Self {
        self.importer_hooks.push(Arc::new(hook));
        self
    }

    /// The module's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// An entry of `imports: [..]`: a module, optionally mounted under a path prefix.
///
/// ```
/// use cors_axum::prelude::*;
/// # pub struct UsersController;
/// # #[controller] impl UsersController { #[route("GET")] async fn list() -> &'static str { "[]" } }
/// feature_module! {
///     pub struct UsersModule { controllers: [UsersController] }
/// }
/// rest_root_module! {
///     pub struct AppModule { imports: [Import::at("/users", UsersModule)] }
/// }
/// let routes = AppModule::routes().unwrap();
/// assert_eq!(routes.iter().next().unwrap().path(), "/users");
/// ```
#[must_use]
pub struct Import {
    pub(crate) prefix: String,
    /// Asked for its definition only while the router is built, so that a module importing
    /// itself is an error rather than an endless recursion.
    pub(crate) module: Box<dyn Module>,
    type_name: &'static str,
}

impl fmt::Debug for Import {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Import")
            .field("prefix", &self.prefix)
            .field("module", &self.type_name)
            .finish()
    }
}

impl Import {
    /// Imports `module` with its routes mounted under `prefix` (such as `"/api"`).
    pub fn at<M: Module>(prefix: impl Into<String>, module: M) -> Self {
        Self {
            prefix: prefix.into(),
            module: Box::new(module),
            type_name: std::any::type_name::<M>(),
        }
    }
}

/// Anything that can stand in `imports: [..]`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be imported",
    label = "not a module",
    note = "declare it with `rest_root_module!` or `feature_module!`, or use `Import::at(prefix, module)`"
)]
pub trait IntoImport {
    /// The import.
    fn into_import(self) -> Import;
}

// Not recommended, so that a non-module is reported as "cannot be imported" rather than with
// a list of every module in scope.
#[diagnostic::do_not_recommend]
impl<M: Module> IntoImport for M {
    fn into_import(self) -> Import {
        Import::at("", self)
    }
}

impl IntoImport for Import {
    fn into_import(self) -> Import {
        self
    }
}

/// Acts on the routes of the module that imports the module which carries the hook.
///
/// This is how [`CorsModule`](crate::CorsModule) adds `OPTIONS` routes and CORS handling:
/// its definition carries a hook, and every module importing it runs that hook over its own
/// routes (not those of modules it imports) while the router is built.
pub trait ModuleHook: Send + Sync + 'static {
    /// A name for route tables and errors, such as `"CorsModule"`.
    fn name(&self) -> &'static str;

    /// Adds routes and layers to the importing module's routes.
    fn apply(&self, module: &mut ModuleRoutes) -> Result<(), BuildError>;
}

/// The routes of one module, grouped by path, while the router is built.
#[derive(Debug)]
pub struct ModuleRoutes {
    pub(crate) module: &'static str,
    pub(crate) providers: ProviderBuilder,
    pub(crate) paths: Vec<PathRoutes>,
}

impl ModuleRoutes {
    /// The module's name.
    pub fn module_name(&self) -> &'static str {
        self.module
    }

    /// The module's own provided value of type `T` (`providers_per_rou`).
    pub fn module_value<T: 'static>(&self) -> Option<&T> {
        self.providers.get::<T>()
    }

    /// The module's paths, in registration order.
    pub fn paths(&self) -> &[PathRoutes] {
        &self.paths
    }

    /// The module's paths, to add routes and layers.
    pub fn paths_mut(&mut self) -> &mut [PathRoutes] {
        &mut self.paths
    }
}

/// All routes of one module on one path.
pub struct PathRoutes {
    pub(crate) path: Arc<str>,
    pub(crate) routes: Vec<RouteEntry>,
    /// How to build the path's method router, in order. Kept as steps until the path is
    /// mounted, so that a large module does not hold every built method router at once.
    pub(crate) steps: Vec<Step>,
}

/// One step of building a path's method router.
pub(crate) enum Step {
    /// A registered route, with the layer giving it its providers, if it has any.
    Registered(fn() -> MethodRouter, Option<ProviderLayer>),
    /// A route added by a hook.
    Added(Box<MethodRouter>),
    /// A layer added by a hook, around everything before it.
    Layer(Box<dyn FnOnce(MethodRouter) -> MethodRouter + Send + Sync>),
}

impl PathRoutes {
    /// Builds the path's method router.
    pub(crate) fn into_method_router(self) -> (Arc<str>, MethodRouter) {
        let mut built: Option<MethodRouter> = None;
        for step in self.steps {
            let route = match step {
                Step::Registered(route, None) => route(),
                Step::Registered(route, Some(providers)) => route().layer(providers),
                Step::Added(route) => *route,
                Step::Layer(layer) => {
                    built = Some(layer(built.unwrap_or_default()));
                    continue;
                }
            };
            built = Some(match built {
                Some(earlier) => earlier.merge(route),
                None => route,
            });
        }
        (self.path, built.unwrap_or_default())
    }
}

impl fmt::Debug for PathRoutes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PathRoutes")
            .field("path", &self.path)
            .field("routes", &self.routes)
            .finish_non_exhaustive()
    }
}

impl PathRoutes {
    /// The full path, in axum's syntax.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The routes on this path.
    pub fn routes(&self) -> &[RouteEntry] {
        &self.routes
    }

    /// Whether a route on this path answers `method` (`HEAD` is answered by `GET`).
    pub fn answers(&self, method: &Method) -> bool {
        self.routes
            .iter()
            .any(|r| r.method == *method || (*method == Method::HEAD && r.method == Method::GET))
    }

    /// Every method this path answers, `HEAD` included where `GET` exists, in a stable order.
    pub fn methods(&self) -> Vec<Method> {
        crate::controller::METHOD_ORDER
            .iter()
            .filter_map(|name| Method::from_bytes(name.as_bytes()).ok())
            .filter(|method| self.answers(method))
            .collect()
    }

    /// Adds a route made by a hook, such as a generated `OPTIONS` route.
    ///
    /// Fails when the path already has a route for `method`.
    pub fn add_route(
        &mut self,
        method: Method,
        source: &'static str,
        handler: &'static str,
        method_router: MethodRouter,
    ) -> Result<(), BuildError> {
        if let Some(existing) = self.routes.iter().find(|r| r.method == method) {
            return Err(BuildError::DuplicateRoute {
                method: method.to_string(),
                path: self.path.to_string(),
                first: existing.describe(),
                second: format!("{source}::{handler}"),
            });
        }
        self.routes.push(RouteEntry {
            method,
            controller: source,
            handler,
            controller_providers: None,
            route_providers: None,
        });
        self.steps.push(Step::Added(Box::new(method_router)));
        Ok(())
    }

    /// Wraps every route of this path, and its `405` fallback, in `layer`.
    pub fn layer<L>(&mut self, layer: L)
    where
        L: tower_layer::Layer<axum::routing::Route> + Clone + Send + Sync + 'static,
        L::Service: tower_service::Service<axum::extract::Request, Error = std::convert::Infallible>
            + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower_service::Service<axum::extract::Request>>::Response:
            axum::response::IntoResponse + 'static,
        <L::Service as tower_service::Service<axum::extract::Request>>::Future: Send + 'static,
    {
        self.steps
            .push(Step::Layer(Box::new(move |router: MethodRouter| {
                router.layer(layer)
            })));
    }
}

/// One route of a path, as the router build sees it.
#[derive(Debug)]
pub struct RouteEntry {
    pub(crate) method: Method,
    pub(crate) controller: &'static str,
    pub(crate) handler: &'static str,
    pub(crate) controller_providers: Option<Arc<ProviderBuilder>>,
    pub(crate) route_providers: Option<Arc<ProviderBuilder>>,
}

impl RouteEntry {
    /// The route's method.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The controller (or hook) that declared it.
    pub fn controller(&self) -> &'static str {
        self.controller
    }

    /// The handler's name.
    pub fn handler(&self) -> &'static str {
        self.handler
    }

    /// The value of type `T` provided at controller level.
    pub fn controller_value<T: 'static>(&self) -> Option<&T> {
        self.controller_providers
            .as_deref()
            .and_then(ProviderBuilder::get)
    }

    /// The value of type `T` provided at route level.
    pub fn route_value<T: 'static>(&self) -> Option<&T> {
        self.route_providers
            .as_deref()
            .and_then(ProviderBuilder::get)
    }

    pub(crate) fn describe(&self) -> String {
        format!("{}::{}", self.controller, self.handler)
    }
}
