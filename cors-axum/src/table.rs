//! The route table of a built application.

use std::fmt;
use std::sync::Arc;

use http::Method;

/// Where a route's CORS comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RouteCors {
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
    Module,
    Controller,
    Route,
}

impl fmt::Display for RouteCors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = |level: &CorsLevel| match level {
            CorsLevel::Module => "module",
            CorsLevel::Controller => "controller",
            CorsLevel::Route => "route",
        };
        match self {
            RouteCors::None => f.write_str("-"),
            RouteCors::Off(at) => write!(f, "off ({})", level(at)),
            RouteCors::From {
                module,
                level: CorsLevel::Module,
            } => f.write_str(module),
            RouteCors::From { module, level: at } => write!(f, "{module} + {}", level(at)),
        }
    }
}

/// One route of the built router.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteInfo {
    pub(crate) method: Method,
    pub(crate) path: Arc<str>,
    pub(crate) module: &'static str,
    pub(crate) controller: &'static str,
    pub(crate) handler: &'static str,
    pub(crate) cors: RouteCors,
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

    /// The controller, or the module hook (such as `CorsModule`) that generated the route.
    pub fn controller(&self) -> &'static str {
        self.controller
    }

    /// The handler's name.
    pub fn handler(&self) -> &'static str {
        self.handler
    }

    /// `Module::Controller::handler`, for errors.
    pub(crate) fn describe(&self) -> String {
        format!("{}::{}::{}", self.module, self.controller, self.handler)
    }

    /// The module whose `CorsModule` import gives the route its CORS handling, or `None` when
    /// the route has none (no `CorsModule` covers it, or it is switched off).
    pub fn cors(&self) -> Option<&'static str> {
        match self.cors {
            RouteCors::From { module, .. } => Some(module),
            RouteCors::None | RouteCors::Off(_) => None,
        }
    }
}

/// Every route of a built application, sorted by path, then method, then module.
///
/// Its `Display` is an aligned table, one route a line. Its `CORS` column names the module whose
/// `CorsModule` covers the route, with `+ controller` or `+ route` where options of that level
/// apply; `off (level)` where CORS is switched off; `-` where no `CorsModule` covers it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RouteTable {
    pub(crate) routes: Vec<RouteInfo>,
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

    /// The table sorted by path, then method, then module.
    pub(crate) fn into_sorted(mut self) -> Self {
        fn key(r: &RouteInfo) -> (&str, usize, &str) {
            (&r.path, crate::controller::method_rank(&r.method), r.module)
        }
        self.routes.sort_by(|a, b| key(a).cmp(&key(b)));
        self
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
        Ok(())
    }
}
