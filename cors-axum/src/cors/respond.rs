//! One request on a path under CORS: classified once against the path's plan, loaded once,
//! and decided: a preflight answered here (or passed on to the route's own `OPTIONS` handler),
//! any other request handed on with what finishes its answer, or, where the plan decides
//! origins asynchronously, the lookup to await first.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::OriginalUri;
use axum::extract::Request;
use axum::response::Response;
use cors_axum_core::{
    ActualDecision, Classification, CorsPolicy, CorsRequest, OriginAnswer, Refusal, RequestKind,
};
use http::{Extensions, HeaderMap, HeaderValue, Method, StatusCode, Uri, header};

use super::future::Finish;
use super::plan::{PathPlan, RouteKey, RoutePlan};
use super::service::ResponseState;
use super::source::PlanSource;
use crate::table::RoutePath;
use crate::unwind::CatchUnwind;

/// The CORS of one path as its requests meet it. One reference count to clone: axum clones the
/// services that carry it (the generated `OPTIONS` route, the `405` and `404` answers) for every
/// request.
#[derive(Clone, Debug)]
pub(crate) struct PathCors(Arc<PathCorsFields>);

#[derive(Debug)]
struct PathCorsFields {
    source: PlanSource,
    /// The route's path, for logs; `None` behind a plain `CorsLayer`, which logs the request's.
    route: Option<RoutePath>,
    /// Whether handlers may take `CorsService`: then each request keeps a state they share.
    service: bool,
}

/// What the path's plan makes of a request.
pub(crate) enum Decision {
    /// Answered here: a preflight, or a request refused before its handler.
    Answer(Response),
    /// Handed on, its answer then finished as this says.
    HandOn(Finish),
    /// Decided once its origin is looked up: the lookup awaited, then the request decided
    /// again with what it gives ([`PathCors::decide`]).
    Lookup(Lookup),
}

/// An asynchronous origin decision awaited (at most its timeout; a panic or an error is a
/// refusal), with what deciding had read of the request.
pub(crate) type Lookup = Pin<Box<dyn Future<Output = Resumed> + Send>>;

/// What deciding a request had read when it asked for a lookup: the plan that asked (kept even
/// if a reload replaces it meanwhile), the request's CORS headers, its route, and whether it is
/// a WebSocket handshake if that was asked.
struct Kept {
    plan: Arc<PathPlan>,
    request: Classification,
    route: RouteKey,
    handshake: Handshake,
}

/// A request kept for an asynchronous origin decision, with the decision's answer.
pub(crate) struct Resumed {
    kept: Kept,
    answer: LookupAnswer,
}

/// Whether a request is a WebSocket handshake ([`is_handshake`]), asked at most once.
#[derive(Clone, Copy, Default)]
struct Handshake(Option<bool>);

impl Handshake {
    fn of(&mut self, cors: &CorsRequest<'_>, request: Head<'_>) -> bool {
        *self.0.get_or_insert_with(|| is_handshake(cors, request))
    }
}

/// What deciding reads of a request, whatever its body type: its head, borrowed, so that the
/// decision is compiled once, here, rather than for every body type.
#[derive(Clone, Copy)]
struct Head<'a> {
    method: &'a Method,
    uri: &'a Uri,
    headers: &'a HeaderMap,
    extensions: &'a Extensions,
}

impl<'a> Head<'a> {
    fn of(request: &'a Request) -> Self {
        Self {
            method: request.method(),
            uri: request.uri(),
            headers: request.headers(),
            extensions: request.extensions(),
        }
    }

    /// The request classified, with what origin decisions may read besides its CORS headers
    /// (its URI, and its extensions, where a tenant's key may be).
    fn classify(self) -> CorsRequest<'a> {
        CorsRequest::new(self.method, self.headers)
            .with_uri(self.uri)
            .with_extensions(self.extensions)
    }
}

impl PathCors {
    pub(crate) fn new(source: PlanSource, route: Option<RoutePath>, service: bool) -> Self {
        Self(Arc::new(PathCorsFields {
            source,
            route,
            service,
        }))
    }

    pub(crate) fn source(&self) -> &PlanSource {
        &self.0.source
    }

    /// What the path's plan, loaded once, makes of `request`: classified once, then answered
    /// here (a preflight, a refusal), handed on with what finishes its answer, or, where the
    /// origin is decided asynchronously, kept for the lookup; `resumed` is such a request
    /// once the lookup has answered, decided from what was kept, looking no header up again.
    /// Where handlers may set cookies, the request carries the state they share.
    pub(crate) fn decide(&self, http: &mut Request, resumed: Option<Resumed>) -> Decision {
        let request = Head::of(http);
        let loaded;
        let (plan, cors, key, mut handshake) = match &resumed {
            Some(Resumed { kept, answer }) => {
                let cors = CorsRequest::resumed(request.method, request.headers, &kept.request)
                    .with_uri(request.uri)
                    .with_extensions(request.extensions)
                    .with_origin_answer(answer.as_origin_answer());
                (&kept.plan, cors, kept.route, kept.handshake)
            }
            None => {
                let plan = match &self.0.source {
                    PlanSource::Static(plan) => plan,
                    PlanSource::Table { table, index } => {
                        loaded = table.load();
                        &loaded.plans[*index]
                    }
                };
                let cors = request.classify();
                let key = (!plan.by_method.is_empty()).then(|| plan.route(&cors));
                (plan, cors, key.unwrap_or_default(), Handshake::default())
            }
        };
        let route = plan.at(key);
        if resumed.is_none() && plan.asynchronous {
            let policy = match route {
                RoutePlan::On { policy, .. } => Some(&**policy),
                off => off.handshake_checks(|| handshake.of(&cors, request)),
            };
            if let Some(lookup) = policy.and_then(|policy| policy.origin_lookup(&cors)) {
                let kept = Kept {
                    plan: Arc::clone(plan),
                    request: cors.classification(),
                    route: key,
                    handshake,
                };
                return Decision::Lookup(Box::pin(async move {
                    let timeout = lookup.timeout;
                    let answer = CatchUnwind::new(lookup.future);
                    let answer = match tokio::time::timeout(timeout, answer).await {
                        Ok(Ok(Ok(allowed))) => LookupAnswer::Answered(allowed),
                        Ok(Ok(Err(error))) => LookupAnswer::Failed(error.to_string()),
                        Ok(Err(panic)) => {
                            tracing::error!(
                                target: "cors_axum",
                                "the asynchronous origin decision panicked: {}",
                                panic.escape_debug()
                            );
                            LookupAnswer::Failed(format!("the decision panicked: {panic}"))
                        }
                        Err(_) => LookupAnswer::Failed(format!("no answer within {timeout:?}")),
                    };
                    Resumed { kept, answer }
                }));
            }
        }
        if cors.kind() == RequestKind::Preflight {
            return self.preflight(plan, route, &cors, request);
        }
        let RoutePlan::On { policy, .. } = route else {
            return self.without_cors(route, &cors, request, handshake);
        };
        let decision = policy.actual(&cors);
        if (policy.protects_cross_origin() || !decision.is_allowed() && decision.is_cors())
            && let Some(refused) = self.refuse(policy, Some(&decision), &cors, request, handshake)
        {
            return Decision::Answer(refused);
        }
        if self.0.service {
            let state = Arc::new(ResponseState::new(decision));
            http.extensions_mut().insert(Arc::clone(&state));
            return Decision::HandOn(Finish::Cookies(state));
        }
        if decision.varies_by_origin_alone() {
            // The common answer without `Origin`: nothing of the decision to keep.
            return Decision::HandOn(Finish::VaryOrigin);
        }
        Decision::HandOn(Finish::Headers(decision))
    }

    /// What becomes of an actual request that cross-origin protection reads, or that no CORS
    /// grant lets read the path's answers (`decision` did not grant it, or CORS is off for it,
    /// `None`): a `403` for an unsafe request the protection refuses (trusting no origin where
    /// CORS is off), or for a WebSocket handshake from an origin the allow list refuses
    /// (browsers apply no CORS to it); otherwise nothing, the refusal logged where refusals are.
    // Inlined into `decide`: called, it would make a refused request dearer than a granted one.
    #[inline(always)]
    fn refuse(
        &self,
        policy: &CorsPolicy,
        decision: Option<&ActualDecision>,
        cors: &CorsRequest<'_>,
        request: Head<'_>,
        mut handshake: Handshake,
    ) -> Option<Response> {
        if policy.protects_cross_origin()
            && let Err(refusal) = protected(cors, request, policy, decision)
        {
            return Some(self.forbidden(request, "unsafe request", &refusal));
        }
        // Without `Origin` a handshake passes: asked first, so that the other requests cost
        // no header lookup.
        let refused = decision.map_or(cors.kind() != RequestKind::NotCors, |decision| {
            !decision.is_allowed() && decision.is_cors()
        });
        if refused
            && handshake.of(cors, request)
            && let Err(refusal) = policy.websocket_handshake(cors, host(request))
        {
            return Some(self.forbidden(request, "WebSocket handshake", &refusal));
        }
        if refused
            && logs_refusals()
            && let Some(refusal) = decision.and_then(ActualDecision::refusal)
        {
            self.refused(request, "request", &refusal);
        }
        None
    }

    /// What stays on where CORS is off for the request's `route`, as its checks (compiled
    /// from the route's options) say: cross-origin protection, and the origin check of a
    /// WebSocket handshake, which follows the allow list whether or not CORS headers are
    /// written.
    fn without_cors(
        &self,
        route: &RoutePlan,
        cors: &CorsRequest<'_>,
        request: Head<'_>,
        handshake: Handshake,
    ) -> Decision {
        let refused = match route {
            RoutePlan::Off {
                checks: Some(checks),
            } => self.refuse(checks, None, cors, request, handshake),
            _ => None,
        };
        refused.map_or(Decision::HandOn(Finish::Untouched), Decision::Answer)
    }

    /// The answer to a preflight, given without calling any handler; or, with passthrough, its
    /// headers, which the route's own `OPTIONS` handler's answer gets.
    fn preflight(
        &self,
        plan: &PathPlan,
        route: &RoutePlan,
        cors: &CorsRequest<'_>,
        request: Head<'_>,
    ) -> Decision {
        if !plan.has_cors {
            // No CORS on the path (its plan is there for the checks that stay on without it):
            // the preflight is the route's own matter, a `405` without a handler.
            return Decision::HandOn(Finish::Untouched);
        }
        let mut answer = Response::new(Body::empty());
        let headers = answer.headers_mut();
        *answer.status_mut() = match route {
            RoutePlan::On { policy, .. } => {
                let decision = policy.preflight(cors);
                if !decision.is_allowed()
                    && logs_refusals()
                    && let Some(refusal) = decision.refusal()
                {
                    self.refused(request, "preflight", &refusal);
                }
                let status = decision.status();
                decision.write(headers);
                status
            }
            RoutePlan::Off { .. } => {
                self.refused(request, "preflight", &"CORS is off for this route");
                if let Some(vary) = &plan.off_preflight_vary {
                    headers.insert(header::VARY, vary.clone());
                }
                StatusCode::NO_CONTENT
            }
        };
        if plan.passes_preflight_through {
            let headers = std::mem::take(answer.headers_mut());
            return Decision::HandOn(Finish::Preflight(Box::new(headers)));
        }
        Decision::Answer(answer)
    }
    /// The `403 Forbidden` of a request refused before its guards and handler: an unsafe
    /// cross-origin request under cross-origin protection, or a WebSocket handshake from an
    /// origin the policy does not allow. It carries no CORS grant, and varies on what decided
    /// it, so that no cache gives it to another origin.
    fn forbidden(
        &self,
        request: Head<'_>,
        kind: &'static str,
        reason: &dyn std::fmt::Display,
    ) -> Response {
        self.refused(request, kind, reason);
        let mut response = Response::new(Body::from("Forbidden\n"));
        *response.status_mut() = StatusCode::FORBIDDEN;
        let vary = HeaderValue::from_static("Origin, Sec-Fetch-Site");
        response.headers_mut().insert(header::VARY, vary);
        response
    }

    /// Logs, at debug level, a CORS request that gets no grant: its route, its origin and why.
    fn refused(&self, request: Head<'_>, kind: &'static str, reason: &dyn std::fmt::Display) {
        tracing::debug!(
            target: "cors_axum",
            route = self.0.route.as_deref().unwrap_or_else(|| request.uri.path()),
            method = %request.method,
            origin = %OriginForLog(request.headers.get(header::ORIGIN)),
            "CORS {kind} refused: {reason}"
        );
    }
}

/// The host a request is for, as cross-origin protection compares it with `Origin`: its `Host`
/// (HTTP/1.1), or the authority of its URI (HTTP/2).
fn host<'a>(request: Head<'a>) -> Option<&'a [u8]> {
    request
        .headers
        .get(header::HOST)
        .map(HeaderValue::as_bytes)
        .or_else(|| request.uri.authority().map(|a| a.as_str().as_bytes()))
}

/// Cross-origin protection of `request` by `policy`'s rule: where CORS is on, the origin
/// `decision` granted by name is trusted; where it is off (`None`), no origin is. The engine
/// passes safe methods (and `CONNECT`, a WebSocket handshake) first too; asking here spares
/// their requests any other work.
/// Bypass paths are matched against the path the client sent ([`OriginalUri`], which axum's
/// router puts into the request before a nested router strips its prefix), looked up only
/// where the policy has bypass paths.
fn protected<'a>(
    cors: &CorsRequest<'a>,
    request: Head<'a>,
    policy: &CorsPolicy,
    decision: Option<&ActualDecision>,
) -> Result<(), Refusal<'a>> {
    if matches!(
        *request.method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::CONNECT
    ) {
        return Ok(());
    }
    let sent;
    let original = policy
        .has_cross_origin_bypass()
        .then(|| request.extensions.get::<OriginalUri>())
        .flatten();
    let cors = match original {
        Some(original) => {
            sent = cors.with_path_as_sent(original.0.path());
            &sent
        }
        None => cors,
    };
    match decision {
        Some(decision) => policy.cross_origin_after(cors, decision, || host(request)),
        None => policy.cross_origin_without_cors(cors, host(request)),
    }
}

/// Whether `request` is a WebSocket handshake: an HTTP/1.1 upgrade as axum's
/// `WebSocketUpgrade` would upgrade it, or an HTTP/2 extended `CONNECT` (RFC 8441; a `CONNECT`
/// that reaches a route is one, whatever its `:protocol`, so no handshake escapes the
/// decision). Only a `GET` looks a header up (`Upgrade`, then `Connection`).
fn is_handshake(cors: &CorsRequest<'_>, request: Head<'_>) -> bool {
    match *request.method {
        Method::CONNECT => true,
        Method::GET => cors.is_websocket_upgrade(),
        _ => false,
    }
}

/// Whether refusals are logged: asked first, so that an unlogged refusal costs no more than a
/// grant.
fn logs_refusals() -> bool {
    tracing::enabled!(target: "cors_axum", tracing::Level::DEBUG)
}

/// A request's `Origin` in a log line: escaped, `-` when there is none.
struct OriginForLog<'a>(Option<&'a HeaderValue>);

impl std::fmt::Display for OriginForLog<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(value) => write!(f, "{}", value.as_bytes().escape_ascii()),
            None => f.write_str("-"),
        }
    }
}

/// The answer of an asynchronous origin decision: allowed or not, or failed (an error, a
/// panic, or no answer within the policy's timeout), with the reason.
enum LookupAnswer {
    Answered(bool),
    Failed(String),
}

impl LookupAnswer {
    fn as_origin_answer(&self) -> OriginAnswer<'_> {
        match self {
            Self::Answered(true) => OriginAnswer::Allowed,
            Self::Answered(false) => OriginAnswer::Refused,
            Self::Failed(reason) => OriginAnswer::Failed(reason),
        }
    }
}
