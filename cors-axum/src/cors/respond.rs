//! One request on a path under CORS: classified against the path's plan, loaded once; a
//! preflight answered here (or passed on to the route's own `OPTIONS` handler); any other
//! request handed on with the decision that writes its answer's CORS headers; an asynchronous
//! origin decision awaited first where the plan has one.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::OriginalUri;
use axum::response::Response;
use cors_axum_core::{
    ActualDecision, Classification, CorsPolicy, CorsRequest, OriginAnswer, OriginLookup, Refusal,
    RequestKind,
};
use http::{Extensions, HeaderMap, HeaderValue, Method, Request, StatusCode, Uri, header};

use super::future::{Keep, ResponseFuture, Then};
use super::plan::{PathPlan, RouteKey, RoutePlan};
use super::service::ResponseState;
use super::source::PlanSource;
use crate::table::RoutePath;
use crate::unwind::CatchUnwind;

/// The CORS of one path as its requests meet it.
#[derive(Clone, Debug)]
pub(crate) struct PathCors {
    source: PlanSource,
    /// The route's path, for logs; `None` behind a plain `CorsLayer`, which logs the request's.
    route: Option<RoutePath>,
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
    /// How the CORS future keeps an answer given without calling this.
    type Keep: Keep;
    /// The same, owned, to keep while the request waits for an asynchronous origin decision.
    type Owned: Downstream<B, Future = Self::Future, Keep = Self::Keep> + Send + 'static;

    /// Hands the request on.
    fn call(self, request: Request<B>) -> Self::Future;

    /// The same, owned (a wrapped service, taken out of its `&mut`).
    fn into_owned(self) -> Self::Owned;
}

// The enums a decision travels in hold only small values (the large and rare ones boxed):
// each is moved a few times on every request, and a move copies the whole of it.

/// What the plan makes of a request: decided at once, or once its origin is looked up.
pub(crate) enum Step {
    /// Decided.
    Decided(Handling),
    /// An asynchronous origin decision to await first.
    Lookup(Box<Waiting>),
}

/// A request waiting for an asynchronous origin decision, `lookup`, with the request as it was
/// `classified`, to resume from.
pub(crate) struct Waiting {
    lookup: OriginLookup,
    classified: Classified,
}

/// What [`PathCors::prepare`] makes of a request.
pub(crate) enum Prepared {
    /// Hand it on, then finish its answer as this says.
    HandOn(Then),
    /// Answered without handing it on: a preflight, or a request refused before its handler.
    Answer(Response),
    /// An asynchronous origin decision to await first ([`PathCors::after_lookup`]).
    Lookup(Box<Waiting>),
}

/// How a decided request is handled.
pub(crate) enum Handling {
    /// Answered here: a preflight, or a request refused before its handler.
    Answer(Response),
    /// Handed on as it is: CORS is off for the route.
    Untouched,
    /// A preflight passed on to the route's own handler, these headers added to its answer.
    Passthrough(Box<HeaderMap>),
    /// Handed on, then the decision written into its answer.
    Actual(ActualDecision),
}

/// A request as [`PathCors::decide`] classified it, kept while its origin is looked up: the
/// plan that decides it, its CORS headers, its route, and whether it is a WebSocket handshake
/// if that was asked.
pub(crate) struct Classified {
    plan: Arc<PathPlan>,
    request: Classification,
    route: RouteKey,
    handshake: Handshake,
}

/// Whether a request is a WebSocket handshake ([`is_handshake`]), asked at most once.
#[derive(Clone, Copy, Default)]
struct Handshake(Option<bool>);

impl Handshake {
    fn of(&mut self, cors: &CorsRequest<'_>, request: Head<'_>) -> bool {
        *self.0.get_or_insert_with(|| is_handshake(cors, request))
    }
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
    pub(crate) fn new(source: PlanSource, route: Option<RoutePath>, service: bool) -> Self {
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
    #[inline(always)]
    pub(crate) fn respond<B, D>(
        &self,
        mut request: Request<B>,
        downstream: D,
    ) -> ResponseFuture<D::Future, D::Keep>
    where
        B: Send + 'static,
        D: Downstream<B>,
        D::Future: Send + 'static,
    {
        match self.prepare(&mut request) {
            Prepared::HandOn(then) => ResponseFuture::then(downstream.call(request), then),
            Prepared::Answer(response) => ResponseFuture::ready(response),
            Prepared::Lookup(waiting) => {
                self.after_lookup(*waiting, request, downstream.into_owned())
            }
        }
    }

    /// What the path's plan makes of `request`, which is only borrowed: whoever hands it on
    /// moves it once, where a call taking it by value at each step would copy it at each.
    #[inline(always)]
    pub(crate) fn prepare<B>(&self, request: &mut Request<B>) -> Prepared {
        self.prepare_from(request, self.step(Head::of(request)))
    }

    /// What the path's plan made of `request` ([`decided`](Self::decided)), if not decided
    /// at once for a handler that sets no cookies: see [`prepare`](Self::prepare).
    #[inline(always)]
    pub(crate) fn prepare_from<B>(&self, request: &mut Request<B>, step: Step) -> Prepared {
        match step {
            Step::Decided(handling) => match self.then(request, handling) {
                Ok(then) => Prepared::HandOn(then),
                Err(response) => Prepared::Answer(response),
            },
            Step::Lookup(waiting) => Prepared::Lookup(waiting),
        }
    }

    /// How the answer of a request decided as `handling` is finished once it is handed on
    /// (the request marked for its handler as needed), or the answer given without handing it
    /// on.
    #[inline(always)]
    #[allow(
        clippy::result_large_err,
        reason = "inlined into its callers, the result is never moved"
    )]
    fn then<B>(&self, request: &mut Request<B>, handling: Handling) -> Result<Then, Response> {
        Ok(match handling {
            Handling::Actual(decision) if !self.service => Then::Decided(decision),
            Handling::Actual(decision) => {
                let state = Arc::new(ResponseState::new(decision));
                request.extensions_mut().insert(state.clone());
                Then::Actual(state)
            }
            Handling::Answer(response) => return Err(response),
            Handling::Untouched => Then::Untouched,
            Handling::Passthrough(cors) => {
                request.extensions_mut().insert(PreflightPassedOn);
                Then::Passthrough(cors)
            }
        })
    }

    /// What the path's plan makes of `request`, and the decision alone where that is all
    /// there is to hand on (decided at once, the handler setting no cookies): the common
    /// request goes straight from the plan to its handler.
    #[inline(always)]
    #[allow(
        clippy::result_large_err,
        reason = "inlined into its callers, the result is never moved"
    )]
    pub(crate) fn decided<B>(&self, request: &Request<B>) -> Result<ActualDecision, Step> {
        match self.step(Head::of(request)) {
            Step::Decided(Handling::Actual(decision)) if !self.service => Ok(decision),
            step => Err(step),
        }
    }

    /// What the path's plan, loaded once, makes of `request`: not generic, so compiled once.
    fn step(&self, request: Head<'_>) -> Step {
        self.source.with(|plan| self.decide(plan, request))
    }

    /// The rest of `respond` once the asynchronous decision `lookup` has answered (at most its
    /// timeout), resumed from the request as it was `classified`, with the plan that asked for
    /// the lookup, even if a reload replaced it meanwhile.
    pub(crate) fn after_lookup<B, D>(
        &self,
        Waiting { lookup, classified }: Waiting,
        request: Request<B>,
        downstream: D,
    ) -> ResponseFuture<D::Future, D::Keep>
    where
        B: Send + 'static,
        D: Downstream<B> + Send + 'static,
        D::Future: Send + 'static,
    {
        let cors = self.clone();
        ResponseFuture::lookup(Box::pin(async move {
            let mut request = request;
            let answer = settle(lookup).await;
            let handling = cors.resume(classified, Head::of(&request), &answer);
            match cors.then(&mut request, handling) {
                Ok(then) => ResponseFuture::then(downstream.call(request), then),
                Err(response) => ResponseFuture::ready(response),
            }
        }))
    }

    /// What `plan` makes of `request`: classified once; decided now, or, where its origin is
    /// decided asynchronously, classified and kept for [`resume`](Self::resume).
    fn decide(&self, plan: &Arc<PathPlan>, request: Head<'_>) -> Step {
        let cors = CorsRequest::new(request.method, request.headers).with_uri(request.uri);
        let key = plan.route_key(&cors);
        let route = plan.route_at(key);
        let mut handshake = Handshake::default();
        if plan.is_asynchronous()
            && let Some(lookup) = route
                .origin_policy(|| handshake.of(&cors, request))
                .and_then(|policy| policy.origin_lookup(&cors))
        {
            let classified = Classified {
                plan: Arc::clone(plan),
                request: cors.classification(),
                route: key,
                handshake,
            };
            return Step::Lookup(Box::new(Waiting { lookup, classified }));
        }
        Step::Decided(self.handle(plan, route, &cors, request, handshake))
    }

    /// The decision on a request kept while its origin was looked up, with the lookup's
    /// `answer`: no header is looked up again.
    fn resume(&self, classified: Classified, request: Head<'_>, answer: &LookupAnswer) -> Handling {
        let Classified {
            plan,
            request: kept,
            route,
            handshake,
        } = classified;
        let cors = CorsRequest::resumed(request.method, request.headers, &kept)
            .with_uri(request.uri)
            .with_origin_answer(answer.as_origin_answer());
        self.handle(&plan, plan.route_at(route), &cors, request, handshake)
    }

    /// How `route` of `plan` handles the classified request `cors`.
    fn handle(
        &self,
        plan: &PathPlan,
        route: &RoutePlan,
        cors: &CorsRequest<'_>,
        request: Head<'_>,
        mut handshake: Handshake,
    ) -> Handling {
        if cors.kind() == RequestKind::Preflight {
            if !plan.has_cors() {
                // No CORS on the path (its plan is there for the checks that stay on without
                // it): the preflight is the route's own matter, a `405` without a handler.
                return Handling::Untouched;
            }
            if plan.passes_preflight_through() {
                let mut headers = Box::default();
                self.preflight(plan, route, cors, request, &mut headers);
                return Handling::Passthrough(headers);
            }
            // Written straight into the answer's own headers.
            let mut response = Response::new(Body::empty());
            let status = self.preflight(plan, route, cors, request, response.headers_mut());
            *response.status_mut() = status;
            return Handling::Answer(response);
        }
        let policy = match route {
            RoutePlan::On { policy, .. } => policy,
            RoutePlan::Off { checks: None } => return Handling::Untouched,
            RoutePlan::Off {
                checks: Some(checks),
            } => return self.without_cors(checks, cors, request, handshake),
        };
        let decision = policy.actual(cors);
        if policy.protects_cross_origin()
            && let Err(refusal) = protected(cors, request, policy, Some(&decision))
        {
            return Handling::Answer(self.forbidden(request, "unsafe request", &refusal));
        }
        if !decision.is_allowed() && decision.is_cors() {
            // A WebSocket handshake from an origin that may not read the path's answers may not
            // open a socket either: browsers apply no CORS to it.
            if handshake.of(cors, request)
                && let Err(refusal) = policy.websocket_handshake(cors, host(request))
            {
                return Handling::Answer(self.forbidden(request, "WebSocket handshake", &refusal));
            }
            if logs_refusals()
                && let Some(refusal) = decision.refusal()
            {
                self.refused(request, "request", &refusal);
            }
        }
        Handling::Actual(decision)
    }

    /// What stays on where CORS is off, as `checks` (compiled from the route's options) says:
    /// cross-origin protection trusting no origin, and the origin check of a WebSocket
    /// handshake, which follows the allow list whether or not CORS headers are written.
    fn without_cors(
        &self,
        checks: &CorsPolicy,
        cors: &CorsRequest<'_>,
        request: Head<'_>,
        mut handshake: Handshake,
    ) -> Handling {
        if checks.protects_cross_origin()
            && let Err(refusal) = protected(cors, request, checks, None)
        {
            return Handling::Answer(self.forbidden(request, "unsafe request", &refusal));
        }
        // Without `Origin` a handshake passes: asked first, so that the other requests cost
        // no header lookup.
        if cors.kind() != RequestKind::NotCors
            && handshake.of(cors, request)
            && let Err(refusal) = checks.websocket_handshake(cors, host(request))
        {
            return Handling::Answer(self.forbidden(request, "WebSocket handshake", &refusal));
        }
        Handling::Untouched
    }

    /// The status of the answer to a preflight, its headers written into `headers`, without
    /// calling any handler.
    fn preflight(
        &self,
        plan: &PathPlan,
        route: &RoutePlan,
        cors: &CorsRequest<'_>,
        request: Head<'_>,
        headers: &mut HeaderMap,
    ) -> StatusCode {
        match route {
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
                if let Some(vary) = plan.off_preflight_vary() {
                    headers.insert(header::VARY, vary.clone());
                }
                StatusCode::NO_CONTENT
            }
        }
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
        let mut headers = HeaderMap::new();
        headers.insert(
            header::VARY,
            HeaderValue::from_static("Origin, Sec-Fetch-Site"),
        );
        answer(StatusCode::FORBIDDEN, headers, Body::from("Forbidden\n"))
    }

    /// Logs, at debug level, a CORS request that gets no grant: its route, its origin and why.
    fn refused(&self, request: Head<'_>, kind: &'static str, reason: &dyn std::fmt::Display) {
        tracing::debug!(
            target: "cors_axum",
            route = self.route.as_deref().unwrap_or_else(|| request.uri.path()),
            method = %request.method,
            origin = %OriginForLog(request.headers.get(header::ORIGIN)),
            "CORS {kind} refused: {reason}"
        );
    }
}

/// A response with `status`, `headers` and `body`.
fn answer(status: StatusCode, headers: HeaderMap, body: Body) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
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

/// Awaits `lookup`, at most its timeout; a panic in it is a failure like an error.
async fn settle(lookup: OriginLookup) -> LookupAnswer {
    let timeout = lookup.timeout;
    match tokio::time::timeout(timeout, CatchUnwind::new(lookup.future)).await {
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
    }
}
