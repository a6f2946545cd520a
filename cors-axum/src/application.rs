//! [`Application`] and [`ApplicationBuilder`]: an application built from its root module.

use std::convert::Infallible;
use std::sync::OnceLock;

use axum::Router;
use axum::extract::Request;
use axum::response::IntoResponse;
use axum::routing::Route;
use tower_layer::Layer;
use tower_service::Service;

use crate::cors::reload::CorsReload;
use crate::error::BuildError;
use crate::guard::{Guard, NamedGuard};
use crate::module::{Module, PathLayer, path_layer};
use crate::provider::ProviderBuilder;
use crate::router::{self, BuildInput};
use crate::table::RouteTable;

/// A built application: the axum [`Router`] and its [`RouteTable`].
pub struct Application<S = ()> {
    router: Router<S>,
    /// In mounting order; sorted when first read, so that `router()` alone never sorts.
    unsorted: RouteTable,
    routes: OnceLock<RouteTable>,
}

impl<S> std::fmt::Debug for Application<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("routes", &self.unsorted.len())
            .finish_non_exhaustive()
    }
}

impl<S: Clone + Send + Sync + 'static> Application<S> {
    /// Builds the application of `root`, with nothing provided at run time.
    ///
    /// Every conflict that would make axum panic (the same method and path twice, overlapping
    /// path parameters, invalid paths), every invalid CORS configuration and every missing
    /// provider is returned as a [`BuildError`] instead.
    pub fn build<M: Module<S>>(root: M) -> Result<Self, BuildError> {
        ApplicationBuilder::new(root).build()
    }

    /// The router, to serve or to combine with other axum routers and layers.
    ///
    /// Layers added to it with `Router::layer` run before the CORS handling: an authentication
    /// layer added there rejects preflights (which browsers send without credentials) and its
    /// rejections carry no CORS headers. Add such layers with `layers: [..]` in a module, on a
    /// controller or route, or with [`ApplicationBuilder::layer`], where they run inside it.
    pub fn into_router(self) -> Router<S> {
        self.router
    }

    /// The route table.
    pub fn routes(&self) -> &RouteTable {
        self.routes
            .get_or_init(|| self.unsorted.clone().into_sorted())
    }

    /// The router and the route table.
    pub fn into_parts(self) -> (Router<S>, RouteTable) {
        let routes = match self.routes.into_inner() {
            Some(sorted) => sorted,
            None => self.unsorted.into_sorted(),
        };
        (self.router, routes)
    }
}

/// Builds an [`Application`] from its root module, with values, guards and layers known only
/// at run time; made by `AppModule::builder()`.
///
/// ```
/// use axum::middleware::{self, Next};
/// use axum::extract::Request;
/// use cors_axum::prelude::*;
///
/// #[derive(Clone)]
/// pub struct Settings { pub greeting: String }
///
/// pub struct HelloController;
///
/// #[controller]
/// impl HelloController {
///     #[route("GET")]
///     async fn hello(Inject(settings): Inject<Settings>) -> String {
///         settings.greeting
///     }
/// }
///
/// rest_root_module! {
///     pub struct AppModule {
///         imports: [CorsModule],
///         controllers: [HelloController],
///     }
/// }
///
/// async fn log(request: Request, next: Next) -> Response {
///     next.run(request).await
/// }
///
/// let greeting = std::env::var("GREETING").unwrap_or_else(|_| "hello".to_owned());
/// let router: axum::Router = AppModule::builder()
///     .provide(Settings { greeting })
///     .layer(middleware::from_fn(log))
///     .router()
///     .unwrap();
/// # drop(router);
/// ```
#[must_use]
pub struct ApplicationBuilder<S: 'static = ()> {
    root: Box<dyn Module<S>>,
    providers: ProviderBuilder,
    guards: Vec<NamedGuard<S>>,
    layers: Vec<PathLayer<S>>,
    reload: Option<CorsReload>,
}

impl<S: 'static> std::fmt::Debug for ApplicationBuilder<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApplicationBuilder")
            .field("providers", &self.providers)
            .field("guards", &self.guards.len())
            .field("layers", &self.layers.len())
            .finish_non_exhaustive()
    }
}

impl<S: Clone + Send + Sync + 'static> ApplicationBuilder<S> {
    /// The builder of the application whose root module is `root`.
    pub fn new(root: impl Module<S>) -> Self {
        Self {
            root: Box::new(root),
            providers: ProviderBuilder::new(),
            guards: Vec::new(),
            layers: Vec::new(),
            reload: None,
        }
    }

    /// Lets `reload` replace, while the application runs, the [`CorsOptions`] provided to it
    /// with [`provide`](Self::provide): every path that CORS covers is then compiled again with
    /// the new options, validated first, and swapped in at once.
    ///
    /// [`CorsOptions`]: crate::CorsOptions
    pub fn cors_reload(mut self, reload: &CorsReload) -> Self {
        self.reload = Some(reload.clone());
        self
    }

    /// Provides `value` to every route of the application, through [`Inject<T>`]; a module,
    /// controller or route that provides a value of the same type wins.
    ///
    /// [`CorsOptions`](crate::CorsOptions) provided here are merged over those of the
    /// `CorsModule` imports, wherever CORS applies: the way to configure CORS from a file read at
    /// start. They do not switch CORS on where no `CorsModule` is imported.
    ///
    /// [`Inject<T>`]: crate::Inject
    pub fn provide<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.providers = self.providers.use_value(value);
        self
    }

    /// Adds guard `G` before the handler of every route, ahead of the modules' guards:
    /// `.guard::<Bearer, _>()` (`M` is inferred). What it declares is not read here; list it in
    /// the root module's `guards: [..]` to have it checked and documented.
    pub fn guard<G: Guard<S, M>, M: 'static>(mut self) -> Self {
        let check = crate::guard::check::<G, S, M>;
        self.guards.push((check, std::any::type_name::<G>()));
        self
    }

    /// Adds `layer` around every route of the application, outside the modules' layers and
    /// inside the CORS handling: preflights are answered before it runs, and its rejections
    /// carry the CORS headers.
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

    /// Builds the application. See [`Application::build`] for the errors.
    pub fn build(self) -> Result<Application<S>, BuildError> {
        let (router, unsorted, plans) = router::build(BuildInput {
            root: self.root,
            providers: self.providers,
            guards: self.guards,
            layers: self.layers,
            reloadable: self.reload.is_some(),
        })?;
        if let (Some(reload), Some(plans)) = (&self.reload, plans) {
            reload.register(plans);
        }
        Ok(Application {
            router,
            unsorted,
            routes: OnceLock::new(),
        })
    }
    /// Builds the application and returns its router.
    pub fn router(self) -> Result<Router<S>, BuildError> {
        self.build().map(Application::into_router)
    }
}
