//! Header names the [`http`] crate does not define, and the values several decisions write.

use http::{HeaderName, HeaderValue};

/// [`Access-Control-Request-Private-Network`](https://wicg.github.io/private-network-access/#headers):
/// sent by Chromium on preflights to a more private network.
pub const ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK: HeaderName =
    HeaderName::from_static("access-control-request-private-network");

/// [`Access-Control-Allow-Private-Network`](https://wicg.github.io/private-network-access/#headers):
/// `true` when [`CorsOptions::private_network`](crate::CorsOptions::private_network) is enabled.
pub const ACCESS_CONTROL_ALLOW_PRIVATE_NETWORK: HeaderName =
    HeaderName::from_static("access-control-allow-private-network");

/// [`Sec-Fetch-Site`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Sec-Fetch-Site):
/// how the request's initiator relates to its target (`same-origin`, `same-site`, `cross-site`,
/// or `none` for a user's own navigation), sent by every current browser; read by
/// [`CorsPolicy::cross_origin`](crate::CorsPolicy::cross_origin).
pub const SEC_FETCH_SITE: HeaderName = HeaderName::from_static("sec-fetch-site");

/// `Access-Control-Allow-Origin: *`.
pub(crate) const STAR: HeaderValue = HeaderValue::from_static("*");
/// `true`, of `Access-Control-Allow-Credentials` and `-Allow-Private-Network`.
pub(crate) const TRUE: HeaderValue = HeaderValue::from_static("true");
/// `Cache-Control: no-store`, of a refused preflight when a granted one is cacheable.
pub(crate) const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
