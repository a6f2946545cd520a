//! The route table of a built application.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use http::Method;

use crate::methods::method_rank;

/// Where a route's CORS comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CorsCoverage {
    /// No `CorsModule` covers the route.
    None,
    /// Switched off, at this level.
    Off(CorsLevel),
    /// From the `CorsModule` imported by `module`, with options from `level` at the most
    /// specific.
    From {
        module: &'static str,
        level: CorsLevel,
    },
}

/// The level that gave a route's CORS options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CorsLevel {
    /// The `CorsModule` import, or the module's own `providers_per_rou`.
    Module,
    /// The application builder (`.provide(options)`), over the import.
    Application,
    Controller,
    Route,
}

impl CorsLevel {
    fn name(self) -> &'static str {
        match self {
            CorsLevel::Module => "module",
            CorsLevel::Application => "application",
            CorsLevel::Controller => "controller",
            CorsLevel::Route => "route",
        }
    }
}

impl fmt::Display for CorsCoverage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorsCoverage::None => f.write_str("-"),
            CorsCoverage::Off(at) => write!(f, "off ({})", at.name()),
            CorsCoverage::From {
                module,
                level: CorsLevel::Module,
            } => f.write_str(module),
            CorsCoverage::From { module, level } => write!(f, "{module} + {}", level.name()),
        }
    }
}

/// A route's full path as the router keeps it (its table, its CORS logs): the path the macro
/// wrote, borrowed for good, or a path joined under a module's prefix, shared. Either clones
/// without allocating, and the first is made without allocating either.
#[derive(Clone)]
pub(crate) enum RoutePath {
    Static(&'static str),
    Shared(Arc<str>),
}

impl RoutePath {
    /// The path of a route as the walk joined it.
    #[allow(
        clippy::ptr_arg,
        reason = "whether the path is borrowed for good is what is asked"
    )]
    pub(crate) fn of(joined: &Cow<'static, str>) -> Self {
        match joined {
            Cow::Borrowed(path) => RoutePath::Static(path),
            Cow::Owned(path) => RoutePath::Shared(Arc::from(path.as_str())),
        }
    }
}

impl Deref for RoutePath {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            RoutePath::Static(path) => path,
            RoutePath::Shared(path) => path,
        }
    }
}

impl Borrow<str> for RoutePath {
    fn borrow(&self) -> &str {
        self
    }
}

impl PartialEq for RoutePath {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for RoutePath {}

impl Hash for RoutePath {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl fmt::Debug for RoutePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for RoutePath {
    /// The path, padded as the formatter asks (the route table aligns its columns).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self)
    }
}

/// One route of the built router.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteInfo {
    pub(crate) method: Method,
    pub(crate) path: RoutePath,
    pub(crate) module: &'static str,
    pub(crate) controller: &'static str,
    pub(crate) handler: &'static str,
    pub(crate) cors: CorsCoverage,
    /// An `OPTIONS` route that `CorsModule` generated, not one the user wrote.
    pub(crate) generated: bool,
}

impl RouteInfo {
    /// The method.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The full path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The module the route belongs to.
    pub fn module(&self) -> &'static str {
        self.module
    }

    /// The controller, or `CorsModule` for the `OPTIONS` routes it generates.
    pub fn controller(&self) -> &'static str {
        self.controller
    }

    /// The handler's name.
    pub fn handler(&self) -> &'static str {
        self.handler
    }

    /// Whether `CorsModule` generated the route (an `OPTIONS` route for a path without one).
    pub fn is_generated(&self) -> bool {
        self.generated
    }

    /// `Module::Controller::handler`, for errors.
    pub(crate) fn describe(&self) -> String {
        format!("{}::{}::{}", self.module, self.controller, self.handler)
    }

    /// The module whose `CorsModule` import gives the route its CORS handling, or `None` when
    /// the route has none (no `CorsModule` covers it, or it is switched off).
    pub fn cors(&self) -> Option<&'static str> {
        match self.cors {
            CorsCoverage::From { module, .. } => Some(module),
            CorsCoverage::None | CorsCoverage::Off(_) => None,
        }
    }
}

/// Every route of a built application, sorted by path, then method, then module, and what
/// the build noticed that may not be what was meant.
///
/// Its `Display` is an aligned table, one route a line. Its `CORS` column names the module whose
/// `CorsModule` covers the route, with `+ application`, `+ controller` or `+ route` where options
/// of that level are the most specific (`+ application`: given to the application builder with
/// `.provide(options)`, and not overridden by the module's own);
/// `off (level)` where CORS is switched off; `-` where no `CorsModule` covers it. The
/// warnings follow the table, one a line, each starting with `warning: `.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RouteTable {
    pub(crate) routes: Vec<RouteInfo>,
    pub(crate) warnings: Vec<String>,
}

impl RouteTable {
    /// The routes, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, RouteInfo> {
        self.routes.iter()
    }

    /// How many routes there are.
    pub fn len(&self) -> usize {
        self.routes.len()
    }

    /// Whether there is no route.
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    /// What the build noticed that does nothing, such as `cors = false` on a route that no
    /// `CorsModule` covers; also logged at build, at warn level.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The table sorted by path, then method, then module.
    pub(crate) fn into_sorted(mut self) -> Self {
        fn key(r: &RouteInfo) -> (&str, usize, &str) {
            (&r.path, method_rank(&r.method), r.module)
        }
        self.routes.sort_by(|a, b| key(a).cmp(&key(b)));
        self
    }

    /// The table as JSON, for tools such as `cors-audit --routes`:
    /// `{"routes":[{"method":"GET","path":"/items/{id}","module":"AppModule",
    /// "controller":"ItemsController","handler":"get","cors":"AppModule","generated":false}],
    /// "warnings":[]}`, where `cors` is `null` for a route without CORS.
    ///
    /// ```
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
    /// let json = AppModule::routes().unwrap().to_json();
    /// assert!(json.starts_with(r#"{"routes":[{"method":"OPTIONS","path":"/items","#));
    /// assert!(json.contains(r#""handler":"list","cors":"AppModule","generated":false}"#));
    /// ```
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a route table is plain strings and booleans")
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for RouteInfo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut row = serializer.serialize_struct("RouteInfo", 7)?;
        row.serialize_field("method", self.method.as_str())?;
        row.serialize_field("path", &*self.path)?;
        row.serialize_field("module", self.module)?;
        row.serialize_field("controller", self.controller)?;
        row.serialize_field("handler", self.handler)?;
        row.serialize_field("cors", &self.cors())?;
        row.serialize_field("generated", &self.generated)?;
        row.end()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for RouteTable {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut table = serializer.serialize_struct("RouteTable", 2)?;
        table.serialize_field("routes", &self.routes)?;
        table.serialize_field("warnings", &self.warnings)?;
        table.end()
    }
}

impl<'a> IntoIterator for &'a RouteTable {
    type Item = &'a RouteInfo;
    type IntoIter = std::slice::Iter<'a, RouteInfo>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Display for RouteTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = |column: fn(&RouteInfo) -> usize, title: &str| {
            self.routes
                .iter()
                .map(column)
                .max()
                .unwrap_or(0)
                .max(title.len())
        };
        let method_w = width(|r| r.method.as_str().len(), "METHOD");
        let path_w = width(|r| r.path.len(), "PATH");
        let module_w = width(|r| r.module.len(), "MODULE");
        let cors: Vec<String> = self.routes.iter().map(|r| r.cors.to_string()).collect();
        let cors_w = cors.iter().map(String::len).max().unwrap_or(0).max(4);
        writeln!(
            f,
            "{:method_w$}  {:path_w$}  {:module_w$}  {:cors_w$}  HANDLER",
            "METHOD", "PATH", "MODULE", "CORS"
        )?;
        for (r, cors) in self.routes.iter().zip(&cors) {
            writeln!(
                f,
                "{:method_w$}  {:path_w$}  {:module_w$}  {cors:cors_w$}  {}::{}",
                r.method.as_str(),
                r.path,
                r.module,
                r.controller,
                r.handler
            )?;
        }
        for warning in &self.warnings {
            writeln!(f, "warning: {warning}")?;
        }
        Ok(())
    }
}
