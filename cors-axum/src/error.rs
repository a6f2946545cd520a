//! The error of building a router from modules.

use std::fmt;

/// Why a router could not be built from its modules.
///
/// Every conflict axum would panic on, every invalid CORS option and every missing provider is
/// reported here, when the router is built, naming the routes at fault and the fix.
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
        /// A handler on it, as `Module::Controller::handler`.
        handler: String,
        /// The path it conflicts with.
        other_path: String,
        /// A handler on that path.
        other_handler: String,
    },
    /// The same path is served by two modules that cannot share it: their CORS or their
    /// layers differ. Modules that share both share a path, with one `OPTIONS` route.
    PathInTwoModules {
        /// The full path.
        path: String,
        /// A route of the first module on it, as `Module::Controller::handler`.
        first: String,
        /// A route of the other module on it.
        second: String,
        /// What differs between the two modules.
        why: &'static str,
    },
    /// A path or prefix is not valid for axum.
    InvalidPath {
        /// The path.
        path: String,
        /// What is wrong and how to write it.
        reason: String,
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
    /// A module imports `CorsModule` more than once.
    CorsModuleTwice {
        /// The importing module.
        module: &'static str,
    },
    /// A module imports `OpenapiModule` more than once.
    #[cfg(feature = "openapi")]
    #[cfg_attr(docsrs, doc(cfg(feature = "openapi")))]
    OpenapiModuleTwice {
        /// The importing module.
        module: &'static str,
    },
    /// CORS options given for a module, controller or route are invalid.
    Cors {
        /// The module whose routes the options apply to.
        module: &'static str,
        /// The route (`GET /items`), where the options are controller- or route-level.
        route: Option<String>,
        /// Where the options were given, such as ``` `CorsModule::with_opts(..)` imported by
        /// `AppModule` ```.
        given_in: String,
        /// The error of the engine, which names the option and the fix; the message of this
        /// error repeats them, so that one line (`{e}`) says what is wrong and how to fix it.
        source: Box<cors_axum_core::CorsConfigError>,
    },
    /// A handler or controller field takes `Inject<T>`, and no value of `T` is provided for
    /// its route.
    MissingProvider {
        /// The route, such as `GET /users`.
        route: String,
        /// The handler, as `Module::Controller::handler`.
        handler: String,
        /// The module of the route.
        module: &'static str,
        /// How the module spells its providers key, `providers_per_rou` or
        /// `providers_per_route`, as its declaration wrote it (the first when it wrote none).
        providers_key: &'static str,
        /// The type that is not provided.
        type_name: &'static str,
    },
    /// A guard declares in `Guard::declare` that it takes `Inject<T>`, and no value of `T` is
    /// provided for a route it guards.
    MissingGuardProvider {
        /// The guard's type.
        guard: &'static str,
        /// The route, such as `GET /users`.
        route: String,
        /// The handler, as `Module::Controller::handler`.
        handler: String,
        /// The module of the route.
        module: &'static str,
        /// How the module spells its providers key, as its declaration wrote it.
        providers_key: &'static str,
        /// The type that is not provided.
        type_name: &'static str,
    },
    /// CORS options were given where no `CorsModule` applies, so they would do nothing.
    CorsOptionsWithoutCors {
        /// Where the options were given, such as ``` `providers_per_rou` of `UsersModule` ```.
        given_in: String,
        /// The module whose routes they were meant for.
        module: &'static str,
    },
    /// An origin decision (`AllowOrigin::async_predicate_with`) takes a value that is not
    /// provided to the module it decides for.
    MissingCorsValue {
        /// The module whose routes the decision is for.
        module: &'static str,
        /// How the module spells its providers key, as its declaration wrote it.
        providers_key: &'static str,
        /// Where the CORS options were given.
        given_in: String,
        /// The type that is not provided.
        type_name: &'static str,
    },
    /// A handler or controller field takes `CorsService` on a route without CORS.
    CorsServiceWithoutCors {
        /// The route, such as `GET /login`.
        route: String,
        /// The handler, as `Module::Controller::handler`.
        handler: String,
        /// The module of the route.
        module: &'static str,
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
            Self::PathConflict {
                path,
                handler,
                other_path,
                other_handler,
            } => write!(
                f,
                "path `{path}` (`{handler}`) conflicts with path `{other_path}` (`{other_handler}`): \
                 the router cannot tell which one a request is for; give the parameters of the same \
                 segment one name, or make the paths differ in a static segment"
            ),
            Self::PathInTwoModules {
                path,
                first,
                second,
                why,
            } => write!(
                f,
                "path `{path}` is served by two modules, by `{first}` and by `{second}`, and {why}; \
                 mount one of the modules under a prefix with `Import::at`, or give both the same \
                 CORS and layers"
            ),
            Self::InvalidPath { path, reason } => write!(f, "invalid path `{path}`: {reason}"),
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
            Self::CorsModuleTwice { module } => {
                write!(f, "module `{module}` imports `CorsModule` more than once")
            }
            #[cfg(feature = "openapi")]
            Self::OpenapiModuleTwice { module } => write!(
                f,
                "module `{module}` imports `OpenapiModule` more than once; import it once, with \
                 `OpenapiModule::with(info)` for settings, or into another module for a second document"
            ),
            _ => self.fmt_wiring(f),
        }
    }
}

impl BuildError {
    /// The messages of the errors in how routes are wired: CORS options, providers.
    fn fmt_wiring(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The reason and the fix are on this line, for a log line printed with `{e}`;
            // `source` keeps the engine's error for reporters that walk the chain.
            Self::Cors {
                module,
                route: Some(route),
                given_in,
                source,
            } => write!(
                f,
                "invalid CORS option `{}` in {given_in}, for route `{route}` of module `{module}`: {}",
                source.field(),
                source.reason()
            ),
            Self::Cors {
                route: None,
                given_in,
                source,
                ..
            } => write!(
                f,
                "invalid CORS option `{}` in {given_in}: {}",
                source.field(),
                source.reason()
            ),
            Self::CorsOptionsWithoutCors { given_in, module } => write!(
                f,
                "CORS options in {given_in} do nothing: no `CorsModule` covers `{module}`; import \
                 `CorsModule` into `{module}` or into a module that imports it, or remove the options"
            ),
            Self::CorsServiceWithoutCors {
                route,
                handler,
                module,
            } => write!(
                f,
                "route `{route}` (`{handler}`) takes `CorsService`, but CORS is off for it; import \
                 `CorsModule` into `{module}` or into a module that imports it, and do not switch it off \
                 for this route"
            ),
            _ => self.fmt_providers(f),
        }
    }

    /// The messages of the errors of values that no level provides.
    fn fmt_providers(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingProvider {
                route,
                handler,
                module,
                providers_key,
                type_name,
            } => write!(
                f,
                "route `{route}` (`{handler}`) takes `Inject<{type_name}>`, but no value of that type is \
                 provided for it; provide one with `{providers_key}: [ProviderBuilder::new().use_value(..)]` \
                 in `{module}`, with `providers = [..]` on the controller or route, or for the whole \
                 application with `.provide(..)` on the application builder"
            ),
            Self::MissingGuardProvider {
                guard,
                route,
                handler,
                module,
                providers_key,
                type_name,
            } => write!(
                f,
                "guard `{guard}` takes `Inject<{type_name}>`, but no value of that type is provided \
                 for route `{route}` (`{handler}`), which it guards; provide one for the whole \
                 application with `.provide(..)` on the application builder, with \
                 `{providers_key}: [ProviderBuilder::new().use_value(..)]` in `{module}`, or with \
                 `providers = [..]` on the controller or route"
            ),
            Self::MissingCorsValue {
                module,
                providers_key,
                given_in,
                type_name,
            } => write!(
                f,
                "the origin decision in {given_in} takes a `{type_name}`, but no value of that type is \
                 provided to `{module}`; provide one with `{providers_key}: \
                 [ProviderBuilder::new().use_value(..)]` in `{module}`, or for the whole application \
                 with `.provide(..)` on the application builder"
            ),
            _ => unreachable!("`Display::fmt` and `fmt_wiring` write the other errors"),
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
