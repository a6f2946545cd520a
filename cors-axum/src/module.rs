//! Modules: what a module declares, and how modules import each other.

use std::any::TypeId;
use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;

use axum::extract::Request;
use axum::response::IntoResponse;
use axum::routing::{MethodRouter, Route};
use tower_layer::Layer;
use tower_service::Service;

use crate::controller::{Controller, ControllerRef};
use crate::cors::module::{CorsImport, CorsModule, CorsModuleWithOpts};
use crate::describe::draft::Describe;
use crate::guard::{self, Guard, GuardDeclaration, NamedGuard};
use crate::needs::Needs;
#[cfg(feature = "openapi")]
use crate::openapi::module::{OpenapiModule, OpenapiModuleWith};
use crate::provider::{IntoProviders, ProviderBuilder};

/// A module: a unit of controllers, providers, guards, layers and imports, for an application
/// whose state is `S`.
///
/// Declared with [`rest_root_module!`](crate::rest_root_module) or
/// [`feature_module!`](crate::feature_module). A module declared without `state` is a module
/// for every state; one declared with `state: AppState` is a module for `AppState` only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a module of this application's state",
    label = "not a module for this state",
    note = "declare it with `rest_root_module!` or `feature_module!`; a module declared with \
            `state: T` is imported by modules declared with `state: T`"
)]
pub trait Module<S: 'static = ()>: Send + Sync + 'static {
    /// What the module declares.
    #[doc(hidden)]
    fn definition(&self) -> ModuleDefinition<S>;
}

/// A layer of a module or of the application, applied to each path's method router.
pub(crate) type PathLayer<S> = Arc<dyn Fn(MethodRouter<S>) -> MethodRouter<S> + Send + Sync>;

/// What a module declares, as its macro writes it.
#[must_use]
pub struct ModuleDefinition<S: 'static> {
    pub(crate) name: &'static str,
    pub(crate) type_id: TypeId,
    /// The module's full type name, whose first segment is its crate.
    pub(crate) type_name: &'static str,
    pub(crate) imports: Vec<Import<S>>,
    pub(crate) controllers: Vec<ControllerRef<S>>,
    pub(crate) providers: ProviderBuilder,
    /// How the declaration spells its providers key, for messages.
    pub(crate) providers_key: &'static str,
    pub(crate) guards: Vec<NamedGuard<S>>,
    /// What the guards declare they take with `Inject<T>` ([`Guard::declare`]).
    pub(crate) guard_needs: Needs,
    /// What the guards say in an OpenAPI document (their security schemes); empty without the
    /// `openapi` feature.
    pub(crate) guard_docs: Vec<Describe>,
    pub(crate) layers: Vec<PathLayer<S>>,
    /// `openapi: ..` of the module; `None` to follow the module that imports it.
    pub(crate) listed_in_openapi: Option<bool>,
}

impl<S: 'static> fmt::Debug for ModuleDefinition<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModuleDefinition")
            .field("name", &self.name)
            .field("imports", &self.imports)
            .field(
                "controllers",
                &self.controllers.iter().map(|c| c.name).collect::<Vec<_>>(),
            )
            .field("providers", &self.providers.len())
            .field("guards", &self.guards.len())
            .field("layers", &self.layers.len())
            .finish()
    }
}

impl<S: Clone + Send + Sync + 'static> ModuleDefinition<S> {
    /// An empty definition of module `M` named `name`.
    pub fn new<M: 'static>(name: &'static str) -> Self {
        Self {
            name,
            type_id: TypeId::of::<M>(),
            type_name: std::any::type_name::<M>(),
            imports: Vec::new(),
            controllers: Vec::new(),
            providers: ProviderBuilder::new(),
            providers_key: "providers_per_rou",
            guards: Vec::new(),
            guard_needs: Needs::default(),
            guard_docs: Vec::new(),
            layers: Vec::new(),
            listed_in_openapi: None,
        }
    }

    /// Imports a module, a module under a prefix, or `CorsModule`.
    pub fn import(mut self, import: impl IntoImport<S>) -> Self {
        self.imports.push(import.into_import());
        self
    }

    /// Adds controller `C`.
    pub fn controller<C: Controller<S>>(self) -> Self {
        self.controller_ref(C::controller_ref())
    }

    /// Adds a controller given by its parts.
    pub fn controller_ref(mut self, controller: ControllerRef<S>) -> Self {
        self.controllers.push(controller);
        self
    }

    /// Adds providers visible to every route of this module.
    pub fn providers(mut self, providers: impl IntoProviders) -> Self {
        self.providers.extend(providers.into_providers());
        self
    }

    /// Names the key the declaration gives its providers with, when it is not
    /// `providers_per_rou`: `providers_per_route`. Messages then speak as the user wrote.
    pub fn providers_key(mut self, key: &'static str) -> Self {
        self.providers_key = key;
        self
    }

    /// Adds guard `G`, run before the handler of every route of this module and of the modules
    /// it imports, with what it declares (`M` is inferred).
    pub fn guard<G: Guard<S, M>, M: 'static>(mut self) -> Self {
        let declaration = GuardDeclaration::of::<G, S, M>();
        self.guards
            .push((guard::check::<G, S, M>, declaration.name));
        self.guard_needs.guard(&declaration);
        #[cfg(feature = "openapi")]
        self.guard_docs.push(describe_guard::<G, S, M>);
        self
    }

    /// Lists the routes of this module and of the modules it imports in OpenAPI documents, or
    /// leaves them out (`openapi: false`); a module that imports it, a controller or a route
    /// may say otherwise for itself.
    pub fn listed_in_openapi(mut self, listed: bool) -> Self {
        self.listed_in_openapi = Some(listed);
        self
    }

    /// Adds `layer` around every route of this module and of the modules it imports, inside
    /// the CORS handling.
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<Route> + Clone + Send + Sync + 'static,
        L::Service: Service<Request> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Response: IntoResponse + 'static,
        <L::Service as Service<Request>>::Error: Into<Infallible> + 'static,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        self.layers.push(path_layer(layer));
        self
    }
}

/// `layer` as a function applied to each path's method router.
pub(crate) fn path_layer<S, L>(layer: L) -> PathLayer<S>
where
    S: Clone + Send + Sync + 'static,
    L: Layer<Route> + Clone + Send + Sync + 'static,
    L::Service: Service<Request> + Clone + Send + Sync + 'static,
    <L::Service as Service<Request>>::Response: IntoResponse + 'static,
    <L::Service as Service<Request>>::Error: Into<Infallible> + 'static,
    <L::Service as Service<Request>>::Future: Send + 'static,
{
    Arc::new(move |router: MethodRouter<S>| router.layer(layer.clone()))
}

/// An entry of `imports: [..]`: a module, optionally mounted under a path prefix.
///
/// ```
/// use cors_axum::prelude::*;
///
/// pub struct UsersController;
///
/// #[controller]
/// impl UsersController {
///     #[route("GET")]
///     async fn list() -> &'static str { "[]" }
/// }
///
/// feature_module! {
///     pub struct UsersModule { controllers: [UsersController] }
/// }
///
/// rest_root_module! {
///     pub struct AppModule { imports: [Import::at("/users", UsersModule)] }
/// }
///
/// let routes = AppModule::routes().unwrap();
/// assert_eq!(routes.iter().next().unwrap().path(), "/users");
/// ```
#[must_use]
pub struct Import<S: 'static = ()> {
    pub(crate) prefix: String,
    pub(crate) kind: ImportKind<S>,
}

pub(crate) enum ImportKind<S: 'static> {
    /// Asked for its definition only while the router is built, so that a module importing
    /// itself is an error rather than an endless recursion.
    Module(Box<dyn Module<S>>, &'static str),
    Cors(Box<CorsImport>),
    #[cfg(feature = "openapi")]
    Openapi(Box<OpenapiModuleWith>),
}

impl<S: 'static> fmt::Debug for Import<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let module: &dyn fmt::Debug = match &self.kind {
            ImportKind::Module(_, name) => name,
            ImportKind::Cors(cors) => cors,
            #[cfg(feature = "openapi")]
            ImportKind::Openapi(openapi) => openapi,
        };
        f.debug_struct("Import")
            .field("prefix", &self.prefix)
            .field("module", module)
            .finish()
    }
}

impl<S: 'static> Import<S> {
    /// Imports `module` with its routes mounted under `prefix` (such as `"/api"`).
    pub fn at<M: Module<S>>(prefix: impl Into<String>, module: M) -> Self {
        Self {
            prefix: prefix.into(),
            kind: ImportKind::Module(Box::new(module), std::any::type_name::<M>()),
        }
    }

    fn cors(cors: impl Into<CorsImport>) -> Self {
        Self {
            prefix: String::new(),
            kind: ImportKind::Cors(Box::new(cors.into())),
        }
    }

    #[cfg(feature = "openapi")]
    fn openapi(openapi: impl Into<OpenapiModuleWith>) -> Self {
        Self {
            prefix: String::new(),
            kind: ImportKind::Openapi(Box::new(openapi.into())),
        }
    }
}

/// Anything that can stand in `imports: [..]`: a module, [`Import::at`],
/// [`CorsModule`](crate::CorsModule), or `OpenapiModule` (feature `openapi`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be imported here",
    label = "not a module of this application's state",
    note = "import modules declared with `rest_root_module!` or `feature_module!`, `Import::at(prefix, module)` \
            or `CorsModule`; a module declared with `state: T` is imported by modules declared with `state: T`"
)]
pub trait IntoImport<S: 'static> {
    /// The import.
    #[doc(hidden)]
    fn into_import(self) -> Import<S>;
}

/// A module declared with a module macro, which can stand in `imports` as it is.
pub trait DeclaredModule {}

// Not recommended, so that a non-module is reported with the message of `IntoImport` rather
// than with a list of everything that can be imported.
#[diagnostic::do_not_recommend]
impl<S: 'static, M: Module<S> + DeclaredModule> IntoImport<S> for M {
    fn into_import(self) -> Import<S> {
        Import::at("", self)
    }
}

#[diagnostic::do_not_recommend]
impl<S: 'static> IntoImport<S> for Import<S> {
    fn into_import(self) -> Import<S> {
        self
    }
}

#[diagnostic::do_not_recommend]
impl<S: 'static> IntoImport<S> for CorsModule {
    fn into_import(self) -> Import<S> {
        Import::cors(self)
    }
}

#[diagnostic::do_not_recommend]
impl<S: 'static> IntoImport<S> for CorsModuleWithOpts {
    fn into_import(self) -> Import<S> {
        Import::cors(self)
    }
}

#[cfg(feature = "openapi")]
#[diagnostic::do_not_recommend]
impl<S: 'static> IntoImport<S> for OpenapiModule {
    fn into_import(self) -> Import<S> {
        Import::openapi(self)
    }
}

#[cfg(feature = "openapi")]
#[diagnostic::do_not_recommend]
impl<S: 'static> IntoImport<S> for OpenapiModuleWith {
    fn into_import(self) -> Import<S> {
        Import::openapi(self)
    }
}

/// Adds the security schemes guard `G` declares to `draft`.
#[cfg(feature = "openapi")]
fn describe_guard<G: Guard<S, M>, S, M>(draft: &mut crate::describe::draft::OperationDraft) {
    draft.guard(&GuardDeclaration::of::<G, S, M>());
}
