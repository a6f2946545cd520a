#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod actual;
mod allow_headers;
mod allow_methods;
mod allow_origin;
pub mod browser;
mod cache_control;
mod credentials;
mod cross_origin;
mod error;
mod expose_headers;
pub mod header;
mod header_list;
mod intern;
mod list_option;
mod max_age;
mod options;
mod origin;
mod origin_error;
mod origin_set;
mod policy;
mod preflight;
mod provided;
mod public_suffix;
mod refusal;
mod request;
mod vary;

pub use actual::{ActualDecision, ResponseCredentials};
pub use allow_headers::AllowHeaders;
pub use allow_methods::AllowMethods;
pub use allow_origin::{AllowOrigin, BoxError, LookupFuture, OriginLookup, OriginQuery};
pub use cache_control::PreflightCacheControl;
pub use credentials::Credentials;
pub use error::CorsConfigError;
pub use expose_headers::ExposeHeaders;
pub use max_age::MaxAge;
pub use options::{CorsOptions, PreflightStatus, RejectedPreflight};
pub use origin_set::OriginSet;
pub use policy::CorsPolicy;
pub use preflight::PreflightDecision;
pub use provided::ProvidedValue;
pub use refusal::Refusal;
pub use request::{Classification, CorsRequest, OriginAnswer, RequestKind};
pub use vary::merge_vary;
