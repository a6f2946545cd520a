//! The handler of a route as the module system builds it: the user's handler, with the route's
//! providers put into the request, its CORS handling and its guards, all in one axum handler.
//!
//! Wrapping the handler itself, rather than putting tower layers around the route, keeps one
//! axum `Route` per method, as a plain axum handler has: each layer on a route costs a clone
//! of a boxed service and a boxed future per request. Where the user's own layers run at the
//! route, controller or module level, CORS must wrap them, so the builder puts it in a layer
//! around them instead.

use std::convert::Infallible;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::handler::Handler;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter};
use http::StatusCode;

use crate::cors::ResponseFuture;
use crate::cors::respond::{Downstream, PathCors, PreflightPassedOn};
use crate::guard::{Guards, NamedGuard};
use crate::provider::{MissingInjection, ProviderScope};
use crate::unwind::CatchUnwind;

/// What the builder gives the function that builds a route's method router.
#[doc(hidden)]
pub struct RouteSetup<S> {
    /// The guards, most general first.
    pub(crate) guards: Guards<S>,
    /// The route's CORS, when the handler itself answers for it.
    pub(crate) cors: Option<PathCors>,
    /// The providers the route sees.
    pub(crate) scope: Option<ProviderScope>,
}

/// The method router of one route: `handler` for `filter`, with the route's setup.
#[doc(hidden)]
pub fn route<H, T, S>(filter: MethodFilter, handler: H, setup: RouteSetup<S>) -> MethodRouter<S>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    route_into(MethodRouter::new(), filter, handler, setup)
}

/// Adds `handler` for `filter`, with the route's setup, to the method router of its path.
#[doc(hidden)]
pub fn route_into<H, T, S>(
    router: MethodRouter<S>,
    filter: MethodFilter,
    handler: H,
    setup: RouteSetup<S>,
) -> MethodRouter<S>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    let RouteSetup {
        guards,
        cors,
        scope,
    } = setup;
    if guards.is_empty() && cors.is_none() && scope.is_none() {
        return router.on(filter, handler);
    }
    router.on(
        filter,
        Wrapped {
            inner: handler,
            setup: Arc::new(Setup {
                guards,
                cors,
                scope,
            }),
        },
    )
}

/// A user's handler with the route's providers, CORS and guards.
struct Wrapped<H, S> {
    inner: H,
    /// Behind one reference count: axum clones the handler for every request.
    setup: Arc<Setup<S>>,
}

/// What [`Wrapped`] adds to the user's handler.
struct Setup<S> {
    guards: Guards<S>,
    cors: Option<PathCors>,
    scope: Option<ProviderScope>,
}

impl<H: Clone, S> Clone for Wrapped<H, S> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            setup: Arc::clone(&self.setup),
        }
    }
}

impl<H, T, S> Handler<T, S> for Wrapped<H, S>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    type Future = WrappedFuture<H::Future>;

    fn call(self, mut request: Request, state: S) -> Self::Future {
        let Wrapped { inner, setup } = self;
        if let Some(scope) = &setup.scope {
            request.extensions_mut().insert(scope.clone());
        }
        let call = Guarded {
            inner,
            state,
            guards: (!setup.guards.is_empty()).then(|| setup.guards.clone()),
            handler: PhantomData,
        };
        match &setup.cors {
            None => WrappedFuture::Plain {
                future: call.call(request),
            },
            Some(cors) => WrappedFuture::Cors {
                future: cors.respond(request, call),
            },
        }
    }
}

/// The user's handler behind its guards, as CORS hands a request on to it.
struct Guarded<H, T, S> {
    inner: H,
    state: S,
    guards: Option<Guards<S>>,
    handler: PhantomData<fn() -> T>,
}

impl<H, T, S> Downstream<Body> for Guarded<H, T, S>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    type Future = GuardedFuture<H::Future>;
    type Owned = Self;

    #[inline]
    fn call(self, request: Request) -> Self::Future {
        let Guarded {
            inner,
            state,
            guards,
            ..
        } = self;
        // A preflight carries no credentials: guards never see one.
        let guards = guards.filter(|_| request.extensions().get::<PreflightPassedOn>().is_none());
        match guards {
            None => GuardedFuture::Direct {
                future: inner.call(request, state),
            },
            Some(guards) => behind_guards(inner, state, guards, request),
        }
    }

    fn into_owned(self) -> Self {
        self
    }
}

/// The handler's future behind `guards`: out of [`Guarded::call`], so that a route without
/// guards inlines a small call.
#[inline(never)]
fn behind_guards<H, T, S>(
    inner: H,
    state: S,
    guards: Guards<S>,
    request: Request,
) -> GuardedFuture<H::Future>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    let guarded = async move {
        let (mut parts, body) = request.into_parts();
        if let Err(rejection) = run_guards(&mut parts, &state, &guards).await {
            return rejection;
        }
        inner.call(Request::from_parts(parts, body), state).await
    };
    GuardedFuture::Guarded {
        future: Box::pin(guarded),
    }
}

/// Runs `guards` in order: the first rejection answers, a guard that panics answers `500`.
/// Generic over the state alone, so compiled once per application rather than per route.
async fn run_guards<S: Sync>(
    parts: &mut http::request::Parts,
    state: &S,
    guards: &[NamedGuard<S>],
) -> Result<(), Response> {
    for (guard, name) in guards {
        match CatchUnwind::new(guard(parts, state)).await {
            Ok(Ok(())) => {}
            Ok(Err(rejection)) => {
                report_missing_injection(parts, name);
                return Err(rejection);
            }
            Err(panic) => {
                tracing::error!(
                    target: "cors_axum",
                    route = parts.uri.path(),
                    "a guard panicked: {}",
                    panic.escape_debug()
                );
                return Err(StatusCode::INTERNAL_SERVER_ERROR.into_response());
            }
        }
    }
    Ok(())
}

/// Logs, when guard `guard` was rejected after an `Inject<T>` found no value, what to provide:
/// the build checks what guards declare with `GuardInjects`, not what they extract inside.
fn report_missing_injection(parts: &http::request::Parts, guard: &str) {
    let Some(missing) = parts.extensions.get::<MissingInjection>() else {
        return;
    };
    tracing::error!(
        target: "cors_axum",
        route = %format_args!("{} {}", parts.method, parts.uri.path()),
        guard,
        "guard `{guard}` takes `Inject<{ty}>`, but no value of that type is provided for route `{method} {path}`; \
         provide one with `.provide(..)` on the application builder (or in the module's providers), and \
         declare it with `impl GuardInjects for` the guard so that the router build checks it",
        ty = missing.type_name,
        method = parts.method,
        path = parts.uri.path(),
    );
}

pin_project_lite::pin_project! {
    /// The handler's future, behind its guards, as a service's: a response that cannot fail.
    #[project = GuardedFutureProj]
    pub(crate) enum GuardedFuture<F> {
        Direct {
            #[pin]
            future: F,
        },
        Guarded {
            future: Pin<Box<dyn Future<Output = Response> + Send>>,
        },
    }
}

impl<F: Future<Output = Response>> Future for GuardedFuture<F> {
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            GuardedFutureProj::Direct { future } => future.poll(cx).map(Ok),
            GuardedFutureProj::Guarded { future } => future.as_mut().poll(cx).map(Ok),
        }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`Wrapped`].
    #[project = WrappedProj]
    pub(crate) enum WrappedFuture<F> {
        Plain {
            #[pin]
            future: GuardedFuture<F>,
        },
        Cors {
            #[pin]
            future: ResponseFuture<GuardedFuture<F>>,
        },
    }
}

impl<F: Future<Output = Response>> Future for WrappedFuture<F> {
    type Output = Response;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        let result = match self.project() {
            WrappedProj::Plain { future } => future.poll(cx),
            WrappedProj::Cors { future } => future.poll(cx),
        };
        result.map(|result| match result {
            Ok(response) => response,
            Err(never) => match never {},
        })
    }
}
