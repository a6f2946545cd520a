//! [`PreflightDecision`]: the engine's answer to a preflight.

use http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_MAX_AGE, CACHE_CONTROL,
};
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};

use crate::allow_headers::{CompiledHeaders, HeadersGrant};
use crate::header::ACCESS_CONTROL_ALLOW_PRIVATE_NETWORK;
use crate::header::{NO_STORE, STAR, TRUE};
use crate::refusal::Refusal;
use crate::vary::Vary;

/// What a granted preflight's answer takes from the request; the rest is the policy's.
#[derive(Clone, Debug)]
pub(crate) struct PreflightGrant {
    /// The origin to reflect; `None` under any origin, which answers `*`.
    pub(crate) origin: Option<HeaderValue>,
    /// Whether the origin's source gets credentials.
    pub(crate) credentials: bool,
    /// The requested method, when the policy mirrors it; `None` answers with the policy's value.
    pub(crate) method: Option<HeaderValue>,
    pub(crate) headers: HeadersGrant,
    pub(crate) private_network: bool,
}

/// What every preflight answer of a policy carries, compiled from the options.
#[derive(Clone, Debug)]
pub(crate) struct PreflightParts {
    /// Whether a granted answer reflects the origin (otherwise `*`).
    pub(crate) reflects_origin: bool,
    /// Whether any source gets credentials.
    pub(crate) credentials: bool,
    /// Whether a granted answer's `Access-Control-Allow-Methods` is the requested method.
    pub(crate) mirrors_method: bool,
    /// `Access-Control-Allow-Methods` otherwise (`None` when no method is allowed).
    pub(crate) methods: Option<HeaderValue>,
    pub(crate) headers: CompiledHeaders,
    pub(crate) max_age: Option<HeaderValue>,
    /// `Cache-Control` of a granted answer; when set, a refused one gets `no-store`.
    pub(crate) cache_control: Option<HeaderValue>,
    pub(crate) private_network: bool,
    pub(crate) status: StatusCode,
    pub(crate) rejected_status: StatusCode,
    /// `Vary` of every preflight answer, granted or refused.
    pub(crate) vary: Vary,
}

/// The policy's half of every preflight answer: its [parts](PreflightParts), the headers added
/// to every answer, and a granted answer's headers prebuilt.
#[derive(Clone, Debug)]
pub(crate) struct PreflightAnswer {
    pub(crate) parts: PreflightParts,
    /// Headers every preflight answer carries besides the CORS ones
    /// ([`CorsPolicy::with_preflight_header`](crate::CorsPolicy::with_preflight_header)).
    extra: Vec<(HeaderName, HeaderValue)>,
    /// The headers of a granted answer, prebuilt (see [`PreflightDecision::write`]).
    prebuilt: HeaderMap,
}

impl PreflightAnswer {
    pub(crate) fn new(parts: PreflightParts) -> Self {
        let mut answer = Self {
            parts,
            extra: Vec::new(),
            prebuilt: HeaderMap::new(),
        };
        answer.prebuilt = answer.prebuild();
        answer
    }

    /// Adds a header to every answer, granted or refused.
    pub(crate) fn add_header(&mut self, name: HeaderName, value: HeaderValue) {
        self.extra.push((name, value));
        self.prebuilt = self.prebuild();
    }

    /// Writes the headers of a refused answer: `Vary`, `Cache-Control: no-store` when a
    /// granted answer is cacheable, and the headers added to every answer.
    fn write_refused(&self, response: &mut HeaderMap) {
        self.parts.vary.apply(response);
        if self.parts.cache_control.is_some() {
            response.insert(CACHE_CONTROL, NO_STORE);
        }
        self.write_extra(response);
    }

    fn write_extra(&self, response: &mut HeaderMap) {
        for (name, value) in &self.extra {
            response.insert(name.clone(), value.clone());
        }
    }

    /// Inserts the headers of a granted preflight, `Vary` included: the one place that says what
    /// such an answer carries, for a response map and for the prebuilt answer alike.
    fn insert_granted(&self, grant: PreflightGrant, response: &mut HeaderMap) {
        let PreflightGrant {
            origin,
            credentials,
            method,
            headers,
            private_network,
        } = grant;
        let parts = &self.parts;
        response.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin.unwrap_or(STAR));
        if credentials {
            response.insert(ACCESS_CONTROL_ALLOW_CREDENTIALS, TRUE);
        }
        if let Some(methods) = method.or_else(|| parts.methods.clone()) {
            response.insert(ACCESS_CONTROL_ALLOW_METHODS, methods);
        }
        if let Some(headers) = parts.headers.value(headers) {
            response.insert(ACCESS_CONTROL_ALLOW_HEADERS, headers);
        }
        if let Some(max_age) = &parts.max_age {
            response.insert(ACCESS_CONTROL_MAX_AGE, max_age.clone());
        }
        if private_network {
            response.insert(ACCESS_CONTROL_ALLOW_PRIVATE_NETWORK, TRUE);
        }
        if let Some(cache_control) = &parts.cache_control {
            response.insert(CACHE_CONTROL, cache_control.clone());
        }
        parts.vary.apply(response);
        self.write_extra(response);
    }

    /// The headers of a granted preflight answer, built once: every value that does not depend
    /// on the request, and a placeholder where one does (which
    /// [`PreflightDecision::write`] always replaces or removes). `-Allow-Private-Network` is
    /// there when enabled, and removed from an answer that does not grant it, so that the map
    /// never grows.
    fn prebuild(&self) -> HeaderMap {
        let placeholder = HeaderValue::from_static("");
        let parts = &self.parts;
        let grant = PreflightGrant {
            origin: parts.reflects_origin.then(|| placeholder.clone()),
            credentials: parts.credentials,
            method: parts.mirrors_method.then(|| placeholder.clone()),
            headers: if parts.headers.echoes_request() {
                HeadersGrant::Echo(placeholder.clone())
            } else {
                HeadersGrant::List
            },
            private_network: parts.private_network,
        };
        // The values that depend on the request first, so that `set_prebuilt` finds them in
        // a step or two; inserting them again below keeps their places.
        let mut map = HeaderMap::new();
        for (name, placed) in [
            (ACCESS_CONTROL_ALLOW_ORIGIN, grant.origin.is_some()),
            (ACCESS_CONTROL_ALLOW_HEADERS, parts.headers.echoes_request()),
            (ACCESS_CONTROL_ALLOW_METHODS, grant.method.is_some()),
        ] {
            if placed {
                map.insert(name, placeholder.clone());
            }
        }
        self.insert_granted(grant, &mut map);
        map
    }
}

/// The decision on a preflight, from [`CorsPolicy::preflight`](crate::CorsPolicy::preflight): granted or refused (with the
/// [`Refusal`]), the [`status`](PreflightDecision::status) to answer with, and the headers,
/// written by [`write`](PreflightDecision::write).
///
/// It borrows the policy and the request, so a middleware decides, logs and writes while it
/// still holds the request, which a preflight never passes on to a handler.
///
/// A granted preflight gets `Access-Control-Allow-Origin`, `-Allow-Methods`, and as configured
/// `-Allow-Credentials` (when the origin's source gets credentials), `-Allow-Headers`, `-Max-Age`, `-Allow-Private-Network` and
/// `Cache-Control`. A refused one gets no `Access-Control-*` header, the status of
/// [`CorsOptions::rejected_preflight`](crate::CorsOptions::rejected_preflight), and
/// `Cache-Control: no-store` when
/// [`CorsOptions::preflight_cache_control`](crate::CorsOptions::preflight_cache_control) is set. Both get the same
/// `Vary`: `Access-Control-Request-Method`, `-Request-Headers` and `-Request-Private-Network`,
/// which any preflight answer depends on, and `Origin` unless any origin is allowed, merged into
/// a `Vary` already in the map.
///
/// ```
/// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, Refusal};
/// use http::{HeaderMap, HeaderValue, Method, StatusCode};
///
/// let policy = CorsPolicy::from_options(
///     &CorsOptions::new()
///         .origin("https://example.com")
///         .allow_headers(["content-type"]),
/// )?;
/// let mut headers = HeaderMap::new();
/// headers.insert("origin", HeaderValue::from_static("https://example.com"));
/// headers.insert("access-control-request-method", HeaderValue::from_static("PUT"));
/// headers.insert("access-control-request-headers", HeaderValue::from_static("x-secret"));
///
/// let request = CorsRequest::new(&Method::OPTIONS, &headers);
/// let decision = policy.preflight(&request);
/// assert!(!decision.is_allowed());
/// assert_eq!(decision.refusal(), Some(Refusal::HeaderNotAllowed { name: "x-secret" }));
/// assert_eq!(decision.status(), StatusCode::NO_CONTENT);
/// let mut response = HeaderMap::new();
/// decision.write(&mut response);
/// assert!(response.get("access-control-allow-origin").is_none());
/// assert!(response["vary"].to_str()?.contains("Access-Control-Request-Headers"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a preflight decision does nothing until it is written"]
#[derive(Clone, Debug)]
pub struct PreflightDecision<'a> {
    policy: &'a PreflightAnswer,
    outcome: Result<PreflightGrant, Refusal<'a>>,
}

impl<'a> PreflightDecision<'a> {
    pub(crate) fn new(
        policy: &'a PreflightAnswer,
        outcome: Result<PreflightGrant, Refusal<'a>>,
    ) -> Self {
        Self { policy, outcome }
    }

    /// Whether the preflight is granted: the browser may go on with the actual request.
    #[inline]
    pub fn is_allowed(&self) -> bool {
        self.outcome.is_ok()
    }

    /// Why the preflight is refused; `None` when it is granted.
    #[inline]
    pub fn refusal(&self) -> Option<Refusal<'a>> {
        self.outcome.as_ref().err().copied()
    }

    /// The status to answer with: [`CorsOptions::preflight_status`] when granted,
    /// [`CorsOptions::rejected_preflight`] decides when refused.
    ///
    /// [`CorsOptions::preflight_status`]: crate::CorsOptions::preflight_status
    /// [`CorsOptions::rejected_preflight`]: crate::CorsOptions::rejected_preflight
    #[inline]
    pub fn status(&self) -> StatusCode {
        match self.outcome {
            Ok(_) => self.policy.parts.status,
            Err(_) => self.policy.parts.rejected_status,
        }
    }

    /// Writes the answer's headers, `Vary` included, into `response_headers`.
    ///
    /// Allocates nothing given a map with room for the headers. Into a fresh map (no capacity
    /// yet, as in a new `Response`), which would allocate on its first insert anyway, the
    /// policy's prebuilt headers are cloned: one copy instead of a hashed insert per header; then
    /// only the values that depend on the request are set.
    #[inline]
    pub fn write(self, response_headers: &mut HeaderMap) {
        let policy = self.policy;
        let Ok(grant) = self.outcome else {
            policy.write_refused(response_headers);
            return;
        };
        if response_headers.capacity() != 0 {
            policy.insert_granted(grant, response_headers);
            return;
        }
        *response_headers = policy.prebuilt.clone();
        let PreflightGrant {
            origin,
            credentials,
            method,
            headers,
            private_network,
        } = grant;
        if policy.parts.credentials && !credentials {
            drop(response_headers.remove(ACCESS_CONTROL_ALLOW_CREDENTIALS));
        }
        if let Some(origin) = origin {
            set_prebuilt(response_headers, ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        }
        if let Some(method) = method {
            set_prebuilt(response_headers, ACCESS_CONTROL_ALLOW_METHODS, method);
        }
        match headers {
            HeadersGrant::List => {}
            HeadersGrant::Nothing => drop(response_headers.remove(ACCESS_CONTROL_ALLOW_HEADERS)),
            echoed => {
                if let Some(value) = policy.parts.headers.value(echoed) {
                    set_prebuilt(response_headers, ACCESS_CONTROL_ALLOW_HEADERS, value);
                }
            }
        }
        if policy.parts.private_network && !private_network {
            drop(response_headers.remove(ACCESS_CONTROL_ALLOW_PRIVATE_NETWORK));
        }
    }
}

/// Replaces a placeholder of the prebuilt preflight headers. They come first (see
/// `PreflightAnswer::prebuild`), so a look through them costs less than hashing the name.
fn set_prebuilt(map: &mut HeaderMap, name: HeaderName, value: HeaderValue) {
    if let Some((_, slot)) = map.iter_mut().take(3).find(|(n, _)| **n == name) {
        *slot = value;
    } else {
        map.insert(name, value);
    }
}
