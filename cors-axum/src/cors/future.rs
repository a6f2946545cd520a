//! [`ResponseFuture`]: a request's answer, with the CORS headers its plan decided written into
//! it once the handler (or the wrapped service) has answered.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::response::Response;
use cors_axum_core::{ActualDecision, ResponseCredentials, merge_vary};
use http::header::{self, HeaderMap, HeaderName};

use super::service::{ResponseState, warn_any_origin_with_credentials};

/// The boxed rest of a request that waits for an asynchronous origin decision first.
pub(crate) type AfterLookup<F, K> = Pin<Box<dyn Future<Output = ResponseFuture<F, K>> + Send>>;

/// How a [`ResponseFuture`] keeps what only a few requests need, an answer given without the
/// inner service or a passed-on preflight's headers, whose size would otherwise be that of
/// every request's future: [`Inline`] or [`Boxed`].
pub trait Keep {
    /// A kept `T`.
    type Of<T>;

    /// Keeps `value`.
    fn keep<T>(value: T) -> Self::Of<T>;

    /// Keeps `value`, which comes boxed (a decision carries its rare, large parts boxed).
    fn keep_boxed<T>(value: Box<T>) -> Self::Of<T>;

    /// The value kept.
    fn take<T>(kept: Self::Of<T>) -> T;
}

/// Kept in the future itself: where the answer given without the inner service is the common
/// one (the generated `OPTIONS` route, which answers preflights), or where the future's size
/// matters little (a tower layer).
#[derive(Debug)]
pub struct Inline;

/// Kept behind a pointer, allocated only for the few requests that need it: in the future of a
/// route's handler, which every request to it moves several times.
#[derive(Debug)]
pub(crate) struct Boxed;

impl Keep for Inline {
    type Of<T> = T;

    fn keep<T>(value: T) -> T {
        value
    }

    fn keep_boxed<T>(value: Box<T>) -> T {
        *value
    }

    fn take<T>(kept: T) -> T {
        kept
    }
}

impl Keep for Boxed {
    type Of<T> = Box<T>;

    fn keep<T>(value: T) -> Box<T> {
        Box::new(value)
    }

    fn keep_boxed<T>(value: Box<T>) -> Box<T> {
        value
    }

    fn take<T>(kept: Box<T>) -> T {
        *kept
    }
}

/// How the answer of a request handed on is finished.
pub(crate) enum Then {
    /// As it is: CORS is off for the route.
    Untouched,
    /// With the decision's headers written into it.
    Decided(ActualDecision),
    /// With the decision's headers and the cookies its handler set through `CorsService`.
    Actual(Arc<ResponseState>),
    /// A preflight's headers added to the answer of the route's own `OPTIONS` handler.
    Passthrough(Box<HeaderMap>),
}

impl Then {
    /// Whether the request is a preflight, passed on to the route's own `OPTIONS` handler.
    pub(crate) fn is_preflight(&self) -> bool {
        matches!(self, Then::Passthrough(_))
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Cors`](crate::cors::Cors): the inner service's
    /// answer with the CORS headers of the path's plan.
    pub struct ResponseFuture<F, K: Keep = Inline> {
        #[pin]
        kind: Kind<F, K>,
    }
}

pin_project_lite::pin_project! {
    #[project = KindProj]
    enum Kind<F, K: Keep> {
        /// Answered by the plan (a preflight), without calling the inner service.
        Ready { response: Option<K::Of<Response>> },
        /// A preflight passed on to the route's own `OPTIONS` handler: the answer's CORS headers
        /// are added to the handler's.
        Passthrough {
            #[pin]
            future: F,
            cors: Option<K::Of<HeaderMap>>,
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
            state: Arc<ResponseState>,
        },
        /// Awaiting an asynchronous origin decision, then one of the above.
        Lookup { rest: AfterLookup<F, K> },
    }
}

impl<F, K: Keep> ResponseFuture<F, K> {
    fn of(kind: Kind<F, K>) -> Self {
        Self { kind }
    }

    pub(crate) fn ready(response: Response) -> Self {
        Self::of(Kind::Ready {
            response: Some(K::keep(response)),
        })
    }

    /// The answer of the inner service's `future`, finished as `then` says. Inlined, so that
    /// the two enums fold into one.
    #[inline(always)]
    pub(crate) fn then(future: F, then: Then) -> Self {
        Self::of(match then {
            Then::Untouched => Kind::Untouched { future },
            Then::Decided(decision) => Kind::Decided { future, decision },
            Then::Actual(state) => Kind::Actual { future, state },
            Then::Passthrough(cors) => Kind::Passthrough {
                future,
                cors: Some(K::keep_boxed(cors)),
            },
        })
    }

    pub(crate) fn lookup(rest: AfterLookup<F, K>) -> Self {
        Self::of(Kind::Lookup { rest })
    }
}

const COMPLETED: &str = "a response future is not polled after it completed";

impl<F, E, K: Keep> Future for ResponseFuture<F, K>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.as_mut().project().kind.project() {
            KindProj::Ready { response } => {
                Poll::Ready(Ok(K::take(response.take().expect(COMPLETED))))
            }
            KindProj::Untouched { future } => future.poll(cx),
            KindProj::Decided { future, decision } => {
                let mut response = ready!(future.poll(cx))?;
                finish_decided(response.headers_mut(), decision);
                Poll::Ready(Ok(response))
            }
            KindProj::Actual { future, state } => {
                let mut response = ready!(future.poll(cx))?;
                let headers = response.headers_mut();
                remove_cors_headers(headers);
                let credentials = if state.write_cookies(headers) {
                    ResponseCredentials::Include
                } else {
                    ResponseCredentials::Policy
                };
                write_decision(headers, state.decision(), credentials);
                Poll::Ready(Ok(response))
            }
            KindProj::Passthrough { future, cors } => {
                let mut response = ready!(future.poll(cx))?;
                let cors = K::take(cors.take().expect(COMPLETED));
                add_preflight_headers(response.headers_mut(), cors);
                Poll::Ready(Ok(response))
            }
            KindProj::Lookup { rest } => {
                let next = ready!(rest.as_mut().poll(cx));
                self.as_mut().project().kind.set(next.kind);
                self.poll(cx)
            }
        }
    }
}

/// Finishes the answer of a request decided at once, whose handler sets no cookies: the
/// `headers` its handler set, with the CORS headers of `decision` in place of any of its own.
#[inline(always)]
pub(crate) fn finish_decided(headers: &mut HeaderMap, decision: &ActualDecision) {
    remove_cors_headers(headers);
    write_decision(headers, decision, ResponseCredentials::Policy);
}

/// Writes `decision` into the answer's `headers` (in place, so that the answer is not moved),
/// warning once of a credentialed answer under any origin.
#[inline]
fn write_decision(
    headers: &mut HeaderMap,
    decision: &ActualDecision,
    credentials: ResponseCredentials,
) {
    if decision.write_headers(headers, credentials) {
        warn_any_origin_with_credentials();
    }
}

/// Whether `name` is a CORS response header, which the plan of a path under CORS owns.
#[inline]
fn is_cors_response_header(name: &HeaderName) -> bool {
    name.as_str().starts_with("access-control-")
}

/// Removes the CORS response headers the handler (or an upstream it proxies) set: on a path
/// under CORS they are the plan's, so that a refused request is never granted by a header set
/// elsewhere. Looks at the names first, which costs less than a lookup per CORS header.
fn remove_cors_headers(headers: &mut HeaderMap) {
    if !headers.keys().any(is_cors_response_header) {
        return;
    }
    let foreign: Vec<HeaderName> = headers
        .keys()
        .filter(|name| is_cors_response_header(name))
        .cloned()
        .collect();
    for name in foreign {
        headers.remove(name);
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
        } else if is_cors_response_header(name) {
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

    #[test]
    fn cors_headers_set_by_a_handler_are_removed() {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        );
        remove_cors_headers(&mut headers);
        assert_eq!(headers.len(), 1);
        assert!(headers.contains_key(header::CONTENT_TYPE));
    }
}
