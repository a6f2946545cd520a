//! [`CorsPolicy`]: validated, precompiled options, and the decision on each request.

use std::sync::Arc;

use http::{HeaderName, HeaderValue, Method, StatusCode};

use crate::actual::{ActualDecision, DecisionExtras, Verdict};
use crate::allow_methods::CompiledMethods;
use crate::allow_origin::{CompiledOrigin, OriginLookup, OriginRule};
use crate::credentials::{Credentials, Source};
use crate::error::CorsConfigError;
use crate::options::CorsOptions;
use crate::options::RejectedPreflight;
use crate::origin_error::{CredentialsToInsecure, OriginChecks};
use crate::preflight::{PreflightAnswer, PreflightDecision, PreflightGrant, PreflightParts};
use crate::public_suffix::OwnedSuffixes;
use crate::refusal::Refusal;
use crate::request::CorsRequest;
use crate::request::Lines;
use crate::request::RequestKind;
use crate::vary::Vary;

/// Validated, precompiled CORS options: every header value is built once, so deciding on a
/// request only compares bytes, and writing the answer clones prebuilt values.
///
/// Cheap to share: wrap it in an `Arc` and use it from every request. Per request, the engine
/// has one path, **classify → decide → write**: [`CorsRequest::new`] classifies the request;
/// [`preflight`](CorsPolicy::preflight) or [`actual`](CorsPolicy::actual) decides, returning a
/// [`PreflightDecision`] or an [`ActualDecision`] that says whether the request is granted,
/// why not ([`Refusal`]), and writes the response headers.
///
/// ```
/// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, RequestKind};
/// use http::{HeaderMap, HeaderValue, Method, StatusCode};
///
/// let policy = CorsPolicy::for_route(
///     &CorsOptions::new().origin("https://example.com").max_age(600),
///     &[Method::GET, Method::HEAD, Method::POST],
/// )?;
///
/// let mut headers = HeaderMap::new();
/// headers.insert("origin", HeaderValue::from_static("https://example.com"));
/// headers.insert("access-control-request-method", HeaderValue::from_static("POST"));
/// headers.insert("access-control-request-headers", HeaderValue::from_static("content-type"));
/// let request = CorsRequest::new(&Method::OPTIONS, &headers);
/// assert_eq!(request.kind(), RequestKind::Preflight);
///
/// let decision = policy.preflight(&request);
/// assert!(decision.is_allowed());
/// assert_eq!(decision.status(), StatusCode::NO_CONTENT);
/// let mut response = HeaderMap::new();
/// decision.write(&mut response);
/// assert_eq!(response["access-control-allow-origin"], "https://example.com");
/// assert_eq!(response["access-control-allow-methods"], "GET, HEAD, POST");
/// assert_eq!(response["access-control-allow-headers"], "content-type");
/// assert_eq!(response["access-control-max-age"], "600");
/// assert_eq!(
///     response["vary"],
///     "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, \
///      Access-Control-Request-Private-Network"
/// );
/// # Ok::<(), cors_axum_core::CorsConfigError>(())
/// ```
#[derive(Clone, Debug)]
pub struct CorsPolicy {
    origin: CompiledOrigin,
    /// [`AllowOrigin::any()`](crate::AllowOrigin::any): `*`, whatever the origin.
    any_origin: bool,
    credentials: Credentials,
    methods: CompiledMethods,
    /// What an actual request's decision shares with the policy: `Vary` of every other answer
    /// than a preflight's, CORS or not, when a request-aware origin decision reads more than
    /// `Origin` (otherwise `Origin` unless any origin is allowed), and the exposed headers.
    actual_extras: Option<Arc<DecisionExtras>>,
    /// Everything a preflight answer carries but what it takes from the request.
    preflight: PreflightAnswer,
    /// [`CorsOptions::protect_cross_origin`].
    protect_cross_origin: bool,
    /// [`CorsOptions::cross_origin_bypass`].
    cross_origin_bypass: crate::cross_origin::Bypass,
    /// [`CorsOptions::check_websocket_origin`].
    check_websocket_origin: bool,
}

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
        let credentials = options.credentials.unwrap_or_default();
        let origin = compile_origin(options, credentials)?;
        let any_origin = matches!(origin.rule, OriginRule::Any);
        let methods = options
            .methods
            .clone()
            .unwrap_or_default()
            .compile(route_methods, credentials.any())?;
        let expose_headers = options
            .expose_headers
            .clone()
            .unwrap_or_default()
            .compile(credentials.any())?;
        let actual_vary = if origin.varying_on.is_empty() {
            None
        } else {
            Vary::new(!any_origin, false, &origin.varying_on).map(Arc::new)
        };
        let preflight = compile_preflight(options, &origin, &methods, credentials)?;
        Ok(CorsPolicy {
            origin,
            any_origin,
            credentials,
            methods,
            actual_extras: DecisionExtras::of_policy(actual_vary, expose_headers),
            preflight,
            protect_cross_origin: options.protect_cross_origin.unwrap_or(false),
            cross_origin_bypass: crate::cross_origin::Bypass::compile(
                options.cross_origin_bypass.as_deref().unwrap_or_default(),
            )?,
            check_websocket_origin: options.checks_websocket_origin(),
        })
    }

    /// Whether the origin policy is [`AllowOrigin::any()`](crate::AllowOrigin::any) (the `*` policy).
    pub fn allows_any_origin(&self) -> bool {
        self.any_origin
    }

    /// Whether `Access-Control-Allow-Origin` depends on the `Origin` request header, so that
    /// every response of the resource needs `Vary: Origin`.
    pub fn varies_by_origin(&self) -> bool {
        !self.any_origin
    }

    /// Whether the options allow credentials, to the origins of any source
    /// ([`CorsOptions::credentials`]).
    pub fn allows_credentials(&self) -> bool {
        self.credentials.any()
    }

    /// The status of a granted preflight answer.
    pub fn preflight_status(&self) -> StatusCode {
        self.preflight.parts.status
    }

    /// Adds a header to every preflight answer, granted or refused, written with the CORS
    /// headers: for a header the server adds to every response anyway.
    ///
    /// A preflight answer has no body, and HTTP stacks add `Content-Length: 0` to it (axum does,
    /// and hyper leaves it out of a `204`); written here, it is part of the prebuilt answer, so
    /// that the response's header map need not grow for it after the engine wrote it.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest};
    /// use http::header::CONTENT_LENGTH;
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let policy = CorsPolicy::from_options(&CorsOptions::new())?
    ///     .with_preflight_header(CONTENT_LENGTH, HeaderValue::from_static("0"));
    /// let mut request = HeaderMap::new();
    /// request.insert("origin", HeaderValue::from_static("https://a.example"));
    /// request.insert("access-control-request-method", HeaderValue::from_static("PUT"));
    /// let mut response = HeaderMap::new();
    /// policy.preflight(&CorsRequest::new(&Method::OPTIONS, &request)).write(&mut response);
    /// assert_eq!(response["content-length"], "0");
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn with_preflight_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.preflight.add_header(name, value);
        self
    }

    /// The asynchronous origin decision to make before deciding on `request`, when the origin is
    /// decided by [`AllowOrigin::async_predicate`](crate::AllowOrigin::async_predicate) and the
    /// request has one well-formed origin: await its future (at most its timeout), then decide
    /// on `request.with_origin_answer(..)`. `None` for every other policy and request, which
    /// are decided at once.
    pub fn origin_lookup(&self, request: &CorsRequest<'_>) -> Option<OriginLookup> {
        self.origin.lookup(request)
    }

    /// Whether origins are decided asynchronously, i.e. whether
    /// [`origin_lookup`](Self::origin_lookup) may ask for a lookup: a caller that knows the
    /// answer once, when it builds its service, skips the question per request.
    pub fn decides_origins_asynchronously(&self) -> bool {
        self.origin.is_async()
    }

    /// Whether cross-origin protection is on
    /// ([`CorsOptions::protect_cross_origin(true)`](CorsOptions::protect_cross_origin)).
    pub fn protects_cross_origin(&self) -> bool {
        self.protect_cross_origin
    }

    /// Cross-origin protection: whether `request` may go on to the handler. `Ok` when protection
    /// is off ([`protects_cross_origin`](Self::protects_cross_origin)); otherwise a refused
    /// request should be answered `403 Forbidden` before any guard or handler runs, and
    /// logged with the [`Refusal`]. `host` is the request's `Host` header value, or for HTTP/2
    /// its URI authority.
    ///
    /// The rule (Go 1.25's `http.CrossOriginProtection`, the trusted origins being the CORS
    /// policy's):
    ///
    /// 1. `GET`, `HEAD` and `OPTIONS` pass: safe methods, which must change nothing (preflights
    ///    are `OPTIONS`). `CONNECT` passes too: browsers send it only as an HTTP/2 WebSocket
    ///    handshake (RFC 8441), decided like the HTTP/1.1 `GET` it stands for by
    ///    [`websocket_handshake`](Self::websocket_handshake).
    /// 2. `Sec-Fetch-Site: same-origin` or `none` (the user's own navigation) passes. Any other
    ///    value (`cross-site`, `same-site`, an unknown value, several lines) is refused with
    ///    [`Refusal::CrossSiteRequest`] unless the origin is trusted.
    /// 3. Without `Sec-Fetch-Site` (an older browser, or not a browser): no `Origin` passes;
    ///    an `Origin` whose `host[:port]` is `host` passes (host case-insensitively, a default
    ///    port equal to none, the scheme not compared since TLS often ends at a proxy); any
    ///    other is refused with [`Refusal::CrossOriginRequest`] unless trusted.
    ///
    /// An origin is trusted when the CORS policy allows it, as it would grant it on an actual
    /// request: a listed origin, a matching pattern, a predicate or request predicate that
    /// says yes, an asynchronous decision already answered `Allowed`
    /// ([`CorsRequest::with_origin_answer`]: make the [lookup](Self::origin_lookup) first).
    /// [`AllowOrigin::mirror_request()`](crate::AllowOrigin::mirror_request) trusts every
    /// well-formed origin. [`AllowOrigin::any()`](crate::AllowOrigin::any) trusts **none**:
    /// `*` lets any site read public answers, not send unsafe requests in a user's name.
    /// `null` is trusted only with
    /// [`allow_null_origin(true)`](CorsOptions::allow_null_origin).
    ///
    /// Cheap: a safe method is one comparison; an unsafe one looks up two headers, without
    /// allocating (unless a predicate of the policy does).
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, Refusal};
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let policy = CorsPolicy::from_options(
    ///     &CorsOptions::new().origin("https://app.example").protect_cross_origin(true),
    /// )?;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
    /// headers.insert("origin", HeaderValue::from_static("https://evil.example"));
    /// let post = CorsRequest::new(&Method::POST, &headers);
    /// let host = Some(&b"api.example"[..]);
    /// assert!(matches!(policy.cross_origin(&post, host), Err(Refusal::CrossSiteRequest { .. })));
    /// assert_eq!(policy.cross_origin(&CorsRequest::new(&Method::GET, &headers), host), Ok(()));
    ///
    /// headers.insert("origin", HeaderValue::from_static("https://app.example"));
    /// assert_eq!(policy.cross_origin(&CorsRequest::new(&Method::POST, &headers), host), Ok(()));
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn cross_origin<'a>(
        &self,
        request: &CorsRequest<'a>,
        host: Option<&[u8]>,
    ) -> Result<(), Refusal<'a>> {
        if !self.protect_cross_origin {
            return Ok(());
        }
        crate::cross_origin::check(
            request,
            || host,
            &self.cross_origin_bypass,
            |origin| !self.any_origin && self.origin.decide(origin, request).is_ok(),
        )
    }

    /// Cross-origin protection as [`cross_origin`](Self::cross_origin) decides it, reusing the
    /// decision [`actual`](Self::actual) made on the same request: an origin it granted by name
    /// is trusted without being decided again (so the request passes with no header looked up),
    /// and `host` is asked for only when the rule compares it with `Origin`.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, Refusal};
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let policy = CorsPolicy::from_options(
    ///     &CorsOptions::new().origin("https://app.example").protect_cross_origin(true),
    /// )?;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
    /// headers.insert("origin", HeaderValue::from_static("https://app.example"));
    /// let post = CorsRequest::new(&Method::POST, &headers);
    /// let decision = policy.actual(&post);
    /// assert_eq!(policy.cross_origin_after(&post, &decision, || None), Ok(()));
    ///
    /// headers.insert("origin", HeaderValue::from_static("https://evil.example"));
    /// let post = CorsRequest::new(&Method::POST, &headers);
    /// let decision = policy.actual(&post);
    /// let refusal = policy.cross_origin_after(&post, &decision, || None);
    /// assert!(matches!(refusal, Err(Refusal::CrossSiteRequest { .. })));
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn cross_origin_after<'a, 'h>(
        &self,
        request: &CorsRequest<'a>,
        actual: &ActualDecision,
        host: impl FnOnce() -> Option<&'h [u8]>,
    ) -> Result<(), Refusal<'a>> {
        // An origin granted by name is trusted, which passes whatever else the request says.
        if !self.protect_cross_origin || actual.verdict == Verdict::Reflect {
            return Ok(());
        }
        crate::cross_origin::check(request, host, &self.cross_origin_bypass, |_| false)
    }

    /// Cross-origin protection where CORS is switched off
    /// ([`CorsOptions::enabled(false)`](CorsOptions::enabled)) but
    /// [`protect_cross_origin(true)`](CorsOptions::protect_cross_origin) is on: the rule of
    /// [`cross_origin`](Self::cross_origin), trusting no origin, so only same-origin unsafe
    /// requests (and those of clients that are not browsers) pass. No path is let through: for
    /// the route's [`cross_origin_bypass`](CorsOptions::cross_origin_bypass) too, compile its
    /// options and ask [`cross_origin_without_cors`](Self::cross_origin_without_cors).
    pub fn cross_origin_trusting_none<'a>(
        request: &CorsRequest<'a>,
        host: Option<&[u8]>,
    ) -> Result<(), Refusal<'a>> {
        crate::cross_origin::check(
            request,
            || host,
            &crate::cross_origin::Bypass::NONE,
            |_| false,
        )
    }

    /// Cross-origin protection of a route whose CORS is switched off
    /// ([`CorsOptions::enabled(false)`](CorsOptions::enabled)), with this policy compiled from
    /// its options: the rule of [`cross_origin`](Self::cross_origin) trusting no origin, as
    /// [`cross_origin_trusting_none`](Self::cross_origin_trusting_none), but letting through
    /// the paths of [`cross_origin_bypass`](CorsOptions::cross_origin_bypass) (an OIDC
    /// `form_post` or SAML callback is often declared without CORS). `Ok` when protection is
    /// off.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest};
    /// use http::{HeaderMap, HeaderValue, Method, Uri};
    ///
    /// let options = CorsOptions::new()
    ///     .enabled(false)
    ///     .protect_cross_origin(true)
    ///     .cross_origin_bypass(["/callbacks/*"]);
    /// let policy = CorsPolicy::from_options(&options)?;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
    /// headers.insert("origin", HeaderValue::from_static("https://idp.example"));
    /// let to = |uri| CorsRequest::new(&Method::POST, &headers).with_uri(uri);
    /// let callback = Uri::from_static("/callbacks/oidc");
    /// assert!(policy.cross_origin_without_cors(&to(&callback), None).is_ok());
    /// let form = Uri::from_static("/session");
    /// assert!(policy.cross_origin_without_cors(&to(&form), None).is_err());
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn cross_origin_without_cors<'a>(
        &self,
        request: &CorsRequest<'a>,
        host: Option<&[u8]>,
    ) -> Result<(), Refusal<'a>> {
        if !self.protect_cross_origin {
            return Ok(());
        }
        crate::cross_origin::check(request, || host, &self.cross_origin_bypass, |_| false)
    }

    /// Whether [`cross_origin_bypass`](CorsOptions::cross_origin_bypass) lists any path: a
    /// caller that matches bypass paths against another path than the request's URI (the
    /// path a client sent, before a nested router stripped its prefix) looks it up only then.
    pub fn has_cross_origin_bypass(&self) -> bool {
        !self.cross_origin_bypass.is_empty()
    }

    /// Whether WebSocket handshakes are checked
    /// ([`CorsOptions::check_websocket_origin`], on by default).
    pub fn checks_websocket_origin(&self) -> bool {
        self.check_websocket_origin
    }

    /// The origin decision of a WebSocket handshake: `Ok` for a request that is not an HTTP/1.1
    /// WebSocket upgrade ([`CorsRequest::is_websocket_upgrade`]); for one that is, the
    /// decision of [`websocket_handshake`](Self::websocket_handshake), whose refusal should be
    /// answered `403 Forbidden` instead of upgrading.
    pub fn websocket<'a>(
        &self,
        request: &CorsRequest<'a>,
        host: Option<&[u8]>,
    ) -> Result<(), Refusal<'a>> {
        if !request.is_websocket_upgrade() {
            return Ok(());
        }
        self.websocket_handshake(request, host)
    }

    /// Whether the origin of a WebSocket handshake may open it. Browsers let any page open a
    /// WebSocket to any server with the user's cookies, and CORS does not apply: the server
    /// must check `Origin` itself, or any site can act in the user's name over the socket
    /// (cross-site WebSocket hijacking). For a handshake the caller recognised: an HTTP/1.1
    /// upgrade ([`CorsRequest::is_websocket_upgrade`], or call [`websocket`](Self::websocket)),
    /// or an HTTP/2 extended `CONNECT` with `:protocol` `websocket` (RFC 8441).
    ///
    /// Passes: a handshake without `Origin` (not a browser); any handshake under
    /// [`AllowOrigin::any()`](crate::AllowOrigin::any), as the policy allows every origin, or
    /// with [`check_websocket_origin(false)`](CorsOptions::check_websocket_origin); an
    /// `Origin` naming `host` (the request's `Host` or HTTP/2 authority, compared as
    /// [`cross_origin`](Self::cross_origin) does: same origin, so no hijacking; `None` skips
    /// this); an origin the policy allows, as it would grant it on an actual request (an
    /// asynchronous rule needs its answer first, [`CorsRequest::with_origin_answer`]).
    /// Refused, with the reason an actual request would get: any other origin, `null` without
    /// [`allow_null_origin(true)`](CorsOptions::allow_null_origin), several `Origin` lines.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, Refusal};
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let policy = CorsPolicy::from_options(&CorsOptions::new().origin("https://app.example"))?;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("upgrade", HeaderValue::from_static("websocket"));
    /// headers.insert("connection", HeaderValue::from_static("Upgrade"));
    /// headers.insert("origin", HeaderValue::from_static("https://evil.example"));
    /// let handshake = CorsRequest::new(&Method::GET, &headers);
    /// let refusal = policy.websocket(&handshake, Some(b"api.example")).unwrap_err();
    /// assert_eq!(refusal.to_string(), "origin `https://evil.example` is not allowed");
    ///
    /// headers.insert("origin", HeaderValue::from_static("https://app.example"));
    /// assert_eq!(policy.websocket(&CorsRequest::new(&Method::GET, &headers), None), Ok(()));
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn websocket_handshake<'a>(
        &self,
        request: &CorsRequest<'a>,
        host: Option<&[u8]>,
    ) -> Result<(), Refusal<'a>> {
        match request.origin_lines() {
            Lines::Absent => Ok(()),
            _ if self.any_origin || !self.check_websocket_origin => Ok(()),
            Lines::Several => Err(Refusal::SeveralOrigins),
            Lines::One(origin)
                if host.is_some_and(|host| crate::origin::names_host(origin.as_bytes(), host)) =>
            {
                Ok(())
            }
            Lines::One(origin) => self.origin.decide(origin, request).map(drop),
        }
    }

    /// Decides on a preflight ([`RequestKind::Preflight`]): granted, with the headers to answer
    /// with, or refused, with the reason. Nothing is written until
    /// [`PreflightDecision::write`].
    ///
    /// The checks run in this order, the first failure being the reason: the origin (one
    /// `Origin` line, well-formed or `null` with the opt-in, allowed), the requested method
    /// (one line, a token, allowed), the requested headers (well-formed, within the bounds,
    /// allowed), private network access (enabled if requested). A request that is not a
    /// preflight is refused with [`Refusal::NotPreflight`].
    #[inline]
    pub fn preflight<'a>(&'a self, request: &CorsRequest<'a>) -> PreflightDecision<'a> {
        PreflightDecision::new(&self.preflight, self.decide_preflight(request))
    }

    fn decide_preflight<'a>(
        &self,
        request: &CorsRequest<'a>,
    ) -> Result<PreflightGrant, Refusal<'a>> {
        if request.kind() != RequestKind::Preflight {
            return Err(Refusal::NotPreflight);
        }
        let (origin, source) = match request.origin_lines() {
            _ if self.any_origin => (None, Source::Origin),
            Lines::One(origin) => {
                let granted = self.origin.decide(origin, request)?;
                (
                    Some(granted.value.unwrap_or(origin).clone()),
                    granted.source,
                )
            }
            Lines::Several => return Err(Refusal::SeveralOrigins),
            Lines::Absent => return Err(Refusal::NotPreflight),
        };
        let requested_method = match request.requested_method_lines() {
            Lines::One(method) => method,
            Lines::Several => return Err(Refusal::SeveralRequestMethods),
            Lines::Absent => return Err(Refusal::NotPreflight),
        };
        let method = self.methods.check(requested_method)?;
        let headers = self
            .preflight
            .parts
            .headers
            .check(request.requested_headers())?;
        let private_network = request.requests_private_network();
        if private_network && !self.preflight.parts.private_network {
            return Err(Refusal::PrivateNetworkNotEnabled);
        }
        Ok(PreflightGrant {
            origin,
            credentials: self.credentials.allows(source),
            method,
            headers,
            private_network,
        })
    }

    /// Decides on an actual request ([`RequestKind::Actual`]) or one that is not CORS
    /// ([`RequestKind::NotCors`]), before the request goes to the handler. The decision owns
    /// what it needs (it clones the `Origin` value, which shares the request's bytes), so it
    /// writes the CORS headers into the handler's response later, after the request is gone:
    /// [`ActualDecision::write`].
    ///
    /// A request without `Origin` gets no CORS header, only `Vary: Origin` when the answer
    /// depends on the origin.
    // Inlined, so that the decision is built where the caller keeps it.
    #[inline]
    pub fn actual(&self, request: &CorsRequest<'_>) -> ActualDecision {
        let origin = request.origin_lines();
        let mut extras = None;
        // The configured value equal to the request's `Origin`, if any, saves cloning it.
        let mut reflected = None;
        let mut source = Source::Origin;
        let verdict = match origin {
            Lines::Absent => Verdict::NotCors,
            _ if self.any_origin => Verdict::AnyOrigin,
            Lines::One(origin) => match self.origin.decide(origin, request) {
                Ok(granted) => {
                    reflected = granted.value;
                    source = granted.source;
                    Verdict::Reflect
                }
                Err(refusal) => {
                    if let Refusal::OriginLookupFailed { reason } = refusal {
                        extras = Some(DecisionExtras::with_lookup_failure(
                            self.actual_extras.as_deref(),
                            reason,
                        ));
                    }
                    Verdict::refused(refusal)
                }
            },
            Lines::Several => Verdict::refused(Refusal::SeveralOrigins),
        };
        ActualDecision {
            origin: reflected.or(request.origin()).cloned(),
            verdict,
            credentials: self.credentials.of(source),
            vary_origin: !self.any_origin,
            extras: extras.or_else(|| self.actual_extras.clone()),
        }
    }
}

/// The origin option, checked against the others it depends on.
fn compile_origin(
    options: &CorsOptions,
    credentials: Credentials,
) -> Result<CompiledOrigin, CorsConfigError> {
    let owned_suffixes =
        OwnedSuffixes::compile(options.owned_public_suffixes.as_deref().unwrap_or_default())?;
    let tolerate_insecure = options.dangerously_allow_insecure_origins == Some(true);
    let origin = options.effective_origin().compile(&OriginChecks {
        allow_null: options.allow_null_origin.unwrap_or(false),
        owned_suffixes: &owned_suffixes,
        credentials_to_insecure: match (credentials.allows(Source::Origin), tolerate_insecure) {
            (false, _) => CredentialsToInsecure::NoCredentials,
            (true, true) => CredentialsToInsecure::Tolerated,
            (true, false) => CredentialsToInsecure::Refused,
        },
        set_refuses_insecure: credentials.allows(Source::OriginSet) && !tolerate_insecure,
        tenants_refuse_insecure: credentials.allows(Source::TenantOrigins) && !tolerate_insecure,
    })?;
    if credentials.allows(Source::Origin) && matches!(origin.rule, OriginRule::Any) {
        let (value, written) = if credentials.is_by_source() {
            (
                "origin: true",
                "`credentials` by source gives credentials to `origin`, which",
            )
        } else {
            ("true", "`credentials(true)`")
        };
        return Err(CorsConfigError::new(
            "credentials",
            Some(value),
            format!(
                "{written} cannot be combined with any origin (`*`): browsers refuse \
                 `Access-Control-Allow-Origin: *` on credentialed requests. List the allowed \
                 origins, or use `AllowOrigin::mirror_request()` to reflect every origin deliberately"
            ),
        ));
    }
    Ok(origin)
}

/// What every preflight answer carries.
fn compile_preflight(
    options: &CorsOptions,
    origin: &CompiledOrigin,
    methods: &CompiledMethods,
    credentials: Credentials,
) -> Result<PreflightAnswer, CorsConfigError> {
    let any_origin = matches!(origin.rule, OriginRule::Any);
    let status = options.preflight_status.unwrap_or_default().compile()?;
    Ok(PreflightAnswer::new(PreflightParts {
        reflects_origin: !any_origin,
        credentials: credentials.any(),
        mirrors_method: methods.is_mirror(),
        methods: methods.fixed_value(),
        headers: options
            .allow_headers
            .clone()
            .unwrap_or_default()
            .compile(credentials.any())?,
        max_age: options
            .max_age
            .map(crate::max_age::MaxAge::compile)
            .transpose()?,
        cache_control: options
            .preflight_cache_control
            .as_ref()
            .map(crate::cache_control::PreflightCacheControl::compile)
            .transpose()?,
        private_network: options.private_network.unwrap_or(false),
        status,
        rejected_status: match options.rejected_preflight.unwrap_or_default() {
            RejectedPreflight::NoCorsHeaders => status,
            RejectedPreflight::Forbidden => StatusCode::FORBIDDEN,
        },
        // Every preflight answer depends on the request headers of a preflight: a cache that
        // stored one answer must not reuse it for another value.
        vary: Vary::new(!any_origin, true, &origin.varying_on)
            .expect("a preflight's answer varies on its request headers"),
    }))
}
