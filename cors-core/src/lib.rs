#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod actual;
mod allow_headers;
mod allow_methods;
mod allow_origin;
pub mod browser;
mod error;
mod expose_headers;
mod header_list;
mod intern;
mod max_age;
mod options;
mod origin;
mod policy;
mod preflight;
mod refusal;
mod request;
mod vary;

pub use actual::{ActualDecision, ResponseCredentials};
pub use allow_headers::AllowHeaders;
pub use allow_methods::AllowMethods;
pub use allow_origin::{AllowOrigin, BoxError, LookupFuture, OriginLookup, OriginQuery};
pub use error::CorsConfigError;
pub use expose_headers::ExposeHeaders;
pub use max_age::MaxAge;
pub use options::{CorsOptions, PreflightStatus, RejectedPreflight};
pub use policy::CorsPolicy;
pub use preflight::PreflightDecision;
pub use refusal::Refusal;
pub use request::{CorsRequest, OriginAnswer, RequestKind};
pub use vary::merge_vary;

/// Header names the [`http`] crate does not define.
pub mod header {
    use http::HeaderName;

    /// [`Access-Control-Request-Private-Network`](https://wicg.github.io/private-network-access/#headers):
    /// sent by Chromium on preflights to a more private network.
    pub const ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK: HeaderName =
        HeaderName::from_static("access-control-request-private-network");

    /// [`Access-Control-Allow-Private-Network`](https://wicg.github.io/private-network-access/#headers):
    /// `true` when [`CorsOptions::private_network`](crate::CorsOptions::private_network) is enabled.
    pub const ACCESS_CONTROL_ALLOW_PRIVATE_NETWORK: HeaderName =
        HeaderName::from_static("access-control-allow-private-network");
}
