//! [`ResponseFuture`]: a request's answer, with the CORS headers its plan decided written into
//! it once the handler (or the wrapped service) has answered.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::response::Response;
use cors_axum_core::{
    ActualDecision, ResponseCredentials, merge_vary, remove_cors_headers, vary_on_origin,
};
use http::header::{self, HeaderMap};

use super::service::{ResponseState, warn_any_origin_with_credentials};

/// How the answer of a request handed on is finished.
pub(crate) enum Finish {
    /// As it is: CORS is off for the route.
    Untouched,
    /// With the decision's headers written into it.
    Headers(ActualDecision),
    /// With `Vary: Origin` alone, all a decision on a request without `Origin` writes.
    VaryOrigin,
    /// With the decision's headers and the cookies its handler set through `CorsService`.
    Cookies(Arc<ResponseState>),
    /// A preflight's headers added to the answer of the route's own `OPTIONS` handler.
    Preflight(Box<HeaderMap>),
}

/// The boxed rest of a request that waits for an asynchronous origin decision first.
type AfterLookup<F> = Pin<Box<dyn Future<Output = ResponseFuture<F>> + Send>>;

pin_project_lite::pin_project! {
    /// The response future of [`Cors`](crate::cors::Cors) and of the routes `CorsModule`
    /// covers: the inner answer with the CORS headers of the path's plan.
    pub struct ResponseFuture<F> {
        #[pin]
        state: State<F>,
    }
}

pin_project_lite::pin_project! {
    #[project = StateProj]
    enum State<F> {
        /// Answered by the plan (a preflight, a refusal), without calling the inner service.
        Ready { response: Option<Response> },
        /// Handed on: the inner answer, finished as `finish` says.
        HandedOn {
            #[pin]
            future: F,
            finish: Finish,
        },
        /// Awaiting an asynchronous origin decision, then one of the above.
        Lookup { rest: AfterLookup<F> },
    }
}

impl<F> ResponseFuture<F> {
    pub(crate) fn ready(response: Response) -> Self {
        Self {
            state: State::Ready {
                response: Some(response),
            },
        }
    }

    pub(crate) fn new(future: F, finish: Finish) -> Self {
        Self {
            state: State::HandedOn { future, finish },
        }
    }

    pub(crate) fn lookup(rest: AfterLookup<F>) -> Self {
        Self {
            state: State::Lookup { rest },
        }
    }
}

/// What the inner future of a [`ResponseFuture`] answers with: a handler's `Response`, or a
/// service's `Result<Response, E>`. Sealed: one response future serves handlers and services
/// alike, with no adapter between a handler's future and it.
pub trait InnerAnswer: sealed::Sealed {
    /// The response, unless the service failed.
    fn response_mut(&mut self) -> Option<&mut Response>;
    /// An answer given without calling the inner service.
    fn answered(response: Response) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for axum::response::Response {}
    impl<E> Sealed for Result<axum::response::Response, E> {}
}

impl InnerAnswer for Response {
    fn response_mut(&mut self) -> Option<&mut Response> {
        Some(self)
    }

    fn answered(response: Response) -> Self {
        response
    }
}

impl<E> InnerAnswer for Result<Response, E> {
    fn response_mut(&mut self) -> Option<&mut Response> {
        self.as_mut().ok()
    }

    fn answered(response: Response) -> Self {
        Ok(response)
    }
}

impl<F> Future for ResponseFuture<F>
where
    F: Future<Output: InnerAnswer>,
{
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.as_mut().project().state.project() {
            StateProj::Ready { response } => Poll::Ready(F::Output::answered(
                response
                    .take()
                    .expect("a response future is not polled after it completed"),
            )),
            StateProj::HandedOn { future, finish } => {
                // The answer is finished where the inner future put it, and returned from
                // there: a response (128 bytes) is not copied.
                let mut poll = future.poll(cx);
                let Poll::Ready(answer) = &mut poll else {
                    return poll;
                };
                let Some(response) = answer.response_mut() else {
                    return poll;
                };
                let headers = response.headers_mut();
                match finish {
                    Finish::Untouched => {}
                    Finish::Headers(decision) => {
                        if decision.write_headers(headers, ResponseCredentials::Policy) {
                            warn_any_origin_with_credentials();
                        }
                    }
                    Finish::VaryOrigin => vary_on_origin(headers),
                    Finish::Cookies(state) => {
                        let credentials = if state.write_cookies(headers) {
                            ResponseCredentials::Include
                        } else {
                            ResponseCredentials::Policy
                        };
                        if state.decision.write_headers(headers, credentials) {
                            warn_any_origin_with_credentials();
                        }
                    }
                    Finish::Preflight(cors) => add_preflight_headers(headers, std::mem::take(cors)),
                }
                poll
            }
            StateProj::Lookup { rest } => {
                let next = ready!(rest.as_mut().poll(cx));
                self.as_mut().project().state.set(next.state);
                self.poll(cx)
            }
        }
    }
}

/// Adds a preflight answer's CORS headers to the answer of the route's own `OPTIONS` handler:
/// its `Access-Control-*` headers replace any the handler set, its `Vary` names are merged, its
/// `Cache-Control` (there only where `preflight_cache_control` is configured: the configured
/// value on a grant, `no-store` on a refusal) replaces the handler's, and nothing else is
/// copied, least of all framing headers such as `Content-Length`, which belong to the
/// handler's body.
fn add_preflight_headers(headers: &mut HeaderMap, cors: HeaderMap) {
    remove_cors_headers(headers);
    let mut name = None;
    for (next, value) in cors {
        // `HeaderMap::into_iter` names only the first value of each header.
        name = next.or(name);
        let Some(name) = &name else { continue };
        if *name == header::VARY {
            merge_vary(headers, &value);
        } else if *name == header::CACHE_CONTROL {
            headers.insert(header::CACHE_CONTROL, value);
        } else if name.as_str().starts_with("access-control-") {
            headers.append(name.clone(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn a_passed_on_preflight_adds_only_cors_headers_and_vary() {
        let mut handler = HeaderMap::new();
        handler.insert(header::CONTENT_LENGTH, HeaderValue::from_static("5"));
        handler.insert(header::VARY, HeaderValue::from_static("Accept"));
        handler.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
        let mut cors = HeaderMap::new();
        cors.insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
        cors.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("https://a.example"),
        );
        cors.insert(header::VARY, HeaderValue::from_static("Origin"));
        add_preflight_headers(&mut handler, cors);
        assert_eq!(handler[header::CONTENT_LENGTH], "5");
        assert_eq!(
            handler[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "https://a.example"
        );
        assert_eq!(
            handler
                .get_all(header::ACCESS_CONTROL_ALLOW_ORIGIN)
                .iter()
                .count(),
            1
        );
        assert_eq!(handler[header::VARY], "Accept, Origin");
    }
}
