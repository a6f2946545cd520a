//! Header names the [`http`] crate does not define, and the values several decisions write.

use http::{HeaderMap, HeaderName, HeaderValue};

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

/// Removes the `Access-Control-*` response headers from `headers`: on an answer under a CORS
/// policy they are the policy's to write, so that a refused request is never granted by a
/// header set elsewhere (a handler, an upstream it proxies). Looks at the names first, which
/// costs less than a lookup per CORS header; removes only when one is there.
///
/// ```
/// use cors_axum_core::remove_cors_headers;
/// use http::{HeaderMap, HeaderValue};
///
/// let mut headers = HeaderMap::new();
/// headers.insert("content-type", HeaderValue::from_static("text/plain"));
/// headers.insert("access-control-allow-origin", HeaderValue::from_static("*"));
/// headers.insert("access-control-allow-credentials", HeaderValue::from_static("true"));
/// remove_cors_headers(&mut headers);
/// assert_eq!(headers.len(), 1);
/// assert!(headers.contains_key("content-type"));
/// ```
#[inline]
pub fn remove_cors_headers(headers: &mut HeaderMap) {
    if headers.keys().any(is_cors_response_header) {
        remove_present(headers);
    }
}

/// Whether `name` is a CORS response header.
fn is_cors_response_header(name: &HeaderName) -> bool {
    name.as_str().starts_with("access-control-")
}

#[cold]
fn remove_present(headers: &mut HeaderMap) {
    let present: Vec<HeaderName> = headers
        .keys()
        .filter(|name| is_cors_response_header(name))
        .cloned()
        .collect();
    for name in present {
        headers.remove(name);
    }
}
