//! CORS: [`CorsModule`] (generated `OPTIONS` routes and CORS handling for the routes of the
//! module that imports it and of the modules it imports), [`CorsService`] for credentialed
//! responses, [`CorsLayer`] for plain routers, [`CorsReload`] to replace options at run time,
//! and the types they are made of.
//!
//! Every path's CORS is one plan, made once when the router is built (`plan`); every place that
//! answers for the path reads it (`respond`) from its source (`source`), and a reload swaps the
//! table of plans, made the same way, whole.

pub(crate) mod answer;
mod bind;
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
mod watch;

pub use future::ResponseFuture;
pub use layer::{CorsHandling, CorsLayer};
pub use module::{CorsModule, CorsModuleWithOpts};
pub use reload::{CorsReload, ReloadError};
pub use service::{CorsService, CorsServiceRejection};
#[cfg(feature = "watch")]
#[cfg_attr(docsrs, doc(cfg(feature = "watch")))]
pub use watch::{FileWatch, WatchError};

/// What an [asynchronous origin decision](crate::AllowOrigin::async_predicate) is given, and
/// the error it may fail with.
pub use cors_axum_core::{BoxError, OriginQuery};
