//! The tower layer that applies a CORS policy around routes.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use cors_axum_core::{
    CorsConfigError, CorsOptions, CorsPolicy, CorsRequest, Refusal, RequestKind,
    ResponseCredentials,
};
use http::{Method, Request, StatusCode};

use super::service::{CorsService, RequestCors};

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
}

/// CORS for a plain axum `Router` that does not use the module system; `CorsModule` puts the
/// same layer on each path of the modules it covers.
///
/// It shares the engine of [`CorsModule`](crate::CorsModule): preflights are answered without
/// calling the handler, other responses get the CORS headers, and handlers can extract
/// [`CorsService`]. As the layer cannot know the methods of each route, the default
/// allowed methods are those the preflight asks for; set them with `CorsOptions::methods`.
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
}

impl CorsLayer {
    /// Validates `options` and builds the layer.
    pub fn new(options: CorsOptions) -> Result<Self, CorsConfigError> {
        let default = if options.is_enabled() {
            RoutePolicy::Enabled {
                policy: Box::new(CorsPolicy::from_options(&options)?),
                passthrough: options.passes_preflight_through(),
            }
        } else {
            RoutePolicy::Disabled
        };
        Ok(Self::for_path(
            Arc::new(PathCors {
                default,
                by_method: Vec::new(),
            }),
            None,
        ))
    }

    /// The layer of one path (`route`) of a module covered by `CorsModule`.
    pub(crate) fn for_path(cors: Arc<PathCors>, route: Option<Arc<str>>) -> Self {
        Self { cors, route }
    }
}

impl<S> tower_layer::Layer<S> for CorsLayer {
    type Service = CorsHandling<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CorsHandling {
            inner,
            cors: self.cors.clone(),
            route: self.route.clone(),
        }
    }
}

/// The service of [`CorsLayer`] and of the layer `CorsModule` puts on each path.
#[derive(Debug, Clone)]
pub struct CorsHandling<S> {
    inner: S,
    cors: Arc<PathCors>,
    route: Option<Arc<str>>,
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

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let cors = CorsRequest::new(request.method(), request.headers());
        if cors.kind() == RequestKind::Preflight {
            let mut response = Response::new(Body::empty());
            match self.cors.preflight_policy(&cors) {
                RoutePolicy::Enabled { policy, .. } => {
                    let decision = policy.preflight(&cors);
                    if let Some(refusal) = decision.refusal() {
                        refused(self.route.as_deref(), &request, "preflight", &refusal);
                    }
                    *response.status_mut() = decision.status();
                    decision.write(response.headers_mut());
                }
                RoutePolicy::Disabled => {
                    refused(
                        self.route.as_deref(),
                        &request,
                        "preflight",
                        &"CORS is off for this route",
                    );
                    *response.status_mut() = StatusCode::NO_CONTENT;
                }
            }
            if self.cors.passes_preflight_through() {
                return ResponseFuture::passthrough(self.inner.call(request), response);
            }
            return ResponseFuture::preflight(response);
        }
        let RoutePolicy::Enabled { policy, .. } = self.cors.policy_for(request.method()) else {
            return ResponseFuture::untouched(self.inner.call(request));
        };
        let decision = policy.actual(&cors);
        if let Some(refusal) = decision.refusal() {
            refused(self.route.as_deref(), &request, "request", &refusal);
        }
        let state = Arc::new(RequestCors::new(decision, request.headers(), request.uri()));
        request
            .extensions_mut()
            .insert(CorsService::new(state.clone()));
        ResponseFuture::actual(self.inner.call(request), state)
    }
}

/// A request's `Origin` in a log line: escaped, `-` when there is none.
struct Shown<'a>(Option<&'a http::HeaderValue>);

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
        origin = %Shown(request.headers().get(http::header::ORIGIN)),
        "CORS {kind} refused: {reason}"
    );
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
            KindProj::Actual { future, state } => {
                let mut response = std::task::ready!(future.poll(cx))?;
                let headers = response.headers_mut();
                let credentials = if state.write_cookies(headers) {
                    ResponseCredentials::Include
                } else {
                    ResponseCredentials::Policy
                };
                let refusal = state.decision().write(headers, credentials);
                if refusal == Some(Refusal::CredentialsUnderAnyOrigin) {
                    super::service::warn_any_origin_with_credentials();
                }
                Poll::Ready(Ok(response))
            }
        }
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
