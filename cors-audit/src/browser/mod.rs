//! The browser's side of the CORS protocol, from the
//! [Fetch standard](https://fetch.spec.whatwg.org/): what the audit judges answers with, and an
//! oracle for tests (this crate's `tests/it/oracle.rs` checks `cors-axum-core` against it).
//!
//! Describe a request as a script makes it with `fetch()` to another origin, in `cors` mode
//! ([`ScriptRequest`]: the page's origin, the method, the headers the script sets, the
//! credentials mode), then ask what a browser does with it:
//!
//! - [`needs_preflight`](ScriptRequest::needs_preflight): whether the browser sends a
//!   preflight first (a method other than `GET`, `HEAD`, `POST`, or a header that is not
//!   CORS-safelisted, or private network access), and
//!   [`preflight_headers`](ScriptRequest::preflight_headers): the preflight it sends;
//! - [`check_preflight`](ScriptRequest::check_preflight): whether the browser accepts the
//!   preflight's answer, and if not which check failed ([`PreflightFailure`]);
//! - [`request_headers`](ScriptRequest::request_headers): the actual request as the server
//!   receives it;
//! - [`check_response`](ScriptRequest::check_response): whether the script may read the
//!   response (the CORS check, [`CorsCheckFailure`]) and which response headers it sees
//!   ([`ReadableResponse`]);
//! - [`fetch`](ScriptRequest::fetch): all of it against a server given as a function.
//!
//! What is modelled: the CORS-safelisted methods and request headers (with the `Content-Type`
//! MIME type parser and the `Range` parser), the CORS-unsafe request-header names, the CORS
//! check, the checks of the CORS-preflight fetch (ok status, `Access-Control-Allow-Methods` and
//! `-Allow-Headers` parsed as lists, case-sensitive methods, `*` only without credentials and
//! never covering `Authorization`, `Access-Control-Max-Age`), the CORS-exposed header-name list,
//! and the opt-in [Private Network Access](https://wicg.github.io/private-network-access/)
//! preflight. What is not: the CORS-preflight cache (every check starts from an empty cache),
//! same-origin and `no-cors` requests, redirects, the `use-CORS-preflight` flag of upload
//! listeners, and the limits browsers put on `Access-Control-Max-Age`.
//!
//! ```
//! use cors_audit::browser::{CredentialsMode, PreflightFailure, ScriptRequest};
//! use http::{HeaderMap, HeaderValue, StatusCode};
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // fetch("https://api.example/items", { method: "PUT", credentials: "include",
//!     //        headers: { "Content-Type": "application/json" } }) from https://app.example
//!     let request = ScriptRequest::new("https://app.example", "put")?
//!         .header("Content-Type", "application/json")?
//!         .credentials(CredentialsMode::Include);
//!     assert!(request.needs_preflight());
//!     let preflight = request.preflight_headers();
//!     assert_eq!(preflight["access-control-request-method"], "PUT");
//!     assert_eq!(preflight["access-control-request-headers"], "content-type");
//!
//!     // An answer with `*`, which does not count with credentials.
//!     let mut answer = HeaderMap::new();
//!     answer.insert("access-control-allow-origin", HeaderValue::from_static("https://app.example"));
//!     answer.insert("access-control-allow-credentials", HeaderValue::from_static("true"));
//!     answer.insert("access-control-allow-methods", HeaderValue::from_static("*"));
//!     let failure = request.check_preflight(StatusCode::NO_CONTENT, &answer).unwrap_err();
//!     assert!(matches!(failure, PreflightFailure::MethodNotAllowed { .. }));
//!     assert_eq!(
//!         failure.to_string(),
//!         "the preflight answer does not allow the method `PUT` (`*` counts only without credentials)"
//!     );
//!     Ok(())
//! }
//! ```

mod response;
mod safelist;

use std::fmt;

use cors_axum_core::header::ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK;
use http::header::{
    ACCEPT, ACCESS_CONTROL_REQUEST_HEADERS, ACCESS_CONTROL_REQUEST_METHOD, InvalidHeaderName,
    InvalidHeaderValue, ORIGIN,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};

pub use response::{CorsCheckFailure, PreflightAccepted, PreflightFailure, ReadableResponse};

/// The credentials mode of a request: `fetch(url, { credentials })`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CredentialsMode {
    /// `"omit"`: no cookies, no HTTP authentication.
    Omit,
    /// `"same-origin"` (the default of `fetch()`): credentials only to the page's own origin,
    /// so none on a cross-origin request. For CORS it is the same as [`Omit`](Self::Omit).
    #[default]
    SameOrigin,
    /// `"include"`: credentials to any origin. The answers must then name the origin
    /// (never `*`) and carry `Access-Control-Allow-Credentials: true`.
    Include,
}

/// What `fetch()` throws (a `TypeError`) before anything is sent.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScriptError {
    /// The page's origin is not a serialized origin (`scheme://host[:port]`, lowercase, without
    /// the default port) nor `null`.
    InvalidOrigin(String),
    /// Not a method (an HTTP token).
    InvalidMethod(String),
    /// `CONNECT`, `TRACE` or `TRACK`.
    ForbiddenMethod(String),
    /// Not a header name.
    InvalidHeaderName(String),
    /// Not a header value (after leading and trailing whitespace is removed).
    InvalidHeaderValue(String),
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScriptError::InvalidOrigin(origin) => {
                write!(f, "`{}` is not a serialized origin", origin.escape_debug())
            }
            ScriptError::InvalidMethod(method) => {
                write!(f, "`{}` is not a method", method.escape_debug())
            }
            ScriptError::ForbiddenMethod(method) => {
                write!(f, "`{}` is a forbidden method", method.escape_debug())
            }
            ScriptError::InvalidHeaderName(name) => {
                write!(f, "`{}` is not a header name", name.escape_debug())
            }
            ScriptError::InvalidHeaderValue(value) => {
                write!(f, "`{}` is not a header value", value.escape_debug())
            }
        }
    }
}

impl std::error::Error for ScriptError {}

/// Why a [`fetch`](ScriptRequest::fetch) gives the script nothing to read.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchFailure {
    /// The browser refused the preflight's answer; the actual request was not sent.
    Preflight(PreflightFailure),
    /// The actual response failed the CORS check.
    Response(CorsCheckFailure),
}

impl fmt::Display for FetchFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchFailure::Preflight(failure) => write!(f, "preflight: {failure}"),
            FetchFailure::Response(failure) => write!(f, "response: {failure}"),
        }
    }
}

impl std::error::Error for FetchFailure {}

/// A cross-origin request as a script makes it: `fetch(url, { method, headers, credentials })`
/// in `cors` mode, from a page of some origin. See the [module](self) for what it answers.
#[derive(Clone, Debug)]
pub struct ScriptRequest {
    origin: HeaderValue,
    method: Method,
    /// The headers the script set and `fetch()` kept.
    headers: HeaderMap,
    credentials: CredentialsMode,
    private_network: bool,
}

impl ScriptRequest {
    /// A request from a page of `origin` (as the browser serializes it, e.g.
    /// `https://app.example` or `null`) with `method`, normalised as `fetch()` does (`delete`,
    /// `get`, `head`, `options`, `post` and `put` in any case are uppercased; other methods are
    /// case-sensitive).
    pub fn new(origin: &str, method: &str) -> Result<Self, ScriptError> {
        if !(cors_axum_core::is_serialized_origin(origin) || origin == "null") {
            return Err(ScriptError::InvalidOrigin(origin.to_owned()));
        }
        let origin = HeaderValue::from_str(origin)
            .map_err(|_| ScriptError::InvalidOrigin(origin.to_owned()))?;
        if !safelist::is_token(method.as_bytes()) {
            return Err(ScriptError::InvalidMethod(method.to_owned()));
        }
        if safelist::is_forbidden_method(method.as_bytes()) {
            return Err(ScriptError::ForbiddenMethod(method.to_owned()));
        }
        const NORMALISED: [&str; 6] = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"];
        let method = match NORMALISED.iter().find(|m| m.eq_ignore_ascii_case(method)) {
            Some(normalised) => Method::from_bytes(normalised.as_bytes()),
            None => Method::from_bytes(method.as_bytes()),
        }
        .map_err(|_| ScriptError::InvalidMethod(method.to_owned()))?;
        Ok(Self {
            origin,
            method,
            headers: HeaderMap::new(),
            credentials: CredentialsMode::default(),
            private_network: false,
        })
    }

    /// Appends a header, as `Headers.append` does: the value loses its leading and trailing
    /// whitespace; a forbidden request-header (`Origin`, `Cookie`, `Sec-…`, …) is silently
    /// dropped.
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, ScriptError> {
        let header_name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_: InvalidHeaderName| ScriptError::InvalidHeaderName(name.to_owned()))?;
        let trimmed = value.trim_matches(['\t', '\n', '\r', ' ']);
        let header_value = HeaderValue::from_str(trimmed)
            .map_err(|_: InvalidHeaderValue| ScriptError::InvalidHeaderValue(value.to_owned()))?;
        if !safelist::is_forbidden_header(&header_name, &header_value) {
            self.headers.append(header_name, header_value);
        }
        Ok(self)
    }

    /// Sets the credentials mode (default [`CredentialsMode::SameOrigin`]).
    pub fn credentials(mut self, credentials: CredentialsMode) -> Self {
        self.credentials = credentials;
        self
    }

    /// Whether the server is on a more private network than the page (a public page calling
    /// `localhost`, say), so that Private Network Access applies: every such request is
    /// preflighted, with `Access-Control-Request-Private-Network: true`, and the answer must
    /// carry `Access-Control-Allow-Private-Network: true`.
    pub fn private_network(mut self, more_private: bool) -> Self {
        self.private_network = more_private;
        self
    }

    /// The method, normalised.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The page's origin, as the `Origin` header carries it.
    pub fn origin(&self) -> &HeaderValue {
        &self.origin
    }

    /// The credentials mode.
    pub fn credentials_mode(&self) -> CredentialsMode {
        self.credentials
    }

    /// What the checks of the answers read of the request.
    fn asked(&self) -> response::Asked<'_> {
        response::Asked {
            origin: &self.origin,
            method: &self.method,
            headers: &self.headers,
            credentials: self.credentials == CredentialsMode::Include,
            private_network: self.private_network,
        }
    }

    /// The CORS-unsafe request-header names: of the headers the script set, those that are not
    /// CORS-safelisted (and all of them when the safelisted values add up to more than 1024
    /// bytes), lowercase, sorted, each once.
    pub fn unsafe_header_names(&self) -> Vec<HeaderName> {
        safelist::unsafe_names(&self.headers)
    }

    /// Whether the browser sends a preflight first: the method is not `GET`, `HEAD` or `POST`,
    /// a header is CORS-unsafe, or Private Network Access applies.
    pub fn needs_preflight(&self) -> bool {
        !safelist::is_safelisted_method(&self.method)
            || !self.unsafe_header_names().is_empty()
            || self.private_network
    }

    /// The headers of the preflight the browser sends (an `OPTIONS` request, without
    /// credentials): `Accept: */*`, `Origin`, `Access-Control-Request-Method`, and when there
    /// are any, `Access-Control-Request-Headers` with the CORS-unsafe names joined by `,`
    /// (no space), and `Access-Control-Request-Private-Network: true`.
    pub fn preflight_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static("*/*"));
        headers.insert(ORIGIN, self.origin.clone());
        headers.insert(
            ACCESS_CONTROL_REQUEST_METHOD,
            HeaderValue::from_str(self.method.as_str()).expect("a method is a header value"),
        );
        let names = self.unsafe_header_names();
        if !names.is_empty() {
            let joined: Vec<&str> = names.iter().map(HeaderName::as_str).collect();
            headers.insert(
                ACCESS_CONTROL_REQUEST_HEADERS,
                HeaderValue::from_str(&joined.join(","))
                    .expect("header names joined by `,` are a header value"),
            );
        }
        if self.private_network {
            headers.insert(
                ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK,
                HeaderValue::from_static("true"),
            );
        }
        headers
    }

    /// The headers of the actual request as the server receives them: `Origin` and the
    /// headers the script set (the browser's own, such as `User-Agent` or `Cookie`, are left
    /// out).
    pub fn request_headers(&self) -> HeaderMap {
        let mut headers = self.headers.clone();
        headers.insert(ORIGIN, self.origin.clone());
        headers
    }

    /// Whether the browser accepts a preflight's answer, as the CORS-preflight fetch checks it:
    /// the CORS check (with this request's credentials mode), an ok status (200 to 299), the
    /// method and every CORS-unsafe header allowed, and Private Network Access if it applies.
    /// On success, how long the browser may cache the answer.
    pub fn check_preflight(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
    ) -> Result<PreflightAccepted, PreflightFailure> {
        response::check_preflight(self.asked(), status, headers)
    }

    /// Whether the script may read the actual response (the CORS check, any status), and which
    /// of its headers it sees.
    pub fn check_response(
        &self,
        headers: &HeaderMap,
    ) -> Result<ReadableResponse, CorsCheckFailure> {
        response::cors_check(self.asked(), headers)?;
        Ok(response::readable(self.asked(), headers))
    }

    /// The whole exchange against a server: `server` gets the method and headers of each
    /// request the browser sends (the preflight, when one is needed, then the actual request)
    /// and returns the status and headers of its answer.
    pub fn fetch<F>(&self, mut server: F) -> Result<ReadableResponse, FetchFailure>
    where
        F: FnMut(&Method, &HeaderMap) -> (StatusCode, HeaderMap),
    {
        if self.needs_preflight() {
            let (status, headers) = server(&Method::OPTIONS, &self.preflight_headers());
            self.check_preflight(status, &headers)
                .map_err(FetchFailure::Preflight)?;
        }
        let (_, headers) = server(&self.method, &self.request_headers());
        self.check_response(&headers)
            .map_err(FetchFailure::Response)
    }
}
