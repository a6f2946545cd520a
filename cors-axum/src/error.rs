//! The error of building a router from modules.

use std::fmt;

/// Why a router could not be built from its modules.
///
/// Every conflict axum would panic on is reported here first, naming both sides.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// Two routes have the same method and path.
    DuplicateRoute {
        /// The method, such as `GET`.
        method: String,
        /// The full path.
        path: String,
        /// The first route, as `Module::Controller::handler`.
        first: String,
        /// The second route.
        second: String,
    },
    /// Two paths overlap in a way the router cannot tell apart, such as `/users/{id}` and
    /// `/users/{name}`.
    PathConflict {
        /// The path being added.
        path: String,
        /// What it conflicts with, as the router reports it.
        reason: String,
    },
    /// The same path is served by two modules.
    PathInTwoModules {
        /// The full path.
        path: String,
        /// The module that declared it first.
        first: &'static str,
        /// The other module.
        second: &'static str,
    },
    /// A path or prefix is not valid for axum.
    InvalidPath {
        /// The path.
        path: String,
        /// What is wrong and how to write it.
        reason: String,
    },
    /// A route's method is not one axum can route.
    InvalidMethod {
        /// The method.
        method: String,
        /// The route, as `Controller::handler`.
        route: String,
    },
    /// A module lists the same controller twice.
    DuplicateController {
        /// The module.
        module: &'static str,
        /// The controller.
        controller: &'static str,
    },
    /// A module imports itself, directly or through other modules.
    ImportCycle {
        /// The modules on the cycle, the first one repeated at the end.
        chain: Vec<&'static str>,
    },
    /// A module imports the same hook-carrying module (such as `CorsModule`) twice.
    DuplicateHook {
        /// The importing module.
        module: &'static str,
        /// The hook.
        hook: &'static str,
    },
    /// CORS options given for a module, controller or route are invalid.
    Cors {
        /// The module whose routes the options apply to.
        module: &'static str,
        /// The path.
        path: String,
        /// The method, where the options are route- or controller-level.
        method: Option<String>,
        /// The error of `cors-core`, which names the option.
        source: Box<cors_axum_core::CorsConfigError>,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateRoute {
                method,
                path,
                first,
                second,
            } => write!(
                f,
                "route `{method} {path}` is declared twice: by `{first}` and by `{second}`"
            ),
            Self::PathConflict { path, reason } => {
                write!(f, "path `{path}` conflicts with another route: {reason}")
            }
            Self::PathInTwoModules {
                path,
                first,
                second,
            } => write!(
                f,
                "path `{path}` is served by two modules, `{first}` and `{second}`; \
                 mount one of them under a prefix with `Import::at`"
            ),
            Self::InvalidPath { path, reason } => write!(f, "invalid path `{path}`: {reason}"),
            Self::InvalidMethod { method, route } => write!(
                f,
                "route `{route}` has method `{method}`, which is not one of \
                 GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE, CONNECT"
            ),
            Self::DuplicateController { module, controller } => write!(
                f,
                "module `{module}` lists controller `{controller}` twice in `controllers`"
            ),
            Self::ImportCycle { chain } if chain.len() <= 2 => write!(
                f,
                "module `{}` imports itself",
                chain.first().copied().unwrap_or("?")
            ),
            Self::ImportCycle { chain } => {
                write!(
                    f,
                    "modules import each other in a cycle: {}",
                    chain.join(" -> ")
                )
            }
            Self::DuplicateHook { module, hook } => {
                write!(f, "module `{module}` imports `{hook}` more than once")
            }
            Self::Cors {
                module,
                path,
                method,
                source,
            } => {
                write!(f, "CORS options of module `{module}`, route `")?;
                if let Some(method) = method {
                    write!(f, "{method} ")?;
                }
                write!(f, "{path}`: {source}")
            }
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Cors { source, .. } => Some(&**source),
            _ => None,
        }
    }
}
