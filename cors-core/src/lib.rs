//! A framework-independent CORS engine on the [`http`] crate: validated options, precompiled
//! header values, and no heap allocation per request for static policies.
//!
//! 1. Write [`CorsOptions`] (or deserialize them, with the default `serde` feature); merge the
//!    levels of an application with [`CorsOptions::merge`].
//! 2. Compile them once into a [`CorsPolicy`] with [`CorsPolicy::from_options`] or
//!    [`CorsPolicy::for_route`]; a configuration that cannot work (credentials with `*`, an
//!    origin with a path, an invalid header name…) is a [`CorsConfigError`] naming the option and
//!    the fix.
//! 3. Per request, [`CorsPolicy::classify`] it, then answer a preflight with
//!    [`CorsPolicy::preflight`], or run the handler and add headers to its response with
//!    [`CorsPolicy::actual`] (also for non-CORS requests, which may need `Vary: Origin`).
//!    Middleware looks the request's CORS headers up once with [`CorsRequest`] and answers with
//!    [`CorsPolicy::answer_preflight`] or [`CorsPolicy::actual_captured`].
//!
//! ```
//! use cors_axum_core::{CorsOptions, CorsPolicy, RequestKind, ResponseCredentials};
//! use http::{HeaderMap, HeaderValue, Method};
//!
//! let policy = CorsPolicy::for_route(
//!     &CorsOptions::new()
//!         .origin(["https://example.com", "https://*.example.com"])
//!         .expose_headers(["x-request-id"])
//!         .credentials(true),
//!     &[Method::GET, Method::HEAD],
//! )?;
//!
//! // An actual request from an allowed subdomain.
//! let mut request = HeaderMap::new();
//! request.insert("origin", HeaderValue::from_static("https://app.example.com"));
//! assert_eq!(CorsPolicy::classify(&Method::GET, &request), RequestKind::Actual);
//! let mut response = HeaderMap::new();
//! response.insert("vary", HeaderValue::from_static("accept-encoding"));
//! let outcome = policy.actual(&request, &mut response, ResponseCredentials::Policy);
//! assert!(outcome.origin_allowed);
//! assert_eq!(response["access-control-allow-origin"], "https://app.example.com");
//! assert_eq!(response["access-control-allow-credentials"], "true");
//! assert_eq!(response["access-control-expose-headers"], "x-request-id");
//! assert_eq!(response["vary"], "accept-encoding, Origin");
//!
//! // A look-alike origin gets no CORS headers, but still `Vary: Origin`.
//! request.insert("origin", HeaderValue::from_static("https://example.com.evil.net"));
//! let mut response = HeaderMap::new();
//! assert!(!policy.actual(&request, &mut response, ResponseCredentials::Policy).origin_allowed);
//! assert!(response.get("access-control-allow-origin").is_none());
//! assert_eq!(response["vary"], "Origin");
//! # Ok::<(), cors_axum_core::CorsConfigError>(())
//! ```
//!
//! The default policy allows any origin with `*`:
//!
//! ```
//! use cors_axum_core::{CorsOptions, CorsPolicy, ResponseCredentials};
//! use http::{HeaderMap, HeaderValue};
//!
//! let policy = CorsPolicy::from_options(&CorsOptions::new())?;
//! let mut request = HeaderMap::new();
//! request.insert("origin", HeaderValue::from_static("https://anywhere.example"));
//! let mut response = HeaderMap::new();
//! policy.actual(&request, &mut response, ResponseCredentials::Policy);
//! assert_eq!(response["access-control-allow-origin"], "*");
//! assert!(response.get("vary").is_none());
//!
//! // A handler that sets a cookie forces a credentialed answer: the concrete origin, never `*`.
//! let mut response = HeaderMap::new();
//! let outcome = policy.actual(&request, &mut response, ResponseCredentials::Include);
//! assert!(outcome.reflected_any_origin_with_credentials);
//! assert_eq!(response["access-control-allow-origin"], "https://anywhere.example");
//! assert_eq!(response["access-control-allow-credentials"], "true");
//! assert_eq!(response["vary"], "Origin");
//! # Ok::<(), cors_axum_core::CorsConfigError>(())
//! ```
//!
//! Misconfigurations are refused when compiling:
//!
//! ```
//! use cors_axum_core::{CorsOptions, CorsPolicy};
//!
//! let err = CorsPolicy::from_options(&CorsOptions::new().credentials(true)).unwrap_err();
//! assert_eq!(err.field(), "credentials");
//! assert!(err.to_string().starts_with("invalid CORS option `credentials`: `credentials(true)` cannot be combined with any origin"));
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]

mod allow_headers;
mod allow_methods;
mod allow_origin;
mod error;
mod expose_headers;
mod header_list;
mod intern;
mod max_age;
mod options;
mod origin;
mod policy;
mod request;
mod vary;

pub use allow_headers::AllowHeaders;
pub use allow_methods::AllowMethods;
pub use allow_origin::AllowOrigin;
pub use error::CorsConfigError;
pub use expose_headers::ExposeHeaders;
pub use max_age::MaxAge;
pub use options::{CorsOptions, PreflightStatus, RejectedPreflight};
pub use origin::CapturedOrigin;
pub use policy::{ActualOutcome, CorsPolicy, PreflightOutcome, RequestKind, ResponseCredentials};
pub use request::CorsRequest;

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
