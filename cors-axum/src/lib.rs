#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The macros name `::cors_axum::__private`; this lets the crate's own tests and doctests use them.
#[allow(unused_extern_crates)]
extern crate self as cors_axum;

mod application;
mod context;
mod controller;
pub mod cors;
mod describe;
mod error;
mod guard;
mod handler;
mod live;
mod methods;
mod module;
mod needs;
#[cfg(feature = "openapi")]
#[cfg_attr(docsrs, doc(cfg(feature = "openapi")))]
pub mod openapi;
mod provider;
mod router;
mod table;
mod unwind;

pub use application::Application;
pub use context::RequestContext;
pub use cors::{CorsModule, CorsService};
pub use error::BuildError;
pub use module::Import;
pub use provider::{Inject, ProviderBuilder};

pub use cors_axum_core::{AllowOrigin, CorsOptions};

pub use cors_axum_macros::{controller, feature_module, rest_root_module, restRootModule, route};

/// The parts of an application that are not CORS: the builder, the traits the macros implement,
/// guards and what they declare, the route table, and the rejection of a missing provided value.
pub mod app {
    pub use crate::application::ApplicationBuilder;
    pub use crate::controller::Controller;
    pub use crate::guard::{Guard, GuardDeclaration};
    pub use crate::module::Module;
    pub use crate::provider::InjectRejection;
    pub use crate::table::{RouteInfo, RouteTable};

    pub mod checks;
}

pub mod guide {
    //! The user guide: modules, controllers, providers, guards and layers, CORS options and their
    //! levels, cookies, errors.
    #![doc = include_str!("../docs/GUIDE.md")]

    pub mod security {
        //! The security model.
        #![doc = include_str!("../docs/SECURITY.md")]
    }

    pub mod troubleshooting {
        //! Troubleshooting.
        #![doc = include_str!("../docs/TROUBLESHOOTING.md")]
    }

    pub mod migrating {
        //! Migrating from tower-http.
        #![doc = include_str!("../docs/MIGRATING.md")]
    }
}

/// Everything a controller or module file usually needs.
pub mod prelude {
    pub use crate::cors::{AllowHeaders, AllowMethods, CorsLayer, ExposeHeaders};
    pub use crate::{
        AllowOrigin, CorsModule, CorsOptions, CorsService, Import, Inject, ProviderBuilder,
        RequestContext, controller, feature_module, rest_root_module, restRootModule, route,
    };
    pub use axum::response::{IntoResponse, Response};
}

#[doc(hidden)]
pub mod __private {
    //! What the code that the macros generate names, beside the public items it names by their
    //! public paths. Not a public API.
    pub use crate::__route_operation as route_operation;
    pub use crate::controller::{ControllerEntry, ControllerRef, RouteDef};
    pub use crate::describe::draft::OperationDraft;
    pub use crate::describe::from_types::{DescribeArgument, DescribeOutput};
    pub use crate::guard::guard;
    pub use crate::handler::{RouteSetup, route, route_into};
    pub use crate::module::{DeclaredModule, ModuleDefinition};
    pub use crate::needs::{Declare, FieldNeeds, Needs, Probe};
    pub use crate::provider::IntoProviders;
    pub use axum;
    pub use inventory;
    #[cfg(feature = "openapi")]
    pub use utoipa;

    /// What generated code asks of a state it is generic over, in one name.
    pub trait AnyState: Clone + Send + Sync + 'static {}

    impl<S: Clone + Send + Sync + 'static> AnyState for S {}
}
