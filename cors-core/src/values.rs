//! Header values that several decisions write.

use http::HeaderValue;

/// `Access-Control-Allow-Origin: *`.
pub(crate) const STAR: HeaderValue = HeaderValue::from_static("*");
/// `true`, of `Access-Control-Allow-Credentials` and `-Allow-Private-Network`.
pub(crate) const TRUE: HeaderValue = HeaderValue::from_static("true");
/// `Cache-Control: no-store`, of a refused preflight when a granted one is cacheable.
pub(crate) const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
