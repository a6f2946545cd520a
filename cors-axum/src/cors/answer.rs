//! Answers that no handler gives, as services that CORS wraps: the `405` of a path, the `404`
//! of unknown paths, and the `204` with `Allow` of the `OPTIONS` routes `CorsModule` generates.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use http::{HeaderValue, Method, Request, StatusCode, header};

/// An empty answer with a fixed status and, for `OPTIONS`, the path's `Allow`, behind a
/// reference count: axum clones a route's service for every request, and a count costs less
/// to clone than a header value.
#[derive(Debug, Clone)]
pub(crate) struct FixedAnswer {
    status: StatusCode,
    allow: Option<Arc<HeaderValue>>,
}

impl FixedAnswer {
    /// `status`, empty: a path's `405 Method Not Allowed` (axum adds `Allow`), and the `404 Not
    /// Found` of paths that match no route.
    pub(crate) fn status(status: StatusCode) -> Self {
        Self {
            status,
            allow: None,
        }
    }

    /// `204 No Content` with `Allow` listing `methods`: the answer of a generated `OPTIONS`
    /// route to a request that is not a preflight.
    pub(crate) fn allow(methods: &[Method]) -> Self {
        let allow = methods
            .iter()
            .map(Method::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        Self {
            status: StatusCode::NO_CONTENT,
            allow: Some(Arc::new(
                HeaderValue::from_str(&allow).expect("method names are tokens, a header value"),
            )),
        }
    }
}

impl<B> tower_service::Service<Request<B>> for FixedAnswer {
    type Response = Response;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    /// The answer, whatever the request.
    fn call(&mut self, _: Request<B>) -> Self::Future {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = self.status;
        if let Some(allow) = &self.allow {
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::clone(allow));
        }
        std::future::ready(Ok(response))
    }
}
