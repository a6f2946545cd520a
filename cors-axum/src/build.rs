//! Building an axum `Router` from a tree of modules.

use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashSet;
use std::collections::hash_map::Entry;
use std::convert::Infallible;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::extract::Request;
use axum::response::IntoResponse;
use axum::routing::{MethodRouter, Route};
use cors_axum_core::CorsOptions;
use http::StatusCode;
use rustc_hash::FxHashMap;
use tower_layer::Layer;
use tower_service::Service;

use crate::controller::{ControllerEntry, ControllerRef, RouteDef, method_rank};
use crate::cors::reload::FallbackReload;
use crate::cors::{CorsImport, CorsReload, PathSource, Provided};
use crate::cors::{CorsLayer, CorsRoute, ModuleCors, ModuleCorsPaths, StatusAnswer};
use crate::error::BuildError;
use crate::guard::{Guard, GuardFn, Guards};
use crate::handler::RouteSetup;
use crate::module::{ImportKind, Module, ModuleDefinition, PathLayer, path_layer};
use crate::provider::{ProviderBuilder, ProviderScope};
use crate::table::{RouteCors, RouteInfo, RouteTable};
use crate::wiring::Needs;

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
    guards: Vec<GuardFn<S>>,
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

    /// Adds guard `G` before the handler of every route, ahead of the modules' guards.
    pub fn guard<G: Guard<S>>(mut self) -> Self {
        self.guards.push(G::check);
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
        let root = self.root.definition();
        let root_crate = crate_of(root.type_name);
        let mut builder = Builder {
            router: Some(Router::new()),
            table: RouteTable::default(),
            owners: FxHashMap::default(),
            conflicts: matchit::Router::new(),
            providers: self.providers,
            no_guards: Guards::from(Vec::new()),
            listed: HashSet::new(),
            reload: self.reload,
        };
        // The application's layers are outermost: last in the list, which runs inner to outer.
        let mut layers = self.layers;
        layers.reverse();
        let inherited = Inherited {
            cors: None,
            guards: self.guards,
            layers,
        };
        let root_cors = builder.visit(root, "", &inherited, &mut Vec::new())?;
        let mut router = builder
            .router
            .take()
            .expect("the router is put back after each route");
        if let Some(cors) = root_cors.filter(ModuleCors::is_enabled) {
            let application = builder.providers.get::<CorsOptions>();
            let fallback = Arc::new(cors.fallback_cors(application, builder.reload.is_some())?);
            let source = match &builder.reload {
                None => PathSource::Static(fallback),
                Some(reload) => {
                    let slot = Arc::new(arc_swap::ArcSwap::new(fallback));
                    reload.register(FallbackReload {
                        cors,
                        slot: slot.clone(),
                    });
                    PathSource::Reloadable(slot)
                }
            };
            router = router.fallback_service(
                CorsLayer::for_path(source, None, false).layer(StatusAnswer(StatusCode::NOT_FOUND)),
            );
        }
        builder.report_unlisted(root_crate);
        Ok(Application {
            router,
            unsorted: builder.table,
            routes: OnceLock::new(),
        })
    }

    /// Builds the application and returns its router.
    pub fn router(self) -> Result<Router<S>, BuildError> {
        self.build().map(Application::into_router)
    }
}

/// What a module passes on to the modules it imports.
struct Inherited<S: 'static> {
    cors: Option<ModuleCors>,
    /// Most general first: the order they run in.
    guards: Vec<GuardFn<S>>,
    /// Innermost first: the order they are applied in.
    layers: Vec<PathLayer<S>>,
}

struct Builder<S: 'static> {
    /// `None` only while a route is being added: `Router::route` takes the router by value.
    router: Option<Router<S>>,
    table: RouteTable,
    /// Where each path's routes are in `table` (contiguous per path).
    owners: FxHashMap<Arc<str>, Range<usize>>,
    /// Paths with parameters or wildcards, to find the conflicts axum would panic on.
    conflicts: matchit::Router<()>,
    /// The application's providers ([`ApplicationBuilder::provide`]).
    providers: ProviderBuilder,
    /// Shared by every route without guards.
    no_guards: Guards<S>,
    /// The controllers listed by the modules.
    listed: HashSet<TypeId>,
    /// Where to register what reloads the application's CORS options.
    reload: Option<CorsReload>,
}

/// What a route needs and has, found before its method router is built.
struct Prepared {
    /// The providers it sees.
    scope: Option<ProviderScope>,
    /// Whether its handler or controller takes `CorsService`.
    cors_service: bool,
    controller_options: Option<CorsOptions>,
    route_options: Option<CorsOptions>,
}

/// One route of a module, with its full path.
struct Collected<'m, S: 'static> {
    path: Cow<'m, str>,
    def: &'m RouteDef<S>,
    controller: &'m ControllerRef<S>,
    controller_providers: Option<&'m ProviderBuilder>,
}

impl<S: Clone + Send + Sync + 'static> Builder<S> {
    /// Builds `module` and its imports; returns the CORS that covers it.
    fn visit(
        &mut self,
        module: ModuleDefinition<S>,
        prefix: &str,
        inherited: &Inherited<S>,
        stack: &mut Vec<(TypeId, &'static str)>,
    ) -> Result<Option<ModuleCors>, BuildError> {
        if let Some(at) = stack.iter().position(|(id, _)| *id == module.type_id) {
            let mut chain: Vec<_> = stack[at..].iter().map(|(_, name)| *name).collect();
            chain.push(module.name);
            return Err(BuildError::ImportCycle { chain });
        }
        stack.push((module.type_id, module.name));

        let mut own_cors: Option<CorsImport> = None;
        let mut imports = Vec::new();
        for import in module.imports {
            match import.kind {
                ImportKind::Cors(cors) => {
                    if own_cors.replace(cors).is_some() {
                        return Err(BuildError::CorsModuleTwice {
                            module: module.name,
                        });
                    }
                }
                ImportKind::Module(child, _) => imports.push((import.prefix, child)),
            }
        }
        let cors = ModuleCors::resolve(module.name, own_cors, inherited.cors.as_ref())?;
        let mut guards = inherited.guards.clone();
        guards.extend(module.guards);
        let mut layers = module.layers;
        layers.extend(inherited.layers.iter().cloned());
        let passed_on = Inherited {
            cors,
            guards,
            layers,
        };

        self.mount_module(
            module.name,
            prefix,
            &module.controllers,
            &module.providers,
            &passed_on,
        )?;
        for (child_prefix, child) in imports {
            let child_prefix = join_paths(prefix, &child_prefix)?;
            validate_path(&child_prefix)?;
            self.visit(child.definition(), &child_prefix, &passed_on, stack)?;
        }

        stack.pop();
        Ok(passed_on.cors)
    }

    /// Builds and mounts the routes of one module's own controllers, path by path.
    fn mount_module(
        &mut self,
        module: &'static str,
        prefix: &str,
        controllers: &[ControllerRef<S>],
        providers: &ProviderBuilder,
        scope: &Inherited<S>,
    ) -> Result<(), BuildError> {
        for (i, controller) in controllers.iter().enumerate() {
            if controllers[..i]
                .iter()
                .any(|c| c.type_id == controller.type_id)
            {
                return Err(BuildError::DuplicateController {
                    module,
                    controller: controller.name,
                });
            }
            self.listed.insert(controller.type_id);
        }
        if controllers.iter().all(|c| c.routes.is_empty()) {
            return Ok(());
        }
        let controller_providers: Vec<Option<ProviderBuilder>> = controllers
            .iter()
            .map(|c| c.providers.map(|f| f()))
            .collect();

        // Group by path without sorting every route: paths keep registration order, which is
        // fixed for a given binary, and the route table is sorted when it is read. The routes
        // are placed group after group in one list (a counting sort), so that no group needs
        // a list of its own.
        let count = controllers.iter().map(|c| c.routes.len()).sum();
        let mut slots: FxHashMap<Cow<'_, str>, usize> =
            FxHashMap::with_capacity_and_hasher(count, Default::default());
        let mut routes: Vec<(usize, Collected<'_, S>)> = Vec::with_capacity(count);
        for (controller, controller_providers) in controllers.iter().zip(&controller_providers) {
            for def in controller.routes {
                let path = join_route_path(prefix, def.path)?;
                let next = slots.len();
                let group = *slots.entry(path.clone()).or_insert(next);
                routes.push((
                    group,
                    Collected {
                        path,
                        def,
                        controller,
                        controller_providers: controller_providers.as_ref(),
                    },
                ));
            }
        }
        let mut starts = vec![0; slots.len() + 1];
        for (group, _) in &routes {
            starts[group + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut order = vec![0; routes.len()];
        let mut next = starts.clone();
        for (i, (group, _)) in routes.iter().enumerate() {
            order[next[*group]] = i;
            next[*group] += 1;
        }
        let groups = starts.windows(2).map(|bounds| bounds[0]..bounds[1]);

        self.owners.reserve(slots.len());
        self.table.routes.reserve(count + slots.len());
        let mut cors = match &scope.cors {
            Some(cors) if cors.is_enabled() => {
                let provided = Provided {
                    application: self.providers.get::<CorsOptions>(),
                    module: providers.get::<CorsOptions>(),
                };
                let mut paths = ModuleCorsPaths::new(module, cors, provided)?;
                if self.reload.is_some() {
                    paths = paths.reloadable(cors, provided.module);
                }
                paths.is_enabled().then_some(paths)
            }
            _ => None,
        };
        let uncovered = match &scope.cors {
            Some(_) => RouteCors::Off(crate::table::CorsLevel::Module),
            None => RouteCors::None,
        };
        let module_scope = self.scope(providers, None, None);
        let module_guards: Option<Guards<S>> =
            (!scope.guards.is_empty()).then(|| scope.guards.clone().into());

        // Reused from path to path.
        let mut group: Vec<&Collected<'_, S>> = Vec::new();
        let mut prepared: Vec<Prepared> = Vec::new();
        for bounds in groups {
            group.clear();
            group.extend(order[bounds].iter().map(|&i| &routes[i].1));
            // Route paths were checked when `#[controller]` expanded, prefixes when their
            // module was visited: only axum's own conflicts are left to find.
            let path: Arc<str> = Arc::from(&*group[0].path);
            // Declaration order is not meaningful: sort, so that a duplicate is reported the same
            // way every time, naming both routes.
            group.sort_by_key(|r| (method_rank(&r.def.method), r.controller.name, r.def.handler));
            for pair in group.windows(2) {
                if pair[0].def.method == pair[1].def.method {
                    return Err(BuildError::DuplicateRoute {
                        method: pair[0].def.method.to_string(),
                        path: path.to_string(),
                        first: describe(module, pair[0]),
                        second: describe(module, pair[1]),
                    });
                }
            }

            // What each route needs and has: checked before anything is built.
            prepared.clear();
            for route in &group {
                let route_providers = route.def.providers.map(|f| f());
                let need = Needs::of(route.def.needs);
                for (type_id, type_name) in &need.injected {
                    let provided = [
                        route_providers.as_ref(),
                        route.controller_providers,
                        Some(providers),
                        Some(&self.providers),
                    ]
                    .into_iter()
                    .flatten()
                    .any(|p| p.provides(*type_id));
                    if !provided {
                        return Err(BuildError::MissingProvider {
                            route: format!("{} {path}", route.def.method),
                            handler: describe(module, route),
                            module,
                            type_name,
                        });
                    }
                }
                let cors_options =
                    |p: Option<&ProviderBuilder>| p.and_then(|p| p.get::<CorsOptions>().cloned());
                prepared.push(Prepared {
                    scope: match (route.controller_providers, &route_providers) {
                        (None, None) => module_scope.clone(),
                        (controller, route) => self.scope(providers, controller, route.as_ref()),
                    },
                    cors_service: need.cors_service,
                    controller_options: cors_options(route.controller_providers),
                    route_options: cors_options(route_providers.as_ref()),
                });
            }

            let mut compiled = None;
            if let Some(cors) = &mut cors {
                let routes: Vec<CorsRoute<'_>> = group
                    .iter()
                    .zip(&prepared)
                    .map(|(route, prepared)| CorsRoute {
                        method: &route.def.method,
                        controller: route.controller.name,
                        handler: route.def.handler,
                        controller_options: prepared.controller_options.as_ref(),
                        route_options: prepared.route_options.as_ref(),
                    })
                    .collect();
                let service = prepared.iter().any(|p| p.cors_service);
                compiled = Some(cors.path::<S>(&path, &routes, service)?);
            }
            // CORS goes in the handlers themselves, unless layers of the modules stand between
            // them and it; then it is a layer around those.
            let in_handlers = scope.layers.is_empty();
            let cors_layer = compiled.as_ref().map(|c| c.layer.clone());

            let mut method_router = MethodRouter::new();
            for (route, prepared) in group.iter().zip(prepared.iter_mut()) {
                let guards = match (&module_guards, route.def.guards.is_empty()) {
                    (None, true) => self.no_guards.clone(),
                    (Some(module_guards), true) => module_guards.clone(),
                    (_, false) => scope
                        .guards
                        .iter()
                        .chain(route.def.guards)
                        .copied()
                        .collect(),
                };
                let handler_cors = cors_layer
                    .clone()
                    .filter(|_| in_handlers && !route.def.layered);
                let setup = RouteSetup {
                    guards,
                    cors: handler_cors,
                    scope: prepared.scope.take(),
                };
                method_router = match &cors_layer {
                    // The route's own layers are inside its CORS.
                    Some(layer) if in_handlers && route.def.layered => {
                        let built = (route.def.method_router)(MethodRouter::new(), setup);
                        method_router.merge(built.layer(layer.clone()))
                    }
                    _ => (route.def.method_router)(method_router, setup),
                };
            }
            for layer in &scope.layers {
                method_router = layer(method_router);
            }

            let mut generated = None;
            let coverage = compiled.as_mut().map(|c| std::mem::take(&mut c.coverage));
            let covered = |i: usize| match &coverage {
                Some(coverage) => coverage[i].clone(),
                None => uncovered.clone(),
            };
            if let (Some(cors), Some(compiled)) = (&cors, compiled) {
                method_router = if in_handlers {
                    // The `405` answer, which no handler gives.
                    method_router.fallback_service(
                        compiled
                            .layer
                            .layer(StatusAnswer(StatusCode::METHOD_NOT_ALLOWED)),
                    )
                } else {
                    method_router.layer(compiled.layer)
                };
                if let Some(options_route) = compiled.options_route {
                    // Outside the modules' layers and the CORS layer: the generated route is the
                    // CORS module's own, which answers CORS itself and which no authentication
                    // stands in front of. Merged into it, so that the `405` fallback keeps its
                    // CORS.
                    method_router = options_route.merge(method_router);
                    generated = Some(cors.module_coverage());
                }
            }
            for (i, (route, prepared)) in group.iter().zip(&prepared).enumerate() {
                if prepared.cors_service && !matches!(covered(i), RouteCors::From { .. }) {
                    return Err(BuildError::CorsServiceWithoutCors {
                        route: format!("{} {path}", route.def.method),
                        handler: describe(module, route),
                        module,
                    });
                }
            }

            let start = self.table.len();
            self.table
                .routes
                .extend(group.iter().enumerate().map(|(i, route)| RouteInfo {
                    method: route.def.method.clone(),
                    path: path.clone(),
                    module,
                    controller: route.controller.name,
                    handler: route.def.handler,
                    cors: covered(i),
                }));
            if let Some(cors) = generated {
                self.table.routes.push(RouteInfo {
                    method: http::Method::OPTIONS,
                    path: path.clone(),
                    module,
                    controller: "CorsModule",
                    handler: "options",
                    cors,
                });
            }
            self.mount(module, path, start, method_router)?;
        }
        if let (Some(reload), Some(target)) = (
            &self.reload,
            cors.and_then(ModuleCorsPaths::into_reload_target),
        ) {
            reload.register(target);
        }
        Ok(())
    }

    /// The providers a route sees, most general first: the application's, its module's, its
    /// controller's, its own; `None` when there are none.
    fn scope(
        &self,
        module: &ProviderBuilder,
        controller: Option<&ProviderBuilder>,
        route: Option<&ProviderBuilder>,
    ) -> Option<ProviderScope> {
        let layers = [Some(&self.providers), Some(module), controller, route];
        if layers.iter().flatten().all(|p| p.is_empty()) {
            return None;
        }
        let mut scope = ProviderBuilder::new();
        for layer in layers.into_iter().flatten() {
            scope.extend(layer.clone());
        }
        Some(scope.into_scope())
    }

    /// Adds one path's routes to the router, after the checks on which axum would panic. Its
    /// rows are at the end of the route table, from `start`.
    fn mount(
        &mut self,
        module: &'static str,
        path: Arc<str>,
        start: usize,
        method_router: MethodRouter<S>,
    ) -> Result<(), BuildError> {
        let end = self.table.len();
        match self.owners.entry(path.clone()) {
            Entry::Occupied(owner) => {
                let routes = &self.table.routes;
                return Err(two_modules(
                    &routes[owner.get().clone()],
                    module,
                    &routes[start..end],
                ));
            }
            Entry::Vacant(slot) => {
                slot.insert(start..end);
            }
        }
        // The router reports conflicts only between paths with parameters or wildcards; equal
        // static paths were found above.
        if path.contains('{')
            && let Err(error) = self.conflicts.insert(&*path, ())
        {
            return Err(self.conflict(&path, &self.table.routes[start..end], error));
        }
        let router = self
            .router
            .take()
            .expect("the router is put back after each route");
        self.router = Some(router.route(&path, method_router));
        Ok(())
    }

    /// The error for a path the router cannot add.
    fn conflict(&self, path: &str, rows: &[RouteInfo], error: matchit::InsertError) -> BuildError {
        let handler = rows.first().map(RouteInfo::describe).unwrap_or_default();
        match error {
            matchit::InsertError::Conflict { with } => {
                let other_handler = self
                    .owners
                    .get(with.as_str())
                    .and_then(|range| self.table.routes.get(range.start))
                    .map(RouteInfo::describe)
                    .unwrap_or_default();
                BuildError::PathConflict {
                    path: path.to_owned(),
                    handler,
                    other_path: with,
                    other_handler,
                }
            }
            matchit::InsertError::InvalidParamSegment => BuildError::InvalidPath {
                path: path.to_owned(),
                reason: "a segment holds at most one parameter, after any static text, as in \
                         `/files/v{version}`"
                    .to_owned(),
            },
            matchit::InsertError::InvalidCatchAll => BuildError::InvalidPath {
                path: path.to_owned(),
                reason: "a wildcard `{*name}` must be the last segment".to_owned(),
            },
            _ => BuildError::InvalidPath {
                path: path.to_owned(),
                reason: "parameters are written `{name}`, and braces in text `{{` and `}}`"
                    .to_owned(),
            },
        }
    }

    /// Logs the controllers of the root module's crate that no module lists: their routes are
    /// not served, which is easy to miss.
    fn report_unlisted(&self, root_crate: &str) {
        if !tracing::enabled!(tracing::Level::DEBUG) {
            return;
        }
        for entry in inventory::iter::<ControllerEntry> {
            if crate_of(entry.module_path) == root_crate
                && !self.listed.contains(&(entry.type_id)())
            {
                tracing::debug!(
                    controller = entry.name,
                    module_path = entry.module_path,
                    "controller is not listed in the `controllers` of any module of this application"
                );
            }
        }
    }
}

/// The crate of a type or module path.
fn crate_of(path: &str) -> &str {
    path.split("::").next().unwrap_or(path)
}

/// The error for a path that a second module serves too: the same route twice (naming both)
/// or one path in two modules.
fn two_modules(first: &[RouteInfo], module: &'static str, rows: &[RouteInfo]) -> BuildError {
    let clash = rows.iter().find_map(|later| {
        first
            .iter()
            .find(|earlier| earlier.method == later.method)
            .map(|earlier| (earlier, later))
    });
    let path = rows.first().map(|r| r.path.to_string()).unwrap_or_default();
    match clash {
        Some((earlier, later)) => BuildError::DuplicateRoute {
            method: later.method.to_string(),
            path,
            first: earlier.describe(),
            second: later.describe(),
        },
        None => BuildError::PathInTwoModules {
            path,
            first: first.first().map_or("?", |r| r.module),
            second: module,
        },
    }
}

fn describe<S: 'static>(module: &str, route: &Collected<'_, S>) -> String {
    format!("{module}::{}::{}", route.controller.name, route.def.handler)
}

/// Joins a prefix and a path: `("/api", "users")` gives `/api/users`; `("", "")` gives `/`.
fn join_paths(prefix: &str, path: &str) -> Result<String, BuildError> {
    join_route_path(prefix, path).map(Cow::into_owned)
}

/// [`join_paths`] that borrows `path` when it is already the joined form (no prefix, one
/// leading `/`, no trailing one), as the macro writes route paths.
fn join_route_path<'p>(prefix: &str, path: &'p str) -> Result<Cow<'p, str>, BuildError> {
    let normal =
        path == "/" || (path.starts_with('/') && !path.ends_with('/') && !path.contains("//"));
    if prefix.trim_matches('/').is_empty() && normal {
        return Ok(Cow::Borrowed(path));
    }
    let mut joined = String::with_capacity(prefix.len() + path.len() + 2);
    for part in [prefix, path] {
        let trimmed = part.trim_matches('/');
        if !trimmed.is_empty() {
            joined.push('/');
            joined.push_str(trimmed);
        }
    }
    if joined.is_empty() {
        joined.push('/');
    }
    if joined.contains("//") {
        return Err(BuildError::InvalidPath {
            path: joined,
            reason: "empty path segment (`//`)".to_owned(),
        });
    }
    Ok(Cow::Owned(joined))
}

/// The checks on which axum would panic, reported as errors.
fn validate_path(path: &str) -> Result<(), BuildError> {
    let invalid = |reason: &str| BuildError::InvalidPath {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    for segment in path.split('/') {
        if let Some(name) = segment.strip_prefix(':') {
            return Err(invalid(&format!(
                "segments must not start with `:`; write the parameter as `{{{name}}}`"
            )));
        }
        if let Some(name) = segment.strip_prefix('*') {
            return Err(invalid(&format!(
                "segments must not start with `*`; write the wildcard as `{{*{name}}}`"
            )));
        }
    }
    if path.contains(['?', '#', ' ']) {
        return Err(invalid("paths cannot contain `?`, `#` or spaces"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_paths_normalises_slashes() {
        assert_eq!(join_paths("", "").unwrap(), "/");
        assert_eq!(join_paths("", "/").unwrap(), "/");
        assert_eq!(join_paths("/api", "users").unwrap(), "/api/users");
        assert_eq!(join_paths("api/", "/users/").unwrap(), "/api/users");
        assert!(join_paths("/a//b", "c").is_err());
        assert!(matches!(
            join_route_path("", "/users"),
            Ok(Cow::Borrowed("/users"))
        ));
    }

    #[test]
    fn static_paths_never_conflict_with_parameter_paths_in_the_router() {
        // `mount` checks only paths with parameters for conflicts; this is what makes that
        // sound: the router accepts every static path beside any parameter or wildcard path.
        let dynamic = [
            "/{id}",
            "/a/{x}",
            "/a/{x}/c",
            "/files/{*rest}",
            "/x{suffix}",
        ];
        let fixed = [
            "/", "/a", "/a/b", "/a/b/c", "/files", "/files/a", "/x", "/xy", "/b/{{c}}",
        ];
        for (first, second) in [(&dynamic[..], &fixed[..]), (&fixed[..], &dynamic[..])] {
            let mut router = matchit::Router::new();
            for path in first.iter().chain(second.iter()) {
                router
                    .insert(*path, ())
                    .unwrap_or_else(|e| panic!("{path}: {e}"));
            }
            assert!(
                router.insert("/a/{y}", ()).is_err(),
                "parameter paths do conflict"
            );
        }
    }

    #[test]
    fn legacy_parameter_syntax_is_an_error_not_a_panic() {
        let err = validate_path("/users/:id").unwrap_err().to_string();
        assert!(err.contains("`{id}`"), "{err}");
        let err = validate_path("/files/*rest").unwrap_err().to_string();
        assert!(err.contains("`{*rest}`"), "{err}");
        assert!(validate_path("/users/{id}").is_ok());
    }
}
