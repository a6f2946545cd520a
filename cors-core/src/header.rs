//! Header names the [`http`] crate does not define.

use http::HeaderName;

/// [`Access-Control-Request-Private-Network`](https://wicg.github.io/private-network-access/#headers):
/// sent by Chromium on preflights to a more private network.
pub const ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK: HeaderName =
    HeaderName::from_static("access-control-request-private-network");

/// [`Access-Control-Allow-Private-Network`](https://wicg.github.io/private-network-access/#headers):
/// `true` when [`CorsOptions::private_network`](crate::CorsOptions::private_network) is enabled.
pub const ACCESS_CONTROL_ALLOW_PRIVATE_NETWORK: HeaderName =
    HeaderName::from_static("access-control-allow-private-network");
