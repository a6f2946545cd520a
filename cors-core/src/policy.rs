//! [`CorsPolicy`]: validated, precompiled options, and the per-request decisions.

use http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE,
    ACCESS_CONTROL_REQUEST_HEADERS, ORIGIN,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};

use crate::allow_headers::CompiledHeaders;
use crate::allow_methods::CompiledMethods;
use crate::allow_origin::{CompiledOrigin, OriginRule};
use crate::header::{ACCESS_CONTROL_ALLOW_PRIVATE_NETWORK, ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK};
use crate::origin::CapturedOrigin;
use crate::request::{CorsRequest, Lines};
use crate::vary::VaryNames;
use crate::{CorsConfigError, CorsOptions, RejectedPreflight};

/// What kind of request this is, for CORS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RequestKind {
    /// No `Origin` header: not a CORS request (CORS headers are not needed, but `Vary: Origin`
    /// may be).
    NotCors,
    /// A CORS request to be handled normally, with CORS headers added to its response
    /// ([`CorsPolicy::actual`]). This includes `OPTIONS` requests that are not preflights.
    Actual,
    /// A preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`, to be answered
    /// by [`CorsPolicy::preflight`] without running the handler.
    Preflight,
}

/// The result of [`CorsPolicy::preflight`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreflightOutcome {
    /// The status to answer with.
    pub status: StatusCode,
    /// Whether the preflight was allowed (the CORS headers were written).
    pub allowed: bool,
}

/// Whether an actual response is credentialed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ResponseCredentials {
    /// As the options say ([`CorsOptions::credentials`]).
    #[default]
    Policy,
    /// Credentialed whatever the options say, e.g. because the handler set a cookie: an allowed
    /// origin is reflected (never `*`) with `Access-Control-Allow-Credentials: true`.
    Include,
}

/// The result of [`CorsPolicy::actual`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ActualOutcome {
    /// Whether `Access-Control-Allow-Origin` was written.
    pub origin_allowed: bool,
    /// Whether a credentialed response was granted to an origin only because the policy allows
    /// any origin ([`ResponseCredentials::Include`] under [`AllowOrigin::any()`](crate::AllowOrigin::any)).
    /// Callers may want to warn once: every site can then read credentialed responses.
    pub reflected_any_origin_with_credentials: bool,
}

/// Validated, precompiled CORS options: every header value is built once, so answering a
/// request only compares bytes and clones prebuilt values.
///
/// Cheap to share: wrap it in an `Arc` and use it from every request.
///
/// ```
/// use cors_axum_core::{CorsOptions, CorsPolicy, RequestKind};
/// use http::{HeaderMap, HeaderValue, Method, StatusCode};
///
/// let policy = CorsPolicy::for_route(
///     &CorsOptions::new().origin("https://example.com").max_age(600),
///     &[Method::GET, Method::HEAD, Method::POST],
/// )?;
///
/// let mut request = HeaderMap::new();
/// request.insert("origin", HeaderValue::from_static("https://example.com"));
/// request.insert("access-control-request-method", HeaderValue::from_static("POST"));
/// request.insert("access-control-request-headers", HeaderValue::from_static("content-type"));
/// assert_eq!(CorsPolicy::classify(&Method::OPTIONS, &request), RequestKind::Preflight);
///
/// let mut response = HeaderMap::new();
/// let outcome = policy.preflight(&request, &mut response);
/// assert!(outcome.allowed);
/// assert_eq!(outcome.status, StatusCode::NO_CONTENT);
/// assert_eq!(response["access-control-allow-origin"], "https://example.com");
/// assert_eq!(response["access-control-allow-methods"], "GET, HEAD, POST");
/// assert_eq!(response["access-control-allow-headers"], "content-type");
/// assert_eq!(response["access-control-max-age"], "600");
/// assert_eq!(response["vary"], "Origin, Access-Control-Request-Headers");
/// # Ok::<(), cors_axum_core::CorsConfigError>(())
/// ```
#[derive(Clone, Debug)]
pub struct CorsPolicy {
    origin: CompiledOrigin,
    credentials: bool,
    methods: CompiledMethods,
    headers: CompiledHeaders,
    expose_headers: Option<HeaderValue>,
    max_age: Option<HeaderValue>,
    private_network: bool,
    preflight_status: StatusCode,
    rejected_status: StatusCode,
    star: HeaderValue,
    true_value: HeaderValue,
    /// `Vary` of every preflight answer, allowed or not.
    preflight_vary: Option<VaryNames>,
    /// The headers of an allowed preflight answer, prebuilt (see [`CorsPolicy::write_preflight`]).
    preflight_headers: HeaderMap,
    /// `Vary: Origin`, on actual responses when the answer depends on the origin.
    origin_vary: VaryNames,
}

const VARY_ORIGIN: &str = "Origin";
const VARY_METHOD: &str = "Access-Control-Request-Method";
const VARY_HEADERS: &str = "Access-Control-Request-Headers";
const VARY_PRIVATE_NETWORK: &str = "Access-Control-Request-Private-Network";

impl CorsPolicy {
    /// Compiles options where the route's methods are not known:
    /// [`AllowMethods::route()`](crate::AllowMethods::route) (the default) then behaves as
    /// [`mirror_request()`](crate::AllowMethods::mirror_request).
    pub fn from_options(options: &CorsOptions) -> Result<CorsPolicy, CorsConfigError> {
        Self::compile(options, None)
    }

    /// Compiles options for a route whose methods are known:
    /// [`AllowMethods::route()`](crate::AllowMethods::route) (the default) becomes exactly these
    /// methods, written in the given order.
    pub fn for_route(
        options: &CorsOptions,
        route_methods: &[Method],
    ) -> Result<CorsPolicy, CorsConfigError> {
        Self::compile(options, Some(route_methods))
    }

    fn compile(
        options: &CorsOptions,
        route_methods: Option<&[Method]>,
    ) -> Result<CorsPolicy, CorsConfigError> {
        let credentials = options.credentials.unwrap_or(false);
        let allow_null = options.allow_null_origin.unwrap_or(false);
        let origin = options
            .origin
            .clone()
            .unwrap_or_default()
            .compile(allow_null)?;
        if credentials && matches!(origin.rule, OriginRule::Any) {
            return Err(CorsConfigError::new(
                "credentials",
                Some("true"),
                "`credentials(true)` cannot be combined with any origin (`*`): browsers refuse \
                 `Access-Control-Allow-Origin: *` on credentialed requests. List the allowed origins, or use \
                 `AllowOrigin::mirror_request()` to reflect every origin deliberately"
                    .to_owned(),
            ));
        }
        let methods = options
            .methods
            .clone()
            .unwrap_or_default()
            .compile(route_methods, credentials)?;
        let headers = options
            .allow_headers
            .clone()
            .unwrap_or_default()
            .compile(credentials)?;
        let expose_headers = options
            .expose_headers
            .clone()
            .unwrap_or_default()
            .compile(credentials)?;
        let max_age = options.max_age.map(crate::MaxAge::compile).transpose()?;
        let private_network = options.private_network.unwrap_or(false);
        let preflight_status = options.preflight_status.unwrap_or_default().status_code();
        let rejected_status = match options.rejected_preflight.unwrap_or_default() {
            RejectedPreflight::NoCorsHeaders => preflight_status,
            RejectedPreflight::Forbidden => StatusCode::FORBIDDEN,
        };
        let varies_by_origin = !matches!(origin.rule, OriginRule::Any);
        let mut preflight_vary = Vec::with_capacity(4);
        if varies_by_origin {
            preflight_vary.push(VARY_ORIGIN);
        }
        if methods.is_mirror() {
            preflight_vary.push(VARY_METHOD);
        }
        if headers.varies_by_request() {
            preflight_vary.push(VARY_HEADERS);
        }
        if private_network {
            preflight_vary.push(VARY_PRIVATE_NETWORK);
        }
        let origin_vary = VaryNames::new(&[VARY_ORIGIN]).ok_or_else(|| {
            CorsConfigError::new("origin", None, "internal error building `Vary`".to_owned())
        })?;
        let mut policy = CorsPolicy {
            origin,
            credentials,
            methods,
            headers,
            expose_headers,
            max_age,
            private_network,
            preflight_status,
            rejected_status,
            star: HeaderValue::from_static("*"),
            true_value: HeaderValue::from_static("true"),
            preflight_vary: VaryNames::new(&preflight_vary),
            preflight_headers: HeaderMap::new(),
            origin_vary,
        };
        policy.preflight_headers = policy.prebuilt_preflight();
        Ok(policy)
    }

    /// Not CORS (no `Origin` header), an actual CORS request, or a preflight (`OPTIONS` with
    /// `Origin` and `Access-Control-Request-Method`). The same as
    /// [`CorsRequest::new(method, request_headers).kind()`](CorsRequest::kind).
    pub fn classify(method: &Method, request_headers: &HeaderMap) -> RequestKind {
        CorsRequest::new(method, request_headers).kind()
    }

    /// Whether the origin policy is [`AllowOrigin::any()`](crate::AllowOrigin::any) (the `*` policy).
    pub fn allows_any_origin(&self) -> bool {
        matches!(self.origin.rule, OriginRule::Any)
    }

    /// Whether `Access-Control-Allow-Origin` depends on the `Origin` request header, so that
    /// every response of the resource needs `Vary: Origin`.
    pub fn varies_by_origin(&self) -> bool {
        !self.allows_any_origin()
    }

    /// Whether the options allow credentials.
    pub fn allows_credentials(&self) -> bool {
        self.credentials
    }

    /// The status of an allowed preflight answer.
    pub fn preflight_status(&self) -> StatusCode {
        self.preflight_status
    }

    /// The `Access-Control-Allow-Origin` value for this request origin, if it is allowed.
    fn allow_origin(&self, origin: Lines<'_>) -> Option<HeaderValue> {
        if !origin.is_present() {
            return None;
        }
        if !self.credentials && matches!(self.origin.rule, OriginRule::Any) {
            // `*` grants no origin in particular, so it does not depend on the value either.
            return Some(self.star.clone());
        }
        match origin {
            Lines::One(value) if self.origin.allows(value) => Some(value.clone()),
            _ => None,
        }
    }

    /// Answers a preflight: writes the response headers (`Access-Control-Allow-Origin`,
    /// `-Allow-Credentials`, `-Allow-Methods`, `-Allow-Headers`, `-Max-Age`,
    /// `-Allow-Private-Network` and `Vary`) into `response_headers` and returns the status.
    ///
    /// A rejected preflight (origin, method or headers not allowed, or a malformed request) gets no
    /// `Access-Control-*` header, only `Vary`, and the status chosen by
    /// [`CorsOptions::rejected_preflight`].
    ///
    /// Middleware that has classified the request with a [`CorsRequest`] answers it with
    /// [`answer_preflight`](CorsPolicy::answer_preflight) instead, without looking its headers
    /// up again.
    pub fn preflight(
        &self,
        request_headers: &HeaderMap,
        response_headers: &mut HeaderMap,
    ) -> PreflightOutcome {
        self.answer_preflight(
            &CorsRequest::new(&Method::OPTIONS, request_headers),
            response_headers,
        )
    }

    /// [`preflight`](CorsPolicy::preflight) for a request looked up with [`CorsRequest::new`].
    /// A request that is not a preflight ([`RequestKind::Preflight`]) is rejected.
    pub fn answer_preflight(
        &self,
        request: &CorsRequest<'_>,
        response_headers: &mut HeaderMap,
    ) -> PreflightOutcome {
        match self.decide_preflight(request) {
            Some(answer) => {
                self.write_preflight(answer, response_headers);
                PreflightOutcome {
                    status: self.preflight_status,
                    allowed: true,
                }
            }
            None => {
                if let Some(vary) = &self.preflight_vary {
                    vary.apply(response_headers);
                }
                PreflightOutcome {
                    status: self.rejected_status,
                    allowed: false,
                }
            }
        }
    }

    /// The values of an allowed preflight's headers, or `None` when it is rejected.
    fn decide_preflight(&self, request: &CorsRequest<'_>) -> Option<PreflightAnswer> {
        let allow_origin = self.allow_origin(request.origin_lines())?;
        let requested_method = request.requested_method()?;
        let allow_methods = self.methods.answer(requested_method)?;
        let request = request.headers();
        let allow_headers = self
            .headers
            .answer(&request.get_all(ACCESS_CONTROL_REQUEST_HEADERS))
            .ok()?;
        let private_network = self.private_network
            && request
                .get(&ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK)
                .is_some_and(|v| v.as_bytes() == b"true");
        Some(PreflightAnswer {
            allow_origin,
            allow_methods,
            allow_headers,
            private_network,
        })
    }

    /// Writes an allowed preflight's headers, `Vary` included.
    ///
    /// Into a fresh map (no capacity yet, as in a new `Response`), which would allocate on its
    /// first insert anyway, the prebuilt headers are cloned: one copy instead of a hashed insert
    /// per header. Then only the values that depend on the request are set. A map with capacity
    /// (or with headers already) gets inserts, without allocating.
    fn write_preflight(&self, answer: PreflightAnswer, response: &mut HeaderMap) {
        let PreflightAnswer {
            allow_origin,
            allow_methods,
            allow_headers,
            private_network,
        } = answer;
        if response.capacity() == 0 {
            *response = self.preflight_headers.clone();
            if self.varies_by_origin() {
                set_prebuilt(response, ACCESS_CONTROL_ALLOW_ORIGIN, allow_origin);
            }
            if self.methods.is_mirror() {
                set_prebuilt(response, ACCESS_CONTROL_ALLOW_METHODS, allow_methods);
            }
            if self.headers.varies_by_request() {
                match allow_headers {
                    Some(value) => set_prebuilt(response, ACCESS_CONTROL_ALLOW_HEADERS, value),
                    None => drop(response.remove(ACCESS_CONTROL_ALLOW_HEADERS)),
                }
            }
        } else {
            self.insert_preflight(allow_origin, allow_methods, allow_headers, response);
        }
        if private_network {
            response.insert(
                ACCESS_CONTROL_ALLOW_PRIVATE_NETWORK,
                self.true_value.clone(),
            );
        }
    }

    /// Inserts the headers of an allowed preflight but `-Allow-Private-Network`, `Vary`
    /// included: the one place that says what such an answer carries, for a response map and for
    /// the prebuilt answer alike.
    fn insert_preflight(
        &self,
        allow_origin: HeaderValue,
        allow_methods: HeaderValue,
        allow_headers: Option<HeaderValue>,
        response: &mut HeaderMap,
    ) {
        response.insert(ACCESS_CONTROL_ALLOW_ORIGIN, allow_origin);
        if self.credentials {
            response.insert(ACCESS_CONTROL_ALLOW_CREDENTIALS, self.true_value.clone());
        }
        response.insert(ACCESS_CONTROL_ALLOW_METHODS, allow_methods);
        if let Some(allow_headers) = allow_headers {
            response.insert(ACCESS_CONTROL_ALLOW_HEADERS, allow_headers);
        }
        if let Some(max_age) = &self.max_age {
            response.insert(ACCESS_CONTROL_MAX_AGE, max_age.clone());
        }
        if let Some(vary) = &self.preflight_vary {
            vary.apply(response);
        }
    }

    /// The headers of an allowed preflight answer, built once: every value that does not depend
    /// on the request, and a placeholder where one does (which
    /// [`write_preflight`](CorsPolicy::write_preflight) always replaces or removes).
    fn prebuilt_preflight(&self) -> HeaderMap {
        let placeholder = HeaderValue::from_static("");
        // Without a dependence on the origin, the policy allows any origin with `*`.
        let allow_origin = if self.varies_by_origin() {
            placeholder.clone()
        } else {
            self.star.clone()
        };
        let allow_methods = self
            .methods
            .fixed_value()
            .unwrap_or_else(|| placeholder.clone());
        let allow_headers = if self.headers.varies_by_request() {
            Some(placeholder)
        } else {
            self.headers.fixed_value()
        };
        let mut map = HeaderMap::new();
        self.insert_preflight(allow_origin, allow_methods, allow_headers, &mut map);
        map
    }

    /// Adds the CORS headers of an actual response (`Access-Control-Allow-Origin`,
    /// `-Allow-Credentials`, `-Expose-Headers`, `Vary`) to a handler's response headers.
    ///
    /// Also call it for non-CORS requests: then only `Vary: Origin` is added, where the answer
    /// depends on the origin. With [`ResponseCredentials::Include`] (the handler set a cookie) an
    /// allowed origin gets a credentialed answer even if the options do not allow credentials:
    /// the request's own origin (never `*`), `Access-Control-Allow-Credentials: true` and
    /// `Vary: Origin`; under [`AllowOrigin::any()`](crate::AllowOrigin::any) every well-formed
    /// origin is allowed (`null` only with `allow_null_origin(true)`).
    pub fn actual(
        &self,
        request_headers: &HeaderMap,
        response_headers: &mut HeaderMap,
        credentials: ResponseCredentials,
    ) -> ActualOutcome {
        self.answer_actual(
            Lines::of(request_headers, &ORIGIN),
            response_headers,
            credentials,
        )
    }

    /// [`actual`](CorsPolicy::actual) for middleware that hands the request to the handler
    /// before adding headers to the response: capture the origin first (with
    /// [`CorsRequest::capture_origin`] or [`CapturedOrigin::from_headers`]), then answer with it.
    ///
    /// ```
    /// use cors_axum_core::{CapturedOrigin, CorsOptions, CorsPolicy, ResponseCredentials};
    /// use http::{HeaderMap, HeaderValue};
    ///
    /// let policy = CorsPolicy::from_options(&CorsOptions::new().origin("https://example.com"))?;
    /// let mut request = HeaderMap::new();
    /// request.insert("origin", HeaderValue::from_static("https://example.com"));
    /// let origin = CapturedOrigin::from_headers(&request);
    /// drop(request); // handed to the handler
    /// let mut response = HeaderMap::new();
    /// policy.actual_captured(&origin, &mut response, ResponseCredentials::Policy);
    /// assert_eq!(response["access-control-allow-origin"], "https://example.com");
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn actual_captured(
        &self,
        origin: &CapturedOrigin,
        response_headers: &mut HeaderMap,
        credentials: ResponseCredentials,
    ) -> ActualOutcome {
        self.answer_actual(origin.lines(), response_headers, credentials)
    }

    fn answer_actual(
        &self,
        origin: Lines<'_>,
        response_headers: &mut HeaderMap,
        credentials: ResponseCredentials,
    ) -> ActualOutcome {
        let forced = credentials == ResponseCredentials::Include && !self.credentials;
        if !forced {
            let allow_origin = self.allow_origin(origin);
            let origin_allowed = allow_origin.is_some();
            if let Some(allow_origin) = allow_origin {
                self.write_actual(response_headers, allow_origin, self.credentials);
            }
            if self.varies_by_origin() {
                self.origin_vary.apply(response_headers);
            }
            return ActualOutcome {
                origin_allowed,
                reflected_any_origin_with_credentials: false,
            };
        }
        let allowed = match origin {
            Lines::One(value) if self.origin.allows(value) => {
                self.write_actual(response_headers, value.clone(), true);
                true
            }
            _ => false,
        };
        self.origin_vary.apply(response_headers);
        ActualOutcome {
            origin_allowed: allowed,
            reflected_any_origin_with_credentials: allowed && self.allows_any_origin(),
        }
    }

    fn write_actual(&self, response: &mut HeaderMap, allow_origin: HeaderValue, credentials: bool) {
        response.insert(ACCESS_CONTROL_ALLOW_ORIGIN, allow_origin);
        if credentials {
            response.insert(ACCESS_CONTROL_ALLOW_CREDENTIALS, self.true_value.clone());
        }
        if let Some(expose) = &self.expose_headers {
            response.insert(ACCESS_CONTROL_EXPOSE_HEADERS, expose.clone());
        }
    }
}

/// The values of an allowed preflight's headers that depend on the request.
struct PreflightAnswer {
    allow_origin: HeaderValue,
    allow_methods: HeaderValue,
    allow_headers: Option<HeaderValue>,
    private_network: bool,
}

/// Replaces a placeholder of the prebuilt preflight headers. They are a handful, so a look
/// through them costs less than hashing the name.
fn set_prebuilt(map: &mut HeaderMap, name: HeaderName, value: HeaderValue) {
    if let Some((_, slot)) = map.iter_mut().find(|(n, _)| **n == name) {
        *slot = value;
    } else {
        map.insert(name, value);
    }
}
