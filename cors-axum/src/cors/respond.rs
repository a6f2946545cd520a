//! One request on a path under CORS: classified against the path's plan, loaded once; a
//! preflight answered here (or passed on to the route's own `OPTIONS` handler); any other
//! request handed on with the decision that writes its answer's CORS headers; an asynchronous
//! origin decision awaited first where the plan has one.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::OriginalUri;
use axum::response::Response;
use cors_axum_core::{
    ActualDecision, CorsPolicy, CorsRequest, OriginAnswer, OriginLookup, Refusal, RequestKind,
};
use http::{Extensions, HeaderMap, HeaderValue, Method, Request, StatusCode, Uri, header};

use super::future::ResponseFuture;
use super::plan::{PathPlan, RoutePlan};
use super::service::ResponseState;
use super::source::PlanSource;
use crate::unwind::CatchUnwind;

/// The CORS of one path as its requests meet it.
#[derive(Clone, Debug)]
pub(crate) struct PathCors {
    source: PlanSource,
    /// The route's path, for logs; `None` behind a plain `CorsLayer`, which logs the request's.
    route: Option<Arc<str>>,
    /// Whether handlers may take `CorsService`: then each request keeps a state they share.
    service: bool,
}

/// Marks a preflight passed on to the route's own `OPTIONS` handler: its guards do not run,
/// since a browser sends a preflight without credentials.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreflightPassedOn;

/// What CORS hands a request on to: the route's handler, or the service a layer wraps.
pub(crate) trait Downstream<B>: Sized {
    /// The answer's future.
    type Future;
    /// What answers the request after an asynchronous origin decision.
    type Later: Downstream<B, Future = Self::Future> + Send + 'static;

    /// Hands the request on.
    fn call(self, request: Request<B>) -> Self::Future;

    /// What can hand the request on later, once the origin is decided.
    fn later(self) -> Self::Later;
}

/// What the plan makes of a request.
enum Step {
    /// Answered here: a preflight, or a request refused before its handler.
    Answer(Response),
    /// An asynchronous origin decision to await first.
    Lookup(OriginLookup),
    /// Handed on as it is: CORS is off for the route.
    Untouched,
    /// A preflight passed on to the route's own handler, these headers added to its answer.
    Passthrough(HeaderMap),
    /// Handed on, then the decision written into its answer.
    Decided(ActualDecision),
}

/// What deciding reads of a request, whatever its body type: its head, borrowed. The decision
/// takes this rather than the request, so that it is compiled once, in this crate, instead of
/// in every application for every route's handler.
#[derive(Clone, Copy)]
struct Head<'a> {
    method: &'a Method,
    uri: &'a Uri,
    headers: &'a HeaderMap,
    extensions: &'a Extensions,
}

impl<'a> Head<'a> {
    fn of<B>(request: &'a Request<B>) -> Self {
        Self {
            method: request.method(),
            uri: request.uri(),
            headers: request.headers(),
            extensions: request.extensions(),
        }
    }
}

impl PathCors {
    pub(crate) fn new(source: PlanSource, route: Option<Arc<str>>, service: bool) -> Self {
        Self {
            source,
            route,
            service,
        }
    }

    pub(crate) fn source(&self) -> &PlanSource {
        &self.source
    }

    /// Answers `request` as the path's plan says, handing it on to `downstream` unless it is a
    /// preflight.
    #[inline]
    pub(crate) fn respond<B, D>(
        &self,
        request: Request<B>,
        downstream: D,
    ) -> ResponseFuture<D::Future>
    where
        B: Send + 'static,
        D: Downstream<B>,
        D::Future: Send + 'static,
    {
        self.source
            .with(|plan| match self.decide(plan, Head::of(&request), None) {
                Step::Lookup(lookup) => {
                    self.after_lookup(plan.clone(), lookup, request, downstream.later())
                }
                step => self.proceed(request, step, downstream),
            })
    }

    /// The rest of `respond`, once the asynchronous decision `lookup` has answered, at most its
    /// timeout, with `plan`, which asked for it, even if a reload replaced it meanwhile.
    fn after_lookup<B, L>(
        &self,
        plan: Arc<PathPlan>,
        lookup: OriginLookup,
        request: Request<B>,
        later: L,
    ) -> ResponseFuture<L::Future>
    where
        B: Send + 'static,
        L: Downstream<B> + Send + 'static,
        L::Future: Send + 'static,
    {
        let cors = self.clone();
        ResponseFuture::lookup(Box::pin(async move {
            let settled = settle(lookup).await;
            let step = cors.decide(&plan, Head::of(&request), Some(settled.answer()));
            cors.proceed(request, step, later)
        }))
    }

    /// Hands `request` on as `step` says.
    #[inline]
    fn proceed<B, D: Downstream<B>>(
        &self,
        mut request: Request<B>,
        step: Step,
        downstream: D,
    ) -> ResponseFuture<D::Future> {
        match step {
            Step::Decided(decision) if !self.service => {
                ResponseFuture::decided(downstream.call(request), decision)
            }
            Step::Decided(decision) => {
                let state = Arc::new(ResponseState::new(decision));
                request.extensions_mut().insert(state.clone());
                ResponseFuture::actual(downstream.call(request), state)
            }
            Step::Answer(response) => ResponseFuture::ready(response),
            Step::Untouched => ResponseFuture::untouched(downstream.call(request)),
            Step::Passthrough(cors) => {
                request.extensions_mut().insert(PreflightPassedOn);
                ResponseFuture::passthrough(downstream.call(request), cors)
            }
            Step::Lookup(_) => unreachable!("a decision with the lookup's answer needs no lookup"),
        }
    }

    /// What `plan` makes of `request`, given the answer of its asynchronous origin decision, if
    /// one was made.
    fn decide(&self, plan: &PathPlan, request: Head<'_>, answer: Option<OriginAnswer<'_>>) -> Step {
        let mut cors = CorsRequest::new(request.method, request.headers).with_uri(request.uri);
        if let Some(answer) = answer {
            cors = cors.with_origin_answer(answer);
        }
        let route = plan.route_for(&cors);
        if answer.is_none()
            && plan.is_asynchronous()
            && let Some(lookup) = route
                .origin_policy(|| is_handshake(&cors, request))
                .and_then(|policy| policy.origin_lookup(&cors))
        {
            return Step::Lookup(lookup);
        }
        if cors.kind() == RequestKind::Preflight {
            if !plan.has_cors() {
                // No CORS on the path (its plan is there for the checks that stay on without
                // it): the preflight is the route's own matter, a `405` without a handler.
                return Step::Untouched;
            }
            let answer = self.preflight(plan, route, &cors, request);
            if plan.passes_preflight_through() {
                return Step::Passthrough(answer.into_parts().0.headers);
            }
            return Step::Answer(answer);
        }
        let policy = match route {
            RoutePlan::On { policy, .. } => policy,
            RoutePlan::Off { checks: None } => return Step::Untouched,
            RoutePlan::Off {
                checks: Some(checks),
            } => return self.without_cors(checks, &cors, request),
        };
        if policy.protects_cross_origin()
            && let Err(refusal) = protected(&cors, request, policy, true)
        {
            return Step::Answer(self.forbidden(request, "unsafe request", &refusal));
        }
        let decision = policy.actual(&cors);
        if !decision.is_allowed() && decision.is_cors() {
            // A WebSocket handshake from an origin that may not read the path's answers may not
            // open a socket either: browsers apply no CORS to it.
            if let Err(refusal) = websocket(policy, &cors, request) {
                return Step::Answer(self.forbidden(request, "WebSocket handshake", &refusal));
            }
            if logs_refusals()
                && let Some(refusal) = decision.refusal()
            {
                self.refused(request, "request", &refusal);
            }
        }
        Step::Decided(decision)
    }

    /// What stays on where CORS is off, as `checks` (compiled from the route's options) says:
    /// cross-origin protection trusting no origin, and the origin check of a WebSocket
    /// handshake, which follows the allow list whether or not CORS headers are written.
    fn without_cors(&self, checks: &CorsPolicy, cors: &CorsRequest<'_>, request: Head<'_>) -> Step {
        if checks.protects_cross_origin()
            && let Err(refusal) = protected(cors, request, checks, false)
        {
            return Step::Answer(self.forbidden(request, "unsafe request", &refusal));
        }
        // Without `Origin` a handshake passes: asked first, so that the other requests cost
        // no header lookup.
        if cors.kind() != RequestKind::NotCors
            && let Err(refusal) = websocket(checks, cors, request)
        {
            return Step::Answer(self.forbidden(request, "WebSocket handshake", &refusal));
        }
        Step::Untouched
    }

    /// The answer to a preflight, without calling any handler.
    fn preflight(
        &self,
        plan: &PathPlan,
        route: &RoutePlan,
        cors: &CorsRequest<'_>,
        request: Head<'_>,
    ) -> Response {
        let mut response = Response::new(Body::empty());
        match route {
            RoutePlan::On { policy, .. } => {
                let decision = policy.preflight(cors);
                if !decision.is_allowed()
                    && logs_refusals()
                    && let Some(refusal) = decision.refusal()
                {
                    self.refused(request, "preflight", &refusal);
                }
                *response.status_mut() = decision.status();
                decision.write(response.headers_mut());
            }
            RoutePlan::Off { .. } => {
                self.refused(request, "preflight", &"CORS is off for this route");
                *response.status_mut() = StatusCode::NO_CONTENT;
                if let Some(vary) = plan.off_preflight_vary() {
                    response.headers_mut().insert(header::VARY, vary.clone());
                }
            }
        }
        response
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
        response.headers_mut().insert(
            header::VARY,
            HeaderValue::from_static("Origin, Sec-Fetch-Site"),
        );
        response
    }

    /// Logs, at debug level, a CORS request that gets no grant: its route, its origin and why.
    fn refused(&self, request: Head<'_>, kind: &'static str, reason: &dyn std::fmt::Display) {
        tracing::debug!(
            target: "cors_axum",
            route = self.route.as_deref().unwrap_or_else(|| request.uri.path()),
            method = %request.method,
            origin = %Shown(request.headers.get(header::ORIGIN)),
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

/// Cross-origin protection of `request` by `policy`'s rule: the origins it allows are trusted
/// where CORS is on (`cors_on`); none is where it is off. The engine passes safe methods (and
/// `CONNECT`, a WebSocket handshake) first too; asking here spares their requests the lookup
/// of `Host`.
/// Bypass paths are matched against the path the client sent ([`OriginalUri`], which axum's
/// router puts into the request before a nested router strips its prefix), looked up only
/// where the policy has bypass paths.
fn protected<'a>(
    cors: &CorsRequest<'a>,
    request: Head<'a>,
    policy: &CorsPolicy,
    cors_on: bool,
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
    if cors_on {
        policy.cross_origin(cors, host(request))
    } else {
        policy.cross_origin_without_cors(cors, host(request))
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

/// The origin decision of a WebSocket handshake ([`is_handshake`]) by `policy`; `Ok` for any
/// other request.
fn websocket<'a>(
    policy: &CorsPolicy,
    cors: &CorsRequest<'a>,
    request: Head<'a>,
) -> Result<(), Refusal<'a>> {
    if !is_handshake(cors, request) {
        return Ok(());
    }
    policy.websocket_handshake(cors, host(request))
}

/// Whether refusals are logged: asked first, so that an unlogged refusal costs no more than a
/// grant.
fn logs_refusals() -> bool {
    tracing::enabled!(target: "cors_axum", tracing::Level::DEBUG)
}

/// A request's `Origin` in a log line: escaped, `-` when there is none.
struct Shown<'a>(Option<&'a HeaderValue>);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(value) => write!(f, "{}", value.as_bytes().escape_ascii()),
            None => f.write_str("-"),
        }
    }
}

/// How an asynchronous origin decision ended: allowed, refused, or failed (an error, a panic,
/// or no answer within the policy's timeout), with the reason.
enum Settled {
    Answered(bool),
    Failed(String),
}

impl Settled {
    fn answer(&self) -> OriginAnswer<'_> {
        match self {
            Self::Answered(true) => OriginAnswer::Allowed,
            Self::Answered(false) => OriginAnswer::Refused,
            Self::Failed(reason) => OriginAnswer::Failed(reason),
        }
    }
}

/// Awaits `lookup`, at most its timeout; a panic in it is a failure like an error.
async fn settle(lookup: OriginLookup) -> Settled {
    let timeout = lookup.timeout;
    match tokio::time::timeout(timeout, CatchUnwind::new(lookup.future)).await {
        Ok(Ok(Ok(allowed))) => Settled::Answered(allowed),
        Ok(Ok(Err(error))) => Settled::Failed(error.to_string()),
        Ok(Err(panic)) => {
            tracing::error!(
                target: "cors_axum",
                "the asynchronous origin decision panicked: {}",
                panic.escape_debug()
            );
            Settled::Failed(format!("the decision panicked: {panic}"))
        }
        Err(_) => Settled::Failed(format!("no answer within {timeout:?}")),
    }
}
