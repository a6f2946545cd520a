//! Replacing CORS options at run time: [`CorsReload`].

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::ArcSwap;
use cors_axum_core::{CorsConfigError, CorsOptions};
use http::Method;

use super::imported::ModuleRecipe;
use super::plan::{PathPlan, RoutePlan};
use super::plan_error::PlanError;
use super::planner::{ApplicationLevel, ModulePlanner, RouteOptions};
use super::source::{PlanSource, PlanTable, SharedTable};
use crate::provider::ProviderScope;
use crate::table::RoutePath;

/// A handle that replaces CORS options while the application serves requests: the options of
/// a [`CorsLayer`](crate::cors::CorsLayer), or those an application provides to its modules
/// (`AppModule::builder().provide(options).cors_reload(&reload)`).
///
/// [`reload`](CorsReload::reload) makes every plan again with the new options, as the build
/// made them, first: if any is invalid, it returns the error and the old plans stay. New
/// options that would widen the options in force by leaving out one of them are refused the
/// same way (see [`CorsOptions::replaceable_by`]): a half-written file cannot open an API by
/// omission. Then it swaps the application's table of plans whole, in one atomic store: a
/// request sees the old plans or the new ones, never a mix, on any path. Header values beyond
/// those the process shares (a bounded table) are freed with the plans they belong to, so
/// reloading any number of times keeps memory flat.
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
/// let err = reload.reload(CorsOptions::new().origin("https://b.example/")).unwrap_err();
/// assert_eq!(err.config_error().field(), "origin");
/// # drop(router);
/// ```
#[derive(Clone, Default)]
pub struct CorsReload {
    targets: Arc<Mutex<Vec<Reloadable>>>,
}

/// A table of plans a reload swaps, how it makes the table again, and the options in force.
pub(crate) struct Reloadable {
    pub(crate) table: SharedTable,
    pub(crate) remake: Remake,
    pub(crate) in_force: CorsOptions,
}

/// How a reload makes a table of plans again.
pub(crate) enum Remake {
    /// An application's: the paths of each module under CORS, by the module's planner.
    Application(Vec<ModuleReload>),
    /// A [`CorsLayer`](crate::cors::CorsLayer)'s one plan, of the options alone.
    Layer,
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
    /// every plan made, checked not to widen the options in force by leaving one of them out
    /// ([`ReloadError::widens`]), then swapped in.
    ///
    /// ```
    /// use cors_axum::cors::CorsReload;
    /// use cors_axum::CorsOptions;
    /// use cors_axum::cors::CorsLayer;
    ///
    /// let reload = CorsReload::new();
    /// let in_force = CorsOptions::new().origin("https://a.example").protect_cross_origin(true);
    /// let layer = CorsLayer::new(in_force)?.reloaded_by(&reload);
    /// // Leaving `protect_cross_origin` out would switch protection off: refused.
    /// let err = reload.reload(CorsOptions::new().origin("https://b.example")).unwrap_err();
    /// assert!(err.widens());
    /// assert_eq!(err.config_error().field(), "protect_cross_origin");
    /// // Said explicitly, it is applied.
    /// reload.reload(CorsOptions::new().origin("https://b.example").protect_cross_origin(false))?;
    /// # drop(layer);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reload(&self, options: CorsOptions) -> Result<(), ReloadError> {
        self.replace(options, "the options given to `CorsReload::reload`")
    }

    /// [`reload`](Self::reload), with errors naming `given_in` as where the options come from.
    pub(crate) fn replace(&self, options: CorsOptions, given_in: &str) -> Result<(), ReloadError> {
        let mut targets = self.lock();
        let tables = targets
            .iter()
            .map(|target| target.remake(&options, given_in))
            .collect::<Result<Vec<_>, _>>()?;
        for target in targets.iter() {
            target
                .in_force
                .replaceable_by(&options)
                .map_err(|source| ReloadError::unplanned(given_in, source, true))?;
        }
        for (target, table) in targets.iter_mut().zip(tables) {
            target.table.store(Arc::new(table));
            target.in_force = options.clone();
        }
        Ok(())
    }

    /// Lets a reload replace the table of `target`.
    pub(crate) fn register(&self, target: Reloadable) {
        self.lock().push(target);
    }

    /// The source of a [`CorsLayer`](crate::cors::CorsLayer) reading `source`, with `in_force`,
    /// replaced by this handle from then on: a table of its one plan.
    pub(crate) fn register_layer(&self, source: &PlanSource, in_force: CorsOptions) -> PlanSource {
        let (table, index) = match source {
            PlanSource::Table { table, index } => (table.clone(), *index),
            PlanSource::Static(plan) => {
                let table = PlanTable::new(vec![plan.clone()]);
                (Arc::new(ArcSwap::from_pointee(table)), 0)
            }
        };
        self.register(Reloadable {
            table: table.clone(),
            remake: Remake::Layer,
            in_force,
        });
        PlanSource::Table { table, index }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Reloadable>> {
        self.targets.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Why [`CorsReload::reload`] refused new options: they are invalid for a module, a route, or a
/// [`CorsLayer`](crate::cors::CorsLayer), or they would widen the options in force by leaving one out
/// ([`widens`](Self::widens)). The options in force stay.
#[derive(Debug)]
pub struct ReloadError {
    module: Option<&'static str>,
    route: Option<String>,
    given_in: String,
    widens: bool,
    source: Box<CorsConfigError>,
}

impl ReloadError {
    /// The module whose options the new ones make invalid; `None` for a `CorsLayer`, and for
    /// options that would widen those in force ([`widens`](Self::widens)).
    pub fn module(&self) -> Option<&'static str> {
        self.module
    }

    /// The route (`GET /items`), where the options are invalid together with a controller's or
    /// a route's own.
    pub fn route(&self) -> Option<&str> {
        self.route.as_deref()
    }

    /// The error of the engine, which names the option and the fix.
    pub fn config_error(&self) -> &CorsConfigError {
        &self.source
    }

    /// Whether the new options were refused because they leave out an option that the options
    /// in force set, and whose default would allow more ([`CorsOptions::replaceable_by`]);
    /// [`config_error`](Self::config_error) names it, and how to mean it.
    pub fn widens(&self) -> bool {
        self.widens
    }

    /// Options refused for a `CorsLayer`, or because they would widen those in force.
    fn unplanned(given_in: &str, source: CorsConfigError, widens: bool) -> Self {
        Self {
            module: None,
            route: None,
            given_in: given_in.to_owned(),
            widens,
            source: Box::new(source),
        }
    }

    /// What the new options are invalid for: a route of a module, or a module.
    fn invalid_for(&self) -> Option<String> {
        let module = self.module?;
        Some(match &self.route {
            Some(route) => format!("route `{route}` of module `{module}`"),
            None => format!("module `{module}`"),
        })
    }

    /// Why, without where the options were given nor that the options in force stay: for a
    /// log line that says both in its own words.
    #[cfg(feature = "watch")]
    pub(crate) fn reason(&self) -> String {
        match (self.widens, self.invalid_for()) {
            (true, _) => format!("they would widen the policy in force: {}", self.source),
            (false, Some(invalid_for)) => format!("{} ({invalid_for})", self.source),
            (false, None) => self.source.to_string(),
        }
    }
}

impl From<PlanError> for ReloadError {
    fn from(error: PlanError) -> Self {
        let (module, route, given_in, source) = match error {
            PlanError::Invalid {
                module,
                route,
                given_in,
                source,
            } => (module, route, given_in, source),
            PlanError::MissingValue {
                module,
                given_in,
                source,
                ..
            } => (module, None, given_in, source),
        };
        Self {
            module: Some(module),
            route,
            given_in,
            widens: false,
            source,
        }
    }
}

impl fmt::Display for ReloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.widens {
            // The cause, printed after this line, names the option left out.
            return write!(
                f,
                "{} would widen the options in force by leaving one out; \
                 the options in force stay",
                self.given_in
            );
        }
        // The cause is the `source`, printed by error reporters after this line.
        let invalid_for = self.invalid_for();
        write!(
            f,
            "invalid CORS options in {}, for {}; the options in force stay",
            self.given_in,
            invalid_for.as_deref().unwrap_or("a `CorsLayer`")
        )
    }
}

impl std::error::Error for ReloadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

impl Reloadable {
    /// The table of plans made again with `options`, nothing swapped yet.
    fn remake(&self, options: &CorsOptions, given_in: &str) -> Result<PlanTable, ReloadError> {
        match &self.remake {
            Remake::Application(modules) => {
                let mut plans = self.table.load().plans.clone();
                for module in modules {
                    module.remake(options, given_in, &mut plans)?;
                }
                Ok(PlanTable::new(plans))
            }
            Remake::Layer => {
                let plan = RoutePlan::compile(options, None)
                    .map_err(|source| ReloadError::unplanned(given_in, source, false))?;
                Ok(PlanTable::new(vec![Arc::new(PathPlan::single(plan))]))
            }
        }
    }
}

/// One path of a module, as a reload makes its plan again: its place in the table, and what
/// its plan is made of besides the module's options.
pub(crate) struct ReloadPath {
    pub(crate) index: usize,
    pub(crate) path: RoutePath,
    pub(crate) methods: Vec<Method>,
    pub(crate) routes: Vec<RouteOptions>,
}

/// The paths of one module whose plans the application's options reload.
pub(crate) struct ModuleReload {
    pub(crate) recipe: Arc<ModuleRecipe>,
    /// The values the module's origin decisions may take.
    pub(crate) values: ProviderScope,
    pub(crate) paths: Vec<ReloadPath>,
    /// The place of the plan of unknown paths in the table, for the root module.
    pub(crate) unknown_path: Option<usize>,
}

impl ModuleReload {
    /// Makes the module's plans again with the application's `options`, into `plans`.
    fn remake(
        &self,
        options: &CorsOptions,
        given_in: &str,
        plans: &mut [Arc<PathPlan>],
    ) -> Result<(), ReloadError> {
        let application = ApplicationLevel {
            options: Some(options),
            given_in,
        };
        let mut planner =
            ModulePlanner::new(self.recipe.clone(), &application, self.values.clone())?;
        for path in &self.paths {
            let (plan, _) = planner.path(&path.path, &path.methods, &path.routes)?;
            plans[path.index] = plan;
        }
        if let Some(index) = self.unknown_path {
            plans[index] = Arc::new(planner.unknown_path()?);
        }
        Ok(())
    }
}
