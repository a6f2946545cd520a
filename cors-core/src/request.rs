//! [`CorsRequest`]: a request's CORS headers, looked up once, and what kind of request it is.

use http::header::{
    ACCESS_CONTROL_REQUEST_HEADERS, ACCESS_CONTROL_REQUEST_METHOD, CONNECTION, ORIGIN, UPGRADE,
    ValueIter,
};
use http::{Extensions, HeaderMap, HeaderName, HeaderValue, Method, Uri};

use crate::header::ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK;

/// The lines of one request header: none, one, or several (a header a CORS request must send at
/// most once is never granted when sent several times).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Lines<'a> {
    Absent,
    One(&'a HeaderValue),
    Several,
}

impl<'a> Lines<'a> {
    #[inline]
    pub(crate) fn of(headers: &'a HeaderMap, name: &HeaderName) -> Self {
        let mut values = headers.get_all(name).iter();
        match (values.next(), values.next()) {
            (None, _) => Lines::Absent,
            (Some(value), None) => Lines::One(value),
            (Some(_), Some(_)) => Lines::Several,
        }
    }

    pub(crate) fn is_present(self) -> bool {
        !matches!(self, Lines::Absent)
    }

    /// The lines with one more, `value`.
    fn and(self, value: &'a HeaderValue) -> Self {
        match self {
            Lines::Absent => Lines::One(value),
            Lines::One(_) | Lines::Several => Lines::Several,
        }
    }
}

/// A request's classification by [`CorsRequest::new`], owned: see
/// [`CorsRequest::classification`] and [`CorsRequest::resumed`].
#[derive(Clone, Debug)]
pub struct Classification {
    origin: OwnedLines,
    requested_method: OwnedLines,
}

/// [`Lines`], owned.
#[derive(Clone, Debug)]
enum OwnedLines {
    Absent,
    One(HeaderValue),
    Several,
}

impl OwnedLines {
    fn of(lines: Lines<'_>) -> Self {
        match lines {
            Lines::Absent => OwnedLines::Absent,
            Lines::One(value) => OwnedLines::One(value.clone()),
            Lines::Several => OwnedLines::Several,
        }
    }

    fn lines(&self) -> Lines<'_> {
        match self {
            OwnedLines::Absent => Lines::Absent,
            OwnedLines::One(value) => Lines::One(value),
            OwnedLines::Several => Lines::Several,
        }
    }
}

/// What kind of request this is, for CORS: [`CorsRequest::kind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RequestKind {
    /// No `Origin` header: not a CORS request. It goes to the handler like any other; its
    /// response may still need `Vary: Origin` ([`CorsPolicy::actual`](crate::CorsPolicy::actual)).
    NotCors,
    /// A CORS request to be handled normally, with CORS headers added to its response
    /// ([`CorsPolicy::actual`](crate::CorsPolicy::actual)). This includes `OPTIONS` requests
    /// that are not preflights.
    Actual,
    /// A preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`, answered by
    /// [`CorsPolicy::preflight`](crate::CorsPolicy::preflight) without running the handler.
    Preflight,
}

/// A request's CORS headers, looked up once: the first step of the engine's one path,
/// **classify → decide → write**.
///
/// Build one per request with [`CorsRequest::new`] and branch on [`kind`](CorsRequest::kind):
/// a [`Preflight`](RequestKind::Preflight) is decided by
/// [`CorsPolicy::preflight`](crate::CorsPolicy::preflight) and answered at once; any other
/// request is decided by [`CorsPolicy::actual`](crate::CorsPolicy::actual) before it goes to the
/// handler, and the decision, which owns what it needs, writes the CORS headers into the
/// handler's response later.
///
/// `Origin` is looked up for every request; `Access-Control-Request-Method` only for `OPTIONS`
/// requests that have an `Origin`.
///
/// ```
/// use cors_axum_core::{CorsRequest, RequestKind};
/// use http::{HeaderMap, HeaderValue, Method};
///
/// let mut headers = HeaderMap::new();
/// assert_eq!(CorsRequest::new(&Method::GET, &headers).kind(), RequestKind::NotCors);
///
/// headers.insert("origin", HeaderValue::from_static("https://example.com"));
/// assert_eq!(CorsRequest::new(&Method::GET, &headers).kind(), RequestKind::Actual);
/// assert_eq!(CorsRequest::new(&Method::OPTIONS, &headers).kind(), RequestKind::Actual);
///
/// headers.insert("access-control-request-method", HeaderValue::from_static("PUT"));
/// let request = CorsRequest::new(&Method::OPTIONS, &headers);
/// assert_eq!(request.kind(), RequestKind::Preflight);
/// assert_eq!(request.origin().unwrap(), "https://example.com");
/// assert_eq!(request.requested_method().unwrap(), "PUT");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CorsRequest<'a> {
    method: &'a Method,
    headers: &'a HeaderMap,
    uri: Option<&'a Uri>,
    extensions: Option<&'a Extensions>,
    /// The path the client sent, where it is not the URI's.
    path_as_sent: Option<&'a str>,
    origin: Lines<'a>,
    /// `Access-Control-Request-Method`, looked up only for `OPTIONS` requests with an `Origin`.
    requested_method: Lines<'a>,
    /// The answer of an asynchronous origin decision, once made.
    origin_answer: Option<OriginAnswer<'a>>,
    /// What the one pass over an `OPTIONS` request's headers found of a preflight's other
    /// headers; `None` where they are looked up when asked for.
    preflight: Option<PreflightHeaders<'a>>,
}

/// A preflight's headers besides `Origin` and `Access-Control-Request-Method`.
#[derive(Clone, Copy, Debug)]
struct PreflightHeaders<'a> {
    requested_headers: Lines<'a>,
    /// The first `Access-Control-Request-Private-Network`.
    private_network: Option<&'a HeaderValue>,
}

/// The answer of an asynchronous origin decision
/// ([`AllowOrigin::async_predicate`](crate::AllowOrigin::async_predicate)), given to the engine
/// with [`CorsRequest::with_origin_answer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OriginAnswer<'a> {
    /// The origin is allowed.
    Allowed,
    /// The origin is not allowed.
    Refused,
    /// The decision failed or took too long: answered as a refusal, with this reason.
    Failed(&'a str),
}

impl<'a> CorsRequest<'a> {
    /// Looks up the `Origin` header; for an `OPTIONS` request, instead, reads its headers in
    /// one pass for `Origin` and the headers of a preflight.
    // Inlined and built in one place, so that the request is built where the caller keeps it
    // (with its URI, say), rather than built here, then moved.
    #[inline]
    pub fn new(method: &'a Method, headers: &'a HeaderMap) -> Self {
        let mut request = Self {
            method,
            headers,
            uri: None,
            extensions: None,
            path_as_sent: None,
            origin: Lines::Absent,
            requested_method: Lines::Absent,
            origin_answer: None,
            preflight: None,
        };
        if method == Method::OPTIONS {
            request.read_options();
        } else {
            request.origin = Lines::of(headers, &ORIGIN);
        }
        request
    }

    /// Reads an `OPTIONS` request's headers in one pass, which costs less than looking up the
    /// four a preflight reads (one of them a name `http` does not know, hashed byte by byte).
    #[inline]
    fn read_options(&mut self) {
        let mut origin = Lines::Absent;
        let mut requested_method = Lines::Absent;
        let mut requested_headers = Lines::Absent;
        let mut private_network = None;
        for (name, value) in self.headers {
            if *name == ORIGIN {
                origin = origin.and(value);
            } else if *name == ACCESS_CONTROL_REQUEST_METHOD {
                requested_method = requested_method.and(value);
            } else if *name == ACCESS_CONTROL_REQUEST_HEADERS {
                requested_headers = requested_headers.and(value);
            } else if private_network.is_none() && *name == ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK {
                private_network = Some(value);
            }
        }
        if origin.is_present() {
            self.requested_method = requested_method;
        }
        self.origin = origin;
        self.preflight = Some(PreflightHeaders {
            requested_headers,
            private_network,
        });
    }

    /// The request with its URI, for [request-aware origin
    /// decisions](crate::AllowOrigin::request_predicate) that decide by path or host.
    pub fn with_uri(mut self, uri: &'a Uri) -> Self {
        self.uri = Some(uri);
        self
    }

    /// The request with its extensions, for a [`TenantKey`](crate::TenantKey) that reads the
    /// tenant an earlier layer found (cors-axum gives them).
    pub fn with_extensions(mut self, extensions: &'a Extensions) -> Self {
        self.extensions = Some(extensions);
        self
    }

    /// The request with the path its client sent, where the URI given with
    /// [`with_uri`](Self::with_uri) is not it: under axum's `Router::nest`, the nested router
    /// sees the path without its prefix, and the client's is in the request's `OriginalUri`.
    /// [Cross-origin bypass paths](crate::CorsOptions::cross_origin_bypass) are matched against
    /// it; origin decisions still see the URI.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest};
    /// use http::{HeaderMap, HeaderValue, Method, Uri};
    ///
    /// let policy = CorsPolicy::from_options(
    ///     &CorsOptions::new().protect_cross_origin(true).cross_origin_bypass(["/api/hooks/*"]),
    /// )?;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
    /// let stripped = Uri::from_static("/hooks/github");
    /// let request = CorsRequest::new(&Method::POST, &headers).with_uri(&stripped);
    /// assert!(policy.cross_origin(&request, None).is_err());
    /// let request = request.with_path_as_sent("/api/hooks/github");
    /// assert!(policy.cross_origin(&request, None).is_ok());
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn with_path_as_sent(mut self, path: &'a str) -> Self {
        self.path_as_sent = Some(path);
        self
    }

    /// The path the client sent: the one given with
    /// [`with_path_as_sent`](Self::with_path_as_sent), or else the URI's.
    pub fn path_as_sent(&self) -> Option<&'a str> {
        self.path_as_sent.or_else(|| self.uri.map(Uri::path))
    }

    /// The request with the answer of the asynchronous origin decision that
    /// [`CorsPolicy::origin_lookup`](crate::CorsPolicy::origin_lookup) asked for.
    pub fn with_origin_answer(mut self, answer: OriginAnswer<'a>) -> Self {
        self.origin_answer = Some(answer);
        self
    }

    /// The request's method.
    pub fn method(&self) -> &'a Method {
        self.method
    }

    /// The request's URI, when the caller gave it ([`with_uri`](Self::with_uri)).
    pub fn uri(&self) -> Option<&'a Uri> {
        self.uri
    }

    /// The request's headers.
    pub fn headers(&self) -> &'a HeaderMap {
        self.headers
    }

    /// The request's extensions, when the caller gave them
    /// ([`with_extensions`](Self::with_extensions)).
    pub fn extensions(&self) -> Option<&'a Extensions> {
        self.extensions
    }

    pub(crate) fn origin_answer(&self) -> Option<OriginAnswer<'a>> {
        self.origin_answer
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

    /// The `Origin` header when the request has exactly one, as sent (for logs, or to pick a
    /// policy).
    pub fn origin(&self) -> Option<&'a HeaderValue> {
        match self.origin {
            Lines::One(value) => Some(value),
            Lines::Absent | Lines::Several => None,
        }
    }

    /// The `Access-Control-Request-Method` of a preflight when it has exactly one: the method
    /// of the request the browser asks to make, to pick the policy of that route.
    pub fn requested_method(&self) -> Option<&'a HeaderValue> {
        match self.requested_method {
            Lines::One(value) => Some(value),
            Lines::Absent | Lines::Several => None,
        }
    }

    /// Whether this is an HTTP/1.1 WebSocket handshake (RFC 6455) as a server may upgrade it:
    /// a `GET` whose `Upgrade` lists `websocket` and whose `Connection` contains `upgrade`,
    /// both case-insensitively. Its origin is decided by
    /// [`CorsPolicy::websocket`](crate::CorsPolicy::websocket). (An HTTP/2 handshake is an
    /// extended `CONNECT`, RFC 8441, which the caller recognises from its `:protocol`.)
    ///
    /// `Connection` is read as axum's `WebSocketUpgrade` reads it, which upgrades when the
    /// value *contains* `upgrade` anywhere (`keep-alive-upgrade`, `upgradex`, `Upgrade;q=1`):
    /// every request such a server would upgrade is recognised, so none escapes the origin
    /// decision, at the price of also deciding on a few requests a stricter server would not
    /// upgrade. Looks `Upgrade` up first on each call: a request without it costs one lookup.
    ///
    /// ```
    /// use cors_axum_core::CorsRequest;
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("upgrade", HeaderValue::from_static("WebSocket"));
    /// headers.insert("connection", HeaderValue::from_static("keep-alive, Upgrade"));
    /// assert!(CorsRequest::new(&Method::GET, &headers).is_websocket_upgrade());
    /// assert!(!CorsRequest::new(&Method::POST, &headers).is_websocket_upgrade());
    /// headers.insert("connection", HeaderValue::from_static("keep-alive-upgrade"));
    /// assert!(CorsRequest::new(&Method::GET, &headers).is_websocket_upgrade());
    /// ```
    pub fn is_websocket_upgrade(&self) -> bool {
        self.method == Method::GET
            && lists_token(self.headers, &UPGRADE, b"websocket")
            && contains_ignoring_case(self.headers, &CONNECTION, b"upgrade")
    }

    /// What [`new`](Self::new) looked up, owned (each value a clone sharing the request's
    /// bytes): kept while the request waits for an asynchronous origin decision, so that it is
    /// resumed with [`resumed`](Self::resumed) rather than classified again.
    pub fn classification(&self) -> Classification {
        Classification {
            origin: OwnedLines::of(self.origin),
            requested_method: OwnedLines::of(self.requested_method),
        }
    }

    /// The request as [`new`](Self::new) classified it, from what
    /// [`classification`](Self::classification) kept, looking no header up again. `headers`
    /// and `method` are the request's own: those the classification was taken from.
    ///
    /// ```
    /// use cors_axum_core::{CorsRequest, RequestKind};
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("origin", HeaderValue::from_static("https://example.com"));
    /// let kept = CorsRequest::new(&Method::GET, &headers).classification();
    /// let request = CorsRequest::resumed(&Method::GET, &headers, &kept);
    /// assert_eq!(request.kind(), RequestKind::Actual);
    /// assert_eq!(request.origin().unwrap(), "https://example.com");
    /// ```
    pub fn resumed(
        method: &'a Method,
        headers: &'a HeaderMap,
        classification: &'a Classification,
    ) -> Self {
        Self {
            method,
            headers,
            uri: None,
            extensions: None,
            path_as_sent: None,
            origin: classification.origin.lines(),
            requested_method: classification.requested_method.lines(),
            origin_answer: None,
            preflight: None,
        }
    }

    pub(crate) fn origin_lines(&self) -> Lines<'a> {
        self.origin
    }

    pub(crate) fn requested_method_lines(&self) -> Lines<'a> {
        self.requested_method
    }

    /// The lines of `Access-Control-Request-Headers`, as the one pass found them, or looked up
    /// now.
    pub(crate) fn requested_headers(&self) -> RequestedHeaders<'a> {
        let lines = match &self.preflight {
            Some(preflight) => preflight.requested_headers,
            None => Lines::of(self.headers, &ACCESS_CONTROL_REQUEST_HEADERS),
        };
        RequestedHeaders {
            headers: self.headers,
            lines,
        }
    }

    /// Whether the request asks for private network access
    /// (`Access-Control-Request-Private-Network: true`, its first line).
    pub(crate) fn requests_private_network(&self) -> bool {
        let first = match &self.preflight {
            Some(preflight) => preflight.private_network,
            None => self.headers.get(ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK),
        };
        first.is_some_and(|value| value.as_bytes() == b"true")
    }
}

/// Whether a comma-separated header (every line of it) has `token`, compared
/// case-insensitively.
fn lists_token(headers: &HeaderMap, name: &HeaderName, token: &[u8]) -> bool {
    headers.get_all(name).iter().any(|line| {
        line.as_bytes()
            .split(|&b| b == b',')
            .any(|element| element.trim_ascii().eq_ignore_ascii_case(token))
    })
}

/// Whether any line of header `name` contains `needle` (lower case), compared
/// case-insensitively, anywhere in the line.
fn contains_ignoring_case(headers: &HeaderMap, name: &HeaderName, needle: &[u8]) -> bool {
    headers.get_all(name).iter().any(|line| {
        line.as_bytes()
            .windows(needle.len())
            .any(|window| window.eq_ignore_ascii_case(needle))
    })
}

/// The lines of `Access-Control-Request-Headers`, to be walked as often as needed: one line
/// (as browsers send it) without looking it up again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RequestedHeaders<'a> {
    headers: &'a HeaderMap,
    lines: Lines<'a>,
}

impl<'a> IntoIterator for RequestedHeaders<'a> {
    type Item = &'a HeaderValue;
    type IntoIter = RequestedHeadersIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        match self.lines {
            Lines::Absent => RequestedHeadersIter::One(None),
            Lines::One(line) => RequestedHeadersIter::One(Some(line)),
            Lines::Several => RequestedHeadersIter::Several(
                self.headers
                    .get_all(ACCESS_CONTROL_REQUEST_HEADERS)
                    .into_iter(),
            ),
        }
    }
}

/// The iterator of [`RequestedHeaders`].
pub(crate) enum RequestedHeadersIter<'a> {
    One(Option<&'a HeaderValue>),
    Several(ValueIter<'a, HeaderValue>),
}

impl<'a> Iterator for RequestedHeadersIter<'a> {
    type Item = &'a HeaderValue;

    fn next(&mut self) -> Option<&'a HeaderValue> {
        match self {
            RequestedHeadersIter::One(line) => line.take(),
            RequestedHeadersIter::Several(lines) => lines.next(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(headers: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn one_pass_over_an_options_request_reads_what_lookups_would() {
        let headers = map(&[
            ("accept", "*/*"),
            ("access-control-request-headers", "x-a"),
            ("origin", "https://a.example"),
            ("access-control-request-method", "PUT"),
            ("access-control-request-headers", "x-b"),
            ("access-control-request-private-network", "true"),
        ]);
        let request = CorsRequest::new(&Method::OPTIONS, &headers);
        assert_eq!(request.kind(), RequestKind::Preflight);
        assert_eq!(request.origin().unwrap(), "https://a.example");
        assert_eq!(request.requested_method().unwrap(), "PUT");
        let lines: Vec<_> = request.requested_headers().into_iter().collect();
        assert_eq!(lines, ["x-a", "x-b"]);
        assert!(request.requests_private_network());
        // The same request classified by lookups, as after an asynchronous decision.
        let kept = request.classification();
        let resumed = CorsRequest::resumed(&Method::OPTIONS, &headers, &kept);
        assert_eq!(resumed.kind(), RequestKind::Preflight);
        assert_eq!(resumed.requested_method().unwrap(), "PUT");
        let lines: Vec<_> = resumed.requested_headers().into_iter().collect();
        assert_eq!(lines, ["x-a", "x-b"]);
        assert!(resumed.requests_private_network());
    }

    #[test]
    fn several_lines_and_a_missing_origin_are_kept_apart() {
        let headers = map(&[
            ("origin", "https://a.example"),
            ("origin", "https://b.example"),
            ("access-control-request-method", "PUT"),
            ("access-control-request-method", "POST"),
            ("access-control-request-private-network", "false"),
        ]);
        let request = CorsRequest::new(&Method::OPTIONS, &headers);
        assert_eq!(request.kind(), RequestKind::Preflight);
        assert!(request.origin().is_none());
        assert!(request.requested_method().is_none());
        assert!(!request.requests_private_network());
        let headers = map(&[("access-control-request-method", "PUT")]);
        let request = CorsRequest::new(&Method::OPTIONS, &headers);
        assert_eq!(request.kind(), RequestKind::NotCors);
        assert!(request.requested_method().is_none());
    }
}
