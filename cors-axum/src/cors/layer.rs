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
    ActualDecision, CorsConfigError, CorsOptions, CorsPolicy, CorsRequest, Refusal, RequestKind,
    ResponseCredentials,
};
use http::{HeaderValue, Method, Request, StatusCode, header};

use super::service::{CorsState, RequestCors};

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

/// The compiled CORS of one path: the module's policy, and per-method policies where a
/// controller or route has options of its own.
#[derive(Debug)]
pub(crate) struct PathCors {
    pub(crate) default: RoutePolicy,
    pub(crate) by_method: Vec<(Method, RoutePolicy)>,
}

impl PathCors {
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
    cors: Arc<PathCors>,
    /// The route's path, for logs; `None` behind a plain `CorsLayer`, which logs the request's.
    route: Option<Arc<str>>,
    /// Whether handlers may take `CorsService`: then each request keeps a state they share.
    service: bool,
}

impl CorsLayer {
    /// Validates `options` and builds the layer.
    pub fn new(options: CorsOptions) -> Result<Self, CorsConfigError> {
        let default = if options.is_enabled() {
            RoutePolicy::Enabled {
                policy: Box::new(served(CorsPolicy::from_options(&options)?)),
                passthrough: options.passes_preflight_through(),
            }
        } else {
            RoutePolicy::Disabled
        };
        let cors = Arc::new(PathCors {
            default,
            by_method: Vec::new(),
        });
        Ok(Self::for_path(cors, None, true))
    }

    /// The layer of one path (`route`) of a module covered by `CorsModule`; `service` when a
    /// handler of the path takes `CorsService`.
    pub(crate) fn for_path(cors: Arc<PathCors>, route: Option<Arc<str>>, service: bool) -> Self {
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
    S: tower_service::Service<Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let inner = &mut self.inner;
        self.cors.handle(request, |request| inner.call(request))
    }
}

impl CorsLayer {
    /// Handles `request` as CORS requires: a preflight is answered here (and also passed to
    /// `call` when asked); any other request goes to `call`, and its answer gets the CORS
    /// headers. `service`: the request keeps a state for `CorsService`.
    pub(crate) fn handle<B, F>(
        &self,
        mut request: Request<B>,
        call: impl FnOnce(Request<B>) -> F,
    ) -> ResponseFuture<F> {
        let CorsLayer {
            cors,
            route,
            service,
        } = self;
        let route = route.as_deref();
        let kind = {
            let cors_request = CorsRequest::new(request.method(), request.headers());
            if cors_request.kind() == RequestKind::Preflight {
                Err(cors.preflight(&cors_request, &request, route))
            } else {
                Ok(cors.actual(&cors_request, &request, route))
            }
        };
        let decision = match kind {
            Err(preflight) if cors.passes_preflight_through() => {
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
        }
    }
}

/// The `OPTIONS` route `CorsModule` generates for a path without one: it answers preflights,
/// `OPTIONS` requests with an `Origin` and plain `OPTIONS` requests itself (`204` with `Allow`),
/// so that it needs no CORS layer around it.
#[derive(Debug, Clone)]
pub(crate) struct OptionsEndpoint(Arc<OptionsAnswer>);

#[derive(Debug)]
struct OptionsAnswer {
    cors: Arc<PathCors>,
    allow: HeaderValue,
    route: Arc<str>,
}

impl OptionsEndpoint {
    pub(crate) fn new(cors: Arc<PathCors>, allow: HeaderValue, route: Arc<str>) -> Self {
        Self(Arc::new(OptionsAnswer { cors, allow, route }))
    }
}

impl<B> tower_service::Service<Request<B>> for OptionsEndpoint {
    type Response = Response;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let OptionsAnswer { cors, allow, route } = &*self.0;
        let route = Some(&**route);
        let cors_request = CorsRequest::new(request.method(), request.headers());
        let response = if cors_request.kind() == RequestKind::Preflight {
            cors.preflight(&cors_request, &request, route)
        } else {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NO_CONTENT;
            response.headers_mut().insert(header::ALLOW, allow.clone());
            if let Some(decision) = cors.actual(&cors_request, &request, route) {
                write_actual(&decision, &mut response, ResponseCredentials::Policy);
            }
            response
        };
        std::future::ready(Ok(response))
    }
}

/// The `405 Method Not Allowed` answer of a path, as a service that CORS can wrap (axum adds
/// `Allow`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MethodNotAllowed;

impl<B> tower_service::Service<Request<B>> for MethodNotAllowed {
    type Response = Response;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Request<B>) -> Self::Future {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
        std::future::ready(Ok(response))
    }
}

/// The `404 Not Found` answer of paths that match no route, as a service that CORS can wrap.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NotFound;

impl<B> tower_service::Service<Request<B>> for NotFound {
    type Response = Response;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Request<B>) -> Self::Future {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::NOT_FOUND;
        std::future::ready(Ok(response))
    }
}
