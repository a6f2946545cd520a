//! CORS: [`CorsModule`] (generated `OPTIONS` routes and CORS handling for the routes of the
//! module that imports it and of the modules it imports), [`CorsService`] for credentialed
//! responses, [`CorsLayer`] for plain routers, [`CorsReload`] to replace options at run time,
//! and the types they are made of.
//!
//! Every path's CORS is one plan, made once when the router is built (`plan`); every place that
//! answers for the path reads it (`respond`) from its source (`source`), and a reload swaps the
//! table of plans, made the same way, whole.

pub(crate) mod answer;
mod future;
pub(crate) mod imported;
mod layer;
pub(crate) mod module;
pub(crate) mod plan;
pub(crate) mod plan_error;
pub(crate) mod planner;
pub(crate) mod reload;
pub(crate) mod respond;
mod service;
pub(crate) mod source;

#[cfg(feature = "watch")]
#[cfg_attr(docsrs, doc(cfg(feature = "watch")))]
pub use crate::live::watch::{FileWatch, WatchError};
pub(crate) use future::Finish;
pub use future::ResponseFuture;
pub use layer::{Cors, CorsLayer};
pub use module::{CorsModule, CorsModuleWithOpts};
pub use reload::{CorsReload, ReloadError};
pub use service::{CorsService, CorsServiceRejection};

#[cfg(feature = "postgres")]
#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
pub use crate::live::postgres;

pub use cors_axum_core::{
    AllowHeaders, AllowMethods, CorsConfigError, Credentials, ExposeHeaders, MaxAge,
    PreflightStatus, RejectedPreflight,
};

/// The framework-independent CORS engine, re-exported from `cors-axum-core`.
pub use cors_axum_core as engine;

/// The `cookie` crate, whose `Cookie` [`CorsService::set_cookie_with`] takes, at the version
/// this crate uses (feature `cookie`).
#[cfg(feature = "cookie")]
#[cfg_attr(docsrs, doc(cfg(feature = "cookie")))]
pub use cookie;

/// What an [asynchronous origin decision](crate::AllowOrigin::async_predicate) is given, and
/// the error it may fail with.
pub use cors_axum_core::{BoxError, OriginQuery};

/// Allowed origins held in memory and changed while requests are served (tenants' domains
/// from a database): name it with `AllowOrigin::and_set`, `CorsOptions::origin_set` or
/// `"origin_set"` in an options file.
pub use cors_axum_core::OriginSet;

/// Each tenant's own allowed origins, granted only on that tenant's requests (by default, those
/// for the tenant's host), and what tells a request's tenant: name it with
/// `CorsOptions::tenant_origins` or `"tenant_origins"` in an options file, and provide it with
/// `.provide(set)`.
pub use cors_axum_core::{TenantKey, TenantOrigins};
