//! The route table of a built application.

use std::fmt;
use std::sync::Arc;

use http::Method;

/// One route of the built router.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteInfo {
    pub(crate) method: Method,
    pub(crate) path: Arc<str>,
    pub(crate) module: &'static str,
    pub(crate) controller: &'static str,
    pub(crate) handler: &'static str,
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
}

/// Every route of a built application, sorted by path, then method, then module.
///
/// Its `Display` is an aligned table, one route a line.
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
            (
                &r.path,
                crate::controller::method_rank(r.method.as_str()),
                r.module,
            )
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
        writeln!(
            f,
            "{:method_w$}  {:path_w$}  {:module_w$}  HANDLER",
            "METHOD", "PATH", "MODULE"
        )?;
        for r in &self.routes {
            writeln!(
                f,
                "{:method_w$}  {:path_w$}  {:module_w$}  {}::{}",
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
