//! The tower layer that applies a CORS policy around routes.

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
use http::{Method, Request};

use super::service::{CorsService, RequestCors};

/// The compiled CORS of one path: the module's policy, and per-method policies where a
/// controller or route has options of its own.
#[derive(Debug)]
pub(crate) struct PathCors {
    pub(crate) default: CorsPolicy,
    pub(crate) by_method: Vec<(Method, CorsPolicy)>,
}

impl PathCors {
    fn policy_for(&self, method: &Method) -> &CorsPolicy {
        self.by_method
            .iter()
            .find(|(m, _)| m == method)
            .map_or(&self.default, |(_, policy)| policy)
    }

    /// The policy that answers a preflight: that of the route the browser asks for.
    fn preflight_policy(&self, request: &CorsRequest<'_>) -> &CorsPolicy {
        if self.by_method.is_empty() {
            return &self.default;
        }
        request
            .requested_method()
            .and_then(|m| Method::from_bytes(m.as_bytes()).ok())
            .map_or(&self.default, |m| self.policy_for(&m))
    }
}

/// CORS for a plain axum `Router` that does not use the module system; `CorsModule` puts the
/// same layer on each path of the module that imports it.
///
/// It shares the engine of [`CorsModule`](crate::CorsModule): preflights are answered without
/// calling the handler, other responses get the CORS headers, and handlers can extract
/// [`CorsService`]. As the layer cannot know the methods of each route, the default
/// allowed methods are those the preflight asks for; set them with `CorsOptions::methods`.
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
}

impl CorsLayer {
    /// Validates `options` and builds the layer.
    pub fn new(options: CorsOptions) -> Result<Self, CorsConfigError> {
        let default = CorsPolicy::from_options(&options)?;
        Ok(Self::for_path(Arc::new(PathCors {
            default,
            by_method: Vec::new(),
        })))
    }

    /// The layer of one path of a module importing `CorsModule`.
    pub(crate) fn for_path(cors: Arc<PathCors>) -> Self {
        Self { cors }
    }
}

impl<S> tower_layer::Layer<S> for CorsLayer {
    type Service = CorsHandling<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CorsHandling {
            inner,
            cors: self.cors.clone(),
        }
    }
}

/// The service of [`CorsLayer`] and of the layer `CorsModule` puts on each path.
#[derive(Debug, Clone)]
pub struct CorsHandling<S> {
    inner: S,
    cors: Arc<PathCors>,
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
            let decision = self.cors.preflight_policy(&cors).preflight(&cors);
            let mut response = Response::new(Body::empty());
            *response.status_mut() = decision.status();
            decision.write(response.headers_mut());
            return ResponseFuture::preflight(response);
        }
        let decision = self.cors.policy_for(request.method()).actual(&cors);
        let state = Arc::new(RequestCors::new(decision, request.headers(), request.uri()));
        request
            .extensions_mut()
            .insert(CorsService::new(state.clone()));
        ResponseFuture::actual(self.inner.call(request), state)
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
            KindProj::Preflight { response } => {
                // Polled again only after completion, which futures must not do; an empty
                // response is the harmless answer.
                Poll::Ready(Ok(response.take().unwrap_or_default()))
            }
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
