//! Replacing CORS options at run time: [`CorsReload`].

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::ArcSwap;
use cors_axum_core::CorsOptions;
use http::Method;

use super::{CorsRoute, ModuleCors, ModuleCorsPaths, PathCors, Provided};
use crate::error::BuildError;

/// A handle that replaces CORS options while the application serves requests: the options of
/// a [`CorsLayer`](crate::CorsLayer), or those an application provides to its modules
/// (`AppModule::builder().provide(options).cors_reload(&reload)`).
///
/// [`reload`](CorsReload::reload) compiles every policy with the new options first: if any is
/// invalid, it returns the error and the old policies stay. Then it replaces them, each at once:
/// a request sees the old policy or the new one, never a mix. Policies compiled for reloading
/// free their header values when replaced, so reloading any number of times keeps memory flat.
///
/// ```
/// use cors_axum::cors::CorsReload;
/// use cors_axum::prelude::*;
///
/// pub struct ItemsController;
///
/// #[controller]
/// impl ItemsController {
///     #[route("GET", "items")]
///     async fn list() -> &'static str { "[]" }
/// }
///
/// rest_root_module! {
///     pub struct AppModule { imports: [CorsModule], controllers: [ItemsController] }
/// }
///
/// let reload = CorsReload::new();
/// let router: axum::Router = AppModule::builder()
///     .provide(CorsOptions::new().origin("https://a.example"))
///     .cors_reload(&reload)
///     .router()
///     .unwrap();
///
/// // Later, for example when the configuration file changes:
/// reload.reload(CorsOptions::new().origin("https://b.example")).unwrap();
/// // An invalid configuration is refused, and the current one stays:
/// assert!(reload.reload(CorsOptions::new().origin("https://b.example/")).is_err());
/// # drop(router);
/// ```
#[derive(Clone, Default)]
pub struct CorsReload {
    targets: Arc<Mutex<Vec<Box<dyn Target>>>>,
}

impl fmt::Debug for CorsReload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CorsReload")
            .field("targets", &self.lock().len())
            .finish()
    }
}

impl CorsReload {
    /// A handle with nothing to reload yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the options with `options`, everywhere this handle was given: validated first,
    /// every policy compiled, then swapped in.
    pub fn reload(&self, options: CorsOptions) -> Result<(), BuildError> {
        let targets = self.lock();
        let prepared = targets
            .iter()
            .map(|target| target.prepare(&options))
            .collect::<Result<Vec<_>, _>>()?;
        for swap in prepared {
            swap();
        }
        Ok(())
    }

    pub(crate) fn register(&self, target: impl Target) {
        self.lock().push(Box::new(target));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Box<dyn Target>>> {
        self.targets.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What a reload replaces: it compiles the new policies, and returns what swaps them in.
pub(crate) trait Target: Send + Sync + 'static {
    fn prepare(&self, options: &CorsOptions) -> Result<Box<dyn FnOnce() + Send>, BuildError>;
}

/// A route as a reload compiles it again.
struct OwnedRoute {
    method: Method,
    controller: &'static str,
    handler: &'static str,
    controller_options: Option<CorsOptions>,
    route_options: Option<CorsOptions>,
}

/// One path of a module, as a reload compiles it again.
struct ReloadPath {
    slot: Arc<ArcSwap<PathCors>>,
    path: Arc<str>,
    methods: Vec<Method>,
    routes: Vec<OwnedRoute>,
}

/// The paths of one module whose CORS the application's options reload.
pub(crate) struct ModuleReload {
    module: &'static str,
    cors: ModuleCors,
    /// The module's own options (`providers_per_rou`), which a reload leaves as they are.
    provided: Option<CorsOptions>,
    paths: Vec<ReloadPath>,
}

impl ModuleReload {
    pub(crate) fn new(
        module: &'static str,
        cors: ModuleCors,
        provided: Option<CorsOptions>,
    ) -> Self {
        Self {
            module,
            cors,
            provided,
            paths: Vec::new(),
        }
    }

    /// Records a path compiled as `cors`; returns the slot its requests read.
    pub(crate) fn add_path(
        &mut self,
        path: &Arc<str>,
        methods: &[Method],
        routes: &[CorsRoute<'_>],
        cors: Arc<PathCors>,
    ) -> Arc<ArcSwap<PathCors>> {
        let slot = Arc::new(ArcSwap::new(cors));
        self.paths.push(ReloadPath {
            slot: slot.clone(),
            path: path.clone(),
            methods: methods.to_vec(),
            routes: routes
                .iter()
                .map(|r| OwnedRoute {
                    method: r.method.clone(),
                    controller: r.controller,
                    handler: r.handler,
                    controller_options: r.controller_options.cloned(),
                    route_options: r.route_options.cloned(),
                })
                .collect(),
        });
        slot
    }
}

impl Target for ModuleReload {
    fn prepare(&self, options: &CorsOptions) -> Result<Box<dyn FnOnce() + Send>, BuildError> {
        let provided = Provided {
            application: Some(options),
            module: self.provided.as_ref(),
        };
        let mut compiler = ModuleCorsPaths::new(self.module, &self.cors, provided)?
            .reloadable(&self.cors, self.provided.as_ref());
        let mut swaps = Vec::with_capacity(self.paths.len());
        for path in &self.paths {
            let routes: Vec<CorsRoute<'_>> = path
                .routes
                .iter()
                .map(|r| CorsRoute {
                    method: &r.method,
                    controller: r.controller,
                    handler: r.handler,
                    controller_options: r.controller_options.as_ref(),
                    route_options: r.route_options.as_ref(),
                })
                .collect();
            let (cors, _) = compiler.path_cors(&path.path, &path.methods, &routes)?;
            swaps.push((path.slot.clone(), cors));
        }
        Ok(Box::new(move || {
            for (slot, cors) in swaps {
                slot.store(cors);
            }
        }))
    }
}

/// The answer to unknown paths of a root module, reloaded with the application's options.
pub(crate) struct FallbackReload {
    pub(crate) cors: ModuleCors,
    pub(crate) slot: Arc<ArcSwap<PathCors>>,
}

impl Target for FallbackReload {
    fn prepare(&self, options: &CorsOptions) -> Result<Box<dyn FnOnce() + Send>, BuildError> {
        let cors = Arc::new(self.cors.fallback_cors(Some(options), true)?);
        let slot = self.slot.clone();
        Ok(Box::new(move || slot.store(cors)))
    }
}

/// The options of a plain [`CorsLayer`](crate::CorsLayer), replaced as a whole.
pub(crate) struct LayerReload {
    pub(crate) slot: Arc<ArcSwap<PathCors>>,
}

impl Target for LayerReload {
    fn prepare(&self, options: &CorsOptions) -> Result<Box<dyn FnOnce() + Send>, BuildError> {
        let cors = Arc::new(super::layer::layer_cors(options, true).map_err(|source| {
            BuildError::Cors {
                module: "CorsLayer",
                route: None,
                given_in: "`CorsReload::reload` of a `CorsLayer`".to_owned(),
                source: Box::new(source),
            }
        })?);
        let slot = self.slot.clone();
        Ok(Box::new(move || slot.store(cors)))
    }
}
