#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The macros name `::cors_axum::__private`; this lets the crate's own tests and doctests use them.
#[allow(unused_extern_crates)]
extern crate self as cors_axum;

mod build;
mod context;
mod controller;
mod cors;
mod error;
mod module;
mod provider;
mod table;

pub use build::Application;
pub use context::RequestContext;
pub use controller::{Controller, ControllerInstance};
pub use cors::{
    CorsHandling, CorsLayer, CorsModule, CorsModuleWithOpts, CorsService, CorsServiceRejection,
    ResponseFuture,
};
pub use error::BuildError;
pub use module::{
    Import, Module, ModuleDefinition, ModuleHook, ModuleRoutes, PathRoutes, RouteEntry,
};
pub use provider::{Inject, InjectRejection, ProviderBuilder};
pub use table::{RouteInfo, RouteTable};

/// The framework-independent CORS engine, re-exported from `cors-axum-core`.
pub use cors_axum_core as engine;
pub use cors_axum_core::{
    AllowHeaders, AllowMethods, AllowOrigin, CorsConfigError, CorsOptions, CorsPolicy,
    ExposeHeaders, MaxAge, PreflightStatus, RejectedPreflight,
};

/// Marks an `impl` block (or the struct of a controller with injected fields) as a controller.
///
/// On an `impl` block it registers every method marked `#[route("METHOD")]` or
/// `#[route("METHOD", "path")]`. Arguments: an optional path prefix (`#[controller("users")]`),
/// `providers = [ProviderBuilder::new().use_value(..)]` for controller-level providers, and
/// `cors = CorsOptions::new()...` as a shorthand for a controller-level `CorsOptions` provider.
///
/// On a struct it makes the struct an extractor whose fields are extractors (constructor
/// injection), so that `&self` methods of its controller can be routes.
///
/// Paths use axum's syntax: `{id}` for a parameter and `{*rest}` for a wildcard.
pub use cors_axum_macros::controller;
/// Alias of [`rest_root_module!`] for feature modules, which are imported by other modules.
pub use cors_axum_macros::feature_module;
/// Declares a module: `imports`, `controllers` and `providers_per_rou`.
///
/// The module gets `router()` (an [`axum::Router`]), `routes()` (a [`RouteTable`]) and
/// `application()`; every module can also be imported by another one.
pub use cors_axum_macros::rest_root_module;
/// Alias of [`rest_root_module!`], spelled as in the original framework.
pub use cors_axum_macros::restRootModule;
/// Declares a route inside a [`#[controller]`](controller) `impl` block.
///
/// `#[route("GET")]`, `#[route("POST", "items/{id}")]`, optionally with
/// `providers = [..]` or `cors = CorsOptions::new()...` for route-level values.
/// On its own, outside a controller, it is a compile error.
pub use cors_axum_macros::route;

pub mod guide {
    //! The user guide.
    #![doc = include_str!("../docs/GUIDE.md")]
}

/// Everything a controller or module file usually needs.
pub mod prelude {
    pub use crate::{
        AllowHeaders, AllowMethods, AllowOrigin, CorsLayer, CorsModule, CorsOptions, CorsService,
        ExposeHeaders, Import, Inject, ProviderBuilder, RequestContext, controller, feature_module,
        rest_root_module, restRootModule, route,
    };
    pub use axum::response::{IntoResponse, Response};
}

#[doc(hidden)]
pub mod __private {
    //! Items used by the code that the macros generate. Not a public API.
    pub use crate::controller::{ControllerRef, RouteRegistration, type_id_of};
    pub use crate::module::{IntoImport, ModuleDefinition};
    pub use crate::provider::{IntoProviders, ProviderBuilder, cors_providers, providers_list};
    pub use crate::{Application, BuildError, Controller, ControllerInstance, Module, RouteTable};
    pub use axum;
    pub use inventory;
}
