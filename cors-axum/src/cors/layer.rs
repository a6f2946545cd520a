//! The tower layer that applies a CORS policy around routes, and the service of the `OPTIONS`
//! routes that `CorsModule` generates.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use cors_axum_core::{
    ActualDecision, CorsConfigError, CorsOptions, CorsPolicy, CorsRequest, OriginAnswer,
    OriginLookup, Refusal, RequestKind, ResponseCredentials,
};
use http::{HeaderValue, Method, Request, StatusCode, header};

use super::service::{CorsState, RequestCors};

/// The CORS of a plain `CorsLayer` with `options`; `reloadable` compiles it to be replaced.
pub(crate) fn layer_cors(
    options: &CorsOptions,
    reloadable: bool,
) -> Result<PathCors, CorsConfigError> {
    let default = if options.is_enabled() {
        let policy = if reloadable {
            CorsPolicy::from_options_reloadable(options)?
        } else {
            CorsPolicy::from_options(options)?
        };
        RoutePolicy::Enabled {
            policy: Box::new(served(policy)),
            passthrough: options.passes_preflight_through(),
        }
    } else {
        RoutePolicy::Disabled
    };
    Ok(PathCors::new(default, Vec::new()))
}

/// `policy` as the layer serves it: preflight answers carry `Content-Length: 0`, which axum
/// would otherwise add to them (into a map without room for it).
pub(crate) fn served(policy: CorsPolicy) -> CorsPolicy {
    policy.with_preflight_header(header::CONTENT_LENGTH, HeaderValue::from_static("0"))
}

/// The CORS of one route.
#[derive(Debug, Clone)]
pub(crate) enum RoutePolicy {
    /// CORS on: the compiled policy, and whether preflights also go to the route's own
    /// `OPTIONS` handler.
    Enabled {
        policy: Box<CorsPolicy>,
        passthrough: bool,
    },
    /// CORS switched off (`cors = false`): no CORS header, preflights refused.
    Disabled,
}

/// Where a path's CORS is read from: compiled once, or replaced by a [`CorsReload`].
///
/// [`CorsReload`]: crate::cors::CorsReload
#[derive(Debug, Clone)]
pub(crate) enum PathSource {
    Static(Arc<PathCors>),
    /// Each request reads it once, so that it sees the old policy or the new one, never a mix.
    Reloadable(Arc<arc_swap::ArcSwap<PathCors>>),
}

impl PathSource {
    /// The asynchronous origin decision to make before answering `request`, if any, with the
    /// CORS it was asked of: the request is answered by that one even if a reload replaces it
    /// while the decision is awaited.
    #[inline]
    fn lookup<B>(&self, request: &Request<B>) -> Option<PendingLookup> {
        match self {
            PathSource::Static(cors) if !cors.asynchronous => None,
            _ => self.lookup_reloadable_or_asynchronous(request),
        }
    }

    fn lookup_reloadable_or_asynchronous<B>(&self, request: &Request<B>) -> Option<PendingLookup> {
        self.with_shared(|cors| {
            if !cors.asynchronous {
                return None;
            }
            let request =
                CorsRequest::new(request.method(), request.headers()).with_uri(request.uri());
            let lookup = cors.lookup(&request)?;
            Some(PendingLookup {
                lookup,
                cors: Arc::clone(cors),
            })
        })
    }

    /// Calls `f` with the path's CORS as it is now.
    fn with<T>(&self, f: impl FnOnce(&PathCors) -> T) -> T {
        self.with_shared(|cors| f(cors))
    }

    /// [`with`](Self::with), given the shared reference, for what must outlive the call.
    fn with_shared<T>(&self, f: impl FnOnce(&Arc<PathCors>) -> T) -> T {
        // One call of `f`, so that it is inlined.
        let loaded;
        let cors: &Arc<PathCors> = match self {
            PathSource::Static(cors) => cors,
            PathSource::Reloadable(slot) => {
                loaded = slot.load();
                &loaded
            }
        };
        f(cors)
    }
}

/// An asynchronous origin decision to await before a request is answered, and the CORS that
/// asked for it.
pub(crate) struct PendingLookup {
    lookup: OriginLookup,
    cors: Arc<PathCors>,
}

/// The compiled CORS of one path: the module's policy, and per-method policies where a
/// controller or route has options of its own.
#[derive(Debug)]
pub(crate) struct PathCors {
    default: RoutePolicy,
    by_method: Vec<(Method, RoutePolicy)>,
    /// Whether any of its policies decides origins asynchronously.
    asynchronous: bool,
}

impl PathCors {
    pub(crate) fn new(default: RoutePolicy, by_method: Vec<(Method, RoutePolicy)>) -> Self {
        let asynchronous = |policy: &RoutePolicy| match policy {
            RoutePolicy::Enabled { policy, .. } => policy.decides_origins_asynchronously(),
            RoutePolicy::Disabled => false,
        };
        let asynchronous =
            asynchronous(&default) || by_method.iter().any(|(_, policy)| asynchronous(policy));
        Self {
            default,
            by_method,
            asynchronous,
        }
    }

    fn policy_for(&self, method: &Method) -> &RoutePolicy {
        self.by_method
            .iter()
            .find(|(m, _)| m == method)
            .map_or(&self.default, |(_, policy)| policy)
    }

    /// The policy that answers a preflight: that of the route the browser asks for.
    fn preflight_policy(&self, request: &CorsRequest<'_>) -> &RoutePolicy {
        if self.by_method.is_empty() {
            return &self.default;
        }
        request
            .requested_method()
            .and_then(|m| Method::from_bytes(m.as_bytes()).ok())
            .map_or(&self.default, |m| self.policy_for(&m))
    }

    /// Whether preflights go on to the path's own `OPTIONS` handler.
    fn passes_preflight_through(&self) -> bool {
        matches!(
            self.policy_for(&Method::OPTIONS),
            RoutePolicy::Enabled {
                passthrough: true,
                ..
            }
        )
    }

    /// The asynchronous origin decision to make before deciding on `cors`, if its policy has
    /// one.
    fn lookup(&self, cors: &CorsRequest<'_>) -> Option<OriginLookup> {
        let policy = if cors.kind() == RequestKind::Preflight {
            self.preflight_policy(cors)
        } else {
            self.policy_for(cors.method())
        };
        match policy {
            RoutePolicy::Enabled { policy, .. } => policy.origin_lookup(cors),
            RoutePolicy::Disabled => None,
        }
    }

    /// The answer to a preflight, without calling any handler.
    fn preflight<B>(
        &self,
        cors: &CorsRequest<'_>,
        request: &Request<B>,
        route: Option<&str>,
    ) -> Response {
        let mut response = Response::new(Body::empty());
        match self.preflight_policy(cors) {
            RoutePolicy::Enabled { policy, .. } => {
                let decision = policy.preflight(cors);
                if let Some(refusal) = decision.refusal() {
                    refused(route, request, "preflight", &refusal);
                }
                *response.status_mut() = decision.status();
                decision.write(response.headers_mut());
            }
            RoutePolicy::Disabled => {
                refused(route, request, "preflight", &"CORS is off for this route");
                *response.status_mut() = StatusCode::NO_CONTENT;
            }
        }
        response
    }

    /// The decision on an actual request (or one that is not CORS); `None` where CORS is off.
    fn actual<B>(
        &self,
        cors: &CorsRequest<'_>,
        request: &Request<B>,
        route: Option<&str>,
    ) -> Option<ActualDecision> {
        let RoutePolicy::Enabled { policy, .. } = self.policy_for(request.method()) else {
            return None;
        };
        let decision = policy.actual(cors);
        if let Some(refusal) = decision.refusal() {
            refused(route, request, "request", &refusal);
        }
        Some(decision)
    }
}

/// Writes `decision` into `response`, after the cookies of `state`; warns once when a
/// credentialed answer under any origin is refused by browsers.
fn write_actual(
    decision: &ActualDecision,
    response: &mut Response,
    credentials: ResponseCredentials,
) {
    if decision.write(response.headers_mut(), credentials)
        == Some(Refusal::CredentialsUnderAnyOrigin)
    {
        super::service::warn_any_origin_with_credentials();
    }
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

/// Logs, at debug level, a CORS request that gets no grant: its route, its origin and why.
fn refused<B>(
    route: Option<&str>,
    request: &Request<B>,
    kind: &'static str,
    reason: &dyn std::fmt::Display,
) {
    tracing::debug!(
        target: "cors_axum",
        route = route.unwrap_or_else(|| request.uri().path()),
        method = %request.method(),
        origin = %Shown(request.headers().get(header::ORIGIN)),
        "CORS {kind} refused: {reason}"
    );
}

/// CORS for a plain axum `Router` that does not use the module system; `CorsModule` puts the
/// same layer on each path of the modules it covers.
///
/// It shares the engine of [`CorsModule`](crate::CorsModule): preflights are answered without
/// calling the handler, other responses get the CORS headers, and handlers can extract
/// [`CorsService`](crate::CorsService). As the layer cannot know the methods of each route, the
/// default allowed methods are those the preflight asks for; set them with
/// `CorsOptions::methods`.
///
/// Put it outside every layer that may reject a request (authentication, rate limits), that
/// is, add it last: `Router::layer` wraps what is already there, so preflights are then
/// answered before those layers run and their rejections carry the CORS headers.
///
/// ```
/// use axum::{Router, routing::get};
/// use cors_axum::{CorsLayer, CorsOptions};
///
/// let layer = CorsLayer::new(CorsOptions::new().origin("https://example.com")).unwrap();
/// let app: Router = Router::new().route("/", get(|| async { "hi" })).layer(layer);
/// # drop(app);
///
/// let err = CorsLayer::new(CorsOptions::new().origin("https://example.com/")).unwrap_err();
/// assert_eq!(err.field(), "origin");
/// ```
#[derive(Debug, Clone)]
pub struct CorsLayer {
    cors: PathSource,
    /// The route's path, for logs; `None` behind a plain `CorsLayer`, which logs the request's.
    route: Option<Arc<str>>,
    /// Whether handlers may take `CorsService`: then each request keeps a state they share.
    service: bool,
}

impl CorsLayer {
    /// Validates `options` and builds the layer.
    pub fn new(options: CorsOptions) -> Result<Self, CorsConfigError> {
        let cors = PathSource::Static(Arc::new(layer_cors(&options, false)?));
        Ok(Self::for_path(cors, None, true))
    }

    /// The layer with its options replaced by `reload` from then on (see
    /// [`CorsReload`](crate::cors::CorsReload)).
    ///
    /// ```
    /// use cors_axum::cors::CorsReload;
    /// use cors_axum::{CorsLayer, CorsOptions};
    ///
    /// let reload = CorsReload::new();
    /// let layer = CorsLayer::new(CorsOptions::new().origin("https://a.example"))?
    ///     .reloaded_by(&reload);
    /// reload.reload(CorsOptions::new().origin("https://b.example"))?;
    /// # drop(layer);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reloaded_by(mut self, reload: &super::CorsReload) -> Self {
        let slot = match self.cors {
            PathSource::Reloadable(slot) => slot,
            PathSource::Static(cors) => Arc::new(arc_swap::ArcSwap::new(cors)),
        };
        reload.register(super::reload::LayerReload { slot: slot.clone() });
        self.cors = PathSource::Reloadable(slot);
        self
    }

    /// The layer of one path (`route`) of a module covered by `CorsModule`; `service` when a
    /// handler of the path takes `CorsService`.
    pub(crate) fn for_path(cors: PathSource, route: Option<Arc<str>>, service: bool) -> Self {
        Self {
            cors,
            route,
            service,
        }
    }
}

impl<S> tower_layer::Layer<S> for CorsLayer {
    type Service = CorsHandling<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CorsHandling {
            inner,
            cors: self.clone(),
        }
    }
}

/// The service of [`CorsLayer`] and of the layer `CorsModule` puts on each path.
#[derive(Debug, Clone)]
pub struct CorsHandling<S> {
    inner: S,
    cors: CorsLayer,
}

impl<S, B> tower_service::Service<Request<B>> for CorsHandling<S>
where
    S: tower_service::Service<Request<B>, Response = Response> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        if let Some(lookup) = self.cors.needs_lookup(&request) {
            // The inner service goes into the future that awaits the decision; it was made
            // ready, so it is the one called, and a clone stays for the next request.
            let ready = self.inner.clone();
            let mut inner = std::mem::replace(&mut self.inner, ready);
            return self
                .cors
                .clone()
                .handle_async(request, lookup, move |request| inner.call(request));
        }
        let inner = &mut self.inner;
        self.cors.handle(request, |request| inner.call(request))
    }
}

impl CorsLayer {
    /// Handles `request` as CORS requires: a preflight is answered here (and also passed to
    /// `call` when asked); any other request goes to `call`, and its answer gets the CORS
    /// headers. `service`: the request keeps a state for `CorsService`. A policy that decides
    /// origins asynchronously needs [`handle_async`](Self::handle_async) instead, which
    /// [`needs_lookup`](Self::needs_lookup) tells.
    pub(crate) fn handle<B, F>(
        &self,
        request: Request<B>,
        call: impl FnOnce(Request<B>) -> F,
    ) -> ResponseFuture<F> {
        self.handle_answered(request, None, call)
    }

    /// The asynchronous origin decision `request` needs first, if any.
    pub(crate) fn needs_lookup<B>(&self, request: &Request<B>) -> Option<PendingLookup> {
        self.cors.lookup(request)
    }

    /// [`handle`](Self::handle) once `lookup` has answered, at most its timeout; an error or a
    /// timeout is answered as a refusal.
    pub(crate) fn handle_async<B, F, C>(
        self,
        request: Request<B>,
        pending: PendingLookup,
        call: C,
    ) -> ResponseFuture<F>
    where
        B: Send + 'static,
        F: Send + 'static,
        C: FnOnce(Request<B>) -> F + Send + 'static,
    {
        let PendingLookup { lookup, cors } = pending;
        let layer = CorsLayer {
            cors: PathSource::Static(cors),
            ..self
        };
        ResponseFuture::lookup(Box::pin(async move {
            let settled = settle(lookup).await;
            layer.handle_answered(request, Some(settled.answer()), call)
        }))
    }

    fn handle_answered<B, F>(
        &self,
        mut request: Request<B>,
        answer: Option<OriginAnswer<'_>>,
        call: impl FnOnce(Request<B>) -> F,
    ) -> ResponseFuture<F> {
        let CorsLayer {
            cors,
            route,
            service,
        } = self;
        let route = route.as_deref();
        let (kind, passthrough) = cors.with(|cors| {
            let mut cors_request =
                CorsRequest::new(request.method(), request.headers()).with_uri(request.uri());
            if let Some(answer) = answer {
                cors_request = cors_request.with_origin_answer(answer);
            }
            let kind = if cors_request.kind() == RequestKind::Preflight {
                Err(cors.preflight(&cors_request, &request, route))
            } else {
                Ok(cors.actual(&cors_request, &request, route))
            };
            (kind, cors.passes_preflight_through())
        });
        let decision = match kind {
            Err(preflight) if passthrough => {
                return ResponseFuture::passthrough(call(request), preflight);
            }
            Err(preflight) => return ResponseFuture::preflight(preflight),
            Ok(None) => return ResponseFuture::untouched(call(request)),
            Ok(Some(decision)) => decision,
        };
        if !service {
            return ResponseFuture::decided(call(request), decision);
        }
        let state = Arc::new(RequestCors::new(decision));
        request.extensions_mut().insert(CorsState(state.clone()));
        ResponseFuture::actual(call(request), state)
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`CorsHandling`].
    pub struct ResponseFuture<F> {
        #[pin]
        kind: Kind<F>,
    }
}

pin_project_lite::pin_project! {
    #[project = KindProj]
    enum Kind<F> {
        Preflight { response: Option<Response> },
        Passthrough {
            #[pin]
            future: F,
            preflight: Option<Response>,
        },
        /// CORS off for the route: the inner answer as it is.
        Untouched {
            #[pin]
            future: F,
        },
        /// A route whose handlers do not set cookies: the decision is all there is to write.
        Decided {
            #[pin]
            future: F,
            decision: ActualDecision,
        },
        /// A route whose handlers may set cookies through `CorsService`.
        Actual {
            #[pin]
            future: F,
            state: Arc<RequestCors>,
        },
        /// Awaiting an asynchronous origin decision, then the rest.
        Lookup {
            decision: Option<Pin<Box<dyn Future<Output = ResponseFuture<F>> + Send>>>,
            then: Option<Pin<Box<ResponseFuture<F>>>>,
        },
    }
}

impl<F> ResponseFuture<F> {
    fn preflight(response: Response) -> Self {
        Self {
            kind: Kind::Preflight {
                response: Some(response),
            },
        }
    }

    fn passthrough(future: F, preflight: Response) -> Self {
        Self {
            kind: Kind::Passthrough {
                future,
                preflight: Some(preflight),
            },
        }
    }

    fn untouched(future: F) -> Self {
        Self {
            kind: Kind::Untouched { future },
        }
    }

    fn decided(future: F, decision: ActualDecision) -> Self {
        Self {
            kind: Kind::Decided { future, decision },
        }
    }

    /// Awaits `decision`, then the future it makes.
    fn lookup(decision: Pin<Box<dyn Future<Output = ResponseFuture<F>> + Send>>) -> Self {
        Self {
            kind: Kind::Lookup {
                decision: Some(decision),
                then: None,
            },
        }
    }

    fn actual(future: F, state: Arc<RequestCors>) -> Self {
        Self {
            kind: Kind::Actual { future, state },
        }
    }
}

impl<F, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().kind.project() {
            KindProj::Preflight { response } => Poll::Ready(Ok(response
                .take()
                .expect("a response future is not polled after it completed"))),
            KindProj::Passthrough { future, preflight } => {
                let mut response = std::task::ready!(future.poll(cx))?;
                let preflight = preflight
                    .take()
                    .expect("a response future is not polled after it completed");
                for (name, value) in preflight.headers() {
                    response.headers_mut().append(name, value.clone());
                }
                Poll::Ready(Ok(response))
            }
            KindProj::Untouched { future } => future.poll(cx),
            KindProj::Decided { future, decision } => {
                let mut response = std::task::ready!(future.poll(cx))?;
                write_actual(decision, &mut response, ResponseCredentials::Policy);
                Poll::Ready(Ok(response))
            }
            KindProj::Actual { future, state } => {
                let mut response = std::task::ready!(future.poll(cx))?;
                let credentials = if state.write_cookies(response.headers_mut()) {
                    ResponseCredentials::Include
                } else {
                    ResponseCredentials::Policy
                };
                write_actual(state.decision(), &mut response, credentials);
                Poll::Ready(Ok(response))
            }
            KindProj::Lookup { decision, then } => {
                if let Some(pending) = decision {
                    let next = std::task::ready!(pending.as_mut().poll(cx));
                    *decision = None;
                    *then = Some(Box::pin(next));
                }
                then.as_mut()
                    .expect("the decision is made before the rest is polled")
                    .as_mut()
                    .poll(cx)
            }
        }
    }
}

/// How an asynchronous origin decision ended: allowed, refused, or failed (an error, or no
/// answer within the policy's timeout), with the reason.
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

/// Awaits `lookup`, at most its timeout.
async fn settle(lookup: OriginLookup) -> Settled {
    match tokio::time::timeout(lookup.timeout, lookup.future).await {
        Ok(Ok(allowed)) => Settled::Answered(allowed),
        Ok(Err(error)) => Settled::Failed(error.to_string()),
        Err(_) => Settled::Failed(format!("no answer within {:?}", lookup.timeout)),
    }
}

/// The `OPTIONS` route `CorsModule` generates for a path without one: it answers preflights,
/// `OPTIONS` requests with an `Origin` and plain `OPTIONS` requests itself (`204` with `Allow`),
/// so that it needs no CORS layer around it.
#[derive(Debug, Clone)]
pub(crate) struct OptionsEndpoint(Arc<OptionsAnswer>);

#[derive(Debug)]
struct OptionsAnswer {
    cors: PathSource,
    allow: HeaderValue,
    route: Arc<str>,
}

impl OptionsEndpoint {
    pub(crate) fn new(cors: PathSource, allow: HeaderValue, route: Arc<str>) -> Self {
        Self(Arc::new(OptionsAnswer { cors, allow, route }))
    }
}

impl<B: Send + 'static> tower_service::Service<Request<B>> for OptionsEndpoint {
    type Response = Response;
    type Error = Infallible;
    type Future = ResponseFuture<std::future::Ready<Result<Response, Infallible>>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    #[expect(
        clippy::async_yields_async,
        reason = "the future the decision makes is polled in place by `ResponseFuture`"
    )]
    fn call(&mut self, request: Request<B>) -> Self::Future {
        if let Some(PendingLookup { lookup, cors }) = self.0.cors.lookup(&request) {
            let endpoint = self.clone();
            return ResponseFuture::lookup(Box::pin(async move {
                let settled = settle(lookup).await;
                let answer = endpoint.answer(&cors, &request, Some(settled.answer()));
                ResponseFuture::preflight(answer)
            }));
        }
        let answer = self.0.cors.with(|cors| self.answer(cors, &request, None));
        ResponseFuture::preflight(answer)
    }
}

impl OptionsEndpoint {
    /// The answer of `cors` to `request`.
    fn answer<B>(
        &self,
        cors: &PathCors,
        request: &Request<B>,
        answer: Option<OriginAnswer<'_>>,
    ) -> Response {
        let OptionsAnswer { allow, route, .. } = &*self.0;
        let route = Some(&**route);
        let mut cors_request =
            CorsRequest::new(request.method(), request.headers()).with_uri(request.uri());
        if let Some(answer) = answer {
            cors_request = cors_request.with_origin_answer(answer);
        }
        if cors_request.kind() == RequestKind::Preflight {
            return cors.preflight(&cors_request, request, route);
        }
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::NO_CONTENT;
        response.headers_mut().insert(header::ALLOW, allow.clone());
        if let Some(decision) = cors.actual(&cors_request, request, route) {
            write_actual(&decision, &mut response, ResponseCredentials::Policy);
        }
        response
    }
}

/// An empty answer with a fixed status, as a service that CORS can wrap: a path's
/// `405 Method Not Allowed` (axum adds `Allow`), and the `404 Not Found` of paths that match no
/// route.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StatusAnswer(pub(crate) StatusCode);

impl<B> tower_service::Service<Request<B>> for StatusAnswer {
    type Response = Response;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Request<B>) -> Self::Future {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = self.0;
        std::future::ready(Ok(response))
    }
}
