//! [`CorsRequest`]: a request's CORS headers, looked up once.

use http::header::{ACCESS_CONTROL_REQUEST_METHOD, ORIGIN};
use http::{HeaderMap, HeaderName, HeaderValue, Method};

use crate::{CapturedOrigin, RequestKind};

/// The lines of one request header: none, one, or several (a header a CORS request must send at
/// most once is never granted when sent several times).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Lines<'a> {
    Absent,
    One(&'a HeaderValue),
    /// Several lines; the first one.
    Several(&'a HeaderValue),
}

impl<'a> Lines<'a> {
    pub(crate) fn of(headers: &'a HeaderMap, name: &HeaderName) -> Self {
        let mut values = headers.get_all(name).iter();
        match (values.next(), values.next()) {
            (None, _) => Lines::Absent,
            (Some(value), None) => Lines::One(value),
            (Some(first), Some(_)) => Lines::Several(first),
        }
    }

    pub(crate) fn is_present(self) -> bool {
        !matches!(self, Lines::Absent)
    }
}

/// A request's CORS headers, looked up once: what kind of request it is, and what answering it
/// needs.
///
/// Middleware builds one per request and branches on [`kind`](CorsRequest::kind): a preflight is
/// answered with [`CorsPolicy::answer_preflight`](crate::CorsPolicy::answer_preflight); any other
/// request goes to the handler, its origin kept with
/// [`capture_origin`](CorsRequest::capture_origin) for
/// [`CorsPolicy::actual_captured`](crate::CorsPolicy::actual_captured). Each header is looked up
/// once, where [`CorsPolicy::classify`](crate::CorsPolicy::classify) followed by
/// [`CorsPolicy::preflight`](crate::CorsPolicy::preflight) looks some up twice.
///
/// ```
/// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, RequestKind};
/// use http::{HeaderMap, HeaderValue, Method};
///
/// let policy = CorsPolicy::from_options(&CorsOptions::new().origin("https://example.com"))?;
/// let mut headers = HeaderMap::new();
/// headers.insert("origin", HeaderValue::from_static("https://example.com"));
/// headers.insert("access-control-request-method", HeaderValue::from_static("PUT"));
///
/// let request = CorsRequest::new(&Method::OPTIONS, &headers);
/// assert_eq!(request.kind(), RequestKind::Preflight);
/// let mut response = HeaderMap::new();
/// assert!(policy.answer_preflight(&request, &mut response).allowed);
/// assert_eq!(response["access-control-allow-origin"], "https://example.com");
///
/// let request = CorsRequest::new(&Method::PUT, &headers);
/// assert_eq!(request.kind(), RequestKind::Actual);
/// assert_eq!(request.capture_origin().value().unwrap(), "https://example.com");
/// # Ok::<(), cors_axum_core::CorsConfigError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CorsRequest<'a> {
    headers: &'a HeaderMap,
    origin: Lines<'a>,
    /// `Access-Control-Request-Method`, looked up only for `OPTIONS` requests with an `Origin`.
    requested_method: Lines<'a>,
}

impl<'a> CorsRequest<'a> {
    /// Looks up the `Origin` header and, for an `OPTIONS` request with one,
    /// `Access-Control-Request-Method`.
    pub fn new(method: &Method, headers: &'a HeaderMap) -> Self {
        let origin = Lines::of(headers, &ORIGIN);
        let requested_method = if origin.is_present() && method == Method::OPTIONS {
            Lines::of(headers, &ACCESS_CONTROL_REQUEST_METHOD)
        } else {
            Lines::Absent
        };
        Self {
            headers,
            origin,
            requested_method,
        }
    }

    /// Not CORS (no `Origin` header), an actual CORS request, or a preflight (`OPTIONS` with
    /// `Origin` and `Access-Control-Request-Method`).
    pub fn kind(&self) -> RequestKind {
        if !self.origin.is_present() {
            RequestKind::NotCors
        } else if self.requested_method.is_present() {
            RequestKind::Preflight
        } else {
            RequestKind::Actual
        }
    }

    /// The `Origin` header, kept for answering after the request has been handed on.
    pub fn capture_origin(&self) -> CapturedOrigin {
        CapturedOrigin::from_lines(self.origin)
    }

    /// The `Access-Control-Request-Method` of a preflight, when it has exactly one: the method
    /// of the request the browser asks to make, to pick the policy of that route.
    pub fn requested_method(&self) -> Option<&'a HeaderValue> {
        match self.requested_method {
            Lines::One(value) => Some(value),
            Lines::Absent | Lines::Several(_) => None,
        }
    }

    pub(crate) fn headers(&self) -> &'a HeaderMap {
        self.headers
    }

    pub(crate) fn origin_lines(&self) -> Lines<'a> {
        self.origin
    }
}
