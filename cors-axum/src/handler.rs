//! The handler of a route as the module system builds it: the user's handler, with the route's
//! providers put into the request, its CORS handling and its guards, all in one axum handler.
//!
//! Wrapping the handler itself, rather than putting tower layers around the route, keeps one
//! axum `Route` per method, as a plain axum handler has: each layer on a route costs a clone
//! of a boxed service and a boxed future per request. Where the user's own layers run at the
//! route, controller or module level, CORS must wrap them, so the builder puts it in a layer
//! around them instead.

use std::any::Any;
use std::convert::Infallible;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::handler::Handler;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter};
use http::StatusCode;
use tower_layer::Layer;
use tower_service::Service;

use crate::cors::answer::FixedAnswer;
use crate::cors::respond::{Downstream, PathCors, PreflightPassedOn};
use crate::cors::{CorsLayer, ResponseFuture};
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
    /// The answer of the path's generated `OPTIONS` route, when this route adds it: the route
    /// whose setup holds the path's CORS serves the path's preflights too.
    pub(crate) options: Option<FixedAnswer>,
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
pub(crate) fn route_into<H, T, S>(
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
    match Setup::of(setup) {
        None => router.on(filter, handler),
        Some(setup) => wrapped(router, filter, handler, setup),
    }
}

/// Adds `handler` for `filter` with `setup` beside it, behind a reference count, and the path's
/// generated `OPTIONS` route if `setup` has it.
fn wrapped<H, T, S>(
    router: MethodRouter<S>,
    filter: MethodFilter,
    handler: H,
    mut setup: Setup<S>,
) -> MethodRouter<S>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    with_options(router, &mut setup).on(
        filter,
        Wrapped {
            inner: handler,
            setup: Arc::new(setup),
        },
    )
}

/// [`route_into`] for a route that has a [`RouteSlot`] of its own, `slot`: the first router
/// that mounts the route keeps the handler and its setup there, and the route's service is
/// then zero-sized.
#[doc(hidden)]
pub fn route_in_slot<H, T, S, K>(
    router: MethodRouter<S>,
    filter: MethodFilter,
    handler: H,
    slot: K,
    setup: RouteSetup<S>,
) -> MethodRouter<S>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
    K: Fn() -> &'static RouteSlot + Copy + Send + Sync + 'static,
{
    let Some(setup) = Setup::of(setup) else {
        return router.on(filter, handler);
    };
    let answers_options = setup.options.is_some();
    // A route that sees providers keeps them beside its handler: a slot is never given back,
    // and providers (a database pool, say) must go when their router does.
    let claimed = match setup.scope {
        None => slot().claim(Kept { setup, handler }),
        Some(_) => Err(Kept { setup, handler }),
    };
    match claimed {
        Ok(()) => {
            let router = if answers_options {
                let options = OptionsInSlot::<K, H, S> {
                    slot,
                    kept: PhantomData,
                };
                router.on_service(MethodFilter::OPTIONS, options)
            } else {
                router
            };
            router.on(
                filter,
                InSlot::<K, H, S> {
                    slot,
                    kept: PhantomData,
                },
            )
        }
        Err(Kept { setup, handler }) => wrapped(router, filter, handler, setup),
    }
}

/// `router` with the path's generated `OPTIONS` route, if `setup` has it, as a service of its
/// own beside the handler.
fn with_options<S>(router: MethodRouter<S>, setup: &mut Setup<S>) -> MethodRouter<S>
where
    S: Clone + Send + Sync + 'static,
{
    match (setup.options.take(), &setup.cors) {
        (Some(options), Some(cors)) => router.on_service(
            MethodFilter::OPTIONS,
            CorsLayer::for_path(cors.clone()).layer(options),
        ),
        _ => router,
    }
}

/// Where one route keeps its handler and setup for the first router that mounts it, so that
/// the route's service can be zero-sized: axum copies a route's service into a new box for
/// every request, which allocates unless the service has no size. `#[route]` writes one per
/// route, in a `static`.
///
/// The first mount takes the slot for as long as the process runs; a later one (another
/// router, another path, another state) finds it taken and keeps its setup with its handler,
/// behind a reference count. A slot is never given back, so a service reading it always reads
/// the setup of the router that made it. What a slot keeps past its router is the handler
/// (a function, for `#[route]`), the route's guards (functions) and its path's CORS plan; a
/// route that sees providers is never put in a slot, so that they are dropped with their
/// router.
#[doc(hidden)]
pub struct RouteSlot(OnceLock<Box<dyn Any + Send + Sync>>);

impl RouteSlot {
    /// An empty slot.
    #[allow(clippy::new_without_default)] // Used in `static`s, where `Default` cannot be.
    pub const fn new() -> Self {
        Self(OnceLock::new())
    }

    /// Keeps `kept` here if the slot is free, else gives it back.
    fn claim<H, S>(&'static self, kept: Kept<H, S>) -> Result<(), Kept<H, S>>
    where
        H: Send + Sync + 'static,
        S: 'static,
    {
        let mut pending = Some(kept);
        self.0.get_or_init(|| Box::new(pending.take()));
        pending.map_or(Ok(()), Err)
    }

    /// What is kept here, for handler `H` under state `S`.
    fn kept<H: 'static, S: 'static>(&'static self) -> Option<&'static Kept<H, S>> {
        self.0.get()?.downcast_ref::<Option<Kept<H, S>>>()?.as_ref()
    }
}

/// A route's handler and setup, as its [`RouteSlot`] keeps them.
struct Kept<H, S> {
    setup: Setup<S>,
    handler: H,
}

/// A user's handler with the route's providers, CORS and guards.
struct Wrapped<H, S> {
    inner: H,
    /// Behind one reference count: axum clones the handler for every request.
    setup: Arc<Setup<S>>,
}

/// A user's handler kept with its setup in its route's [`RouteSlot`]: zero-sized.
struct InSlot<K, H, S> {
    slot: K,
    kept: PhantomData<fn() -> (H, S)>,
}

/// What [`Wrapped`] adds to the user's handler.
struct Setup<S> {
    guards: Guards<S>,
    cors: Option<PathCors>,
    scope: Option<ProviderScope>,
    /// The answer of the path's `OPTIONS` route, which [`OptionsInSlot`] gives.
    options: Option<FixedAnswer>,
}

impl<S> Setup<S> {
    /// What `setup` adds to a handler, if anything.
    fn of(setup: RouteSetup<S>) -> Option<Self> {
        let RouteSetup {
            guards,
            cors,
            scope,
            options,
        } = setup;
        if guards.is_empty() && cors.is_none() && scope.is_none() {
            return None;
        }
        let options = options.filter(|_| cors.is_some());
        Some(Self {
            guards,
            cors,
            scope,
            options,
        })
    }

    /// Calls `inner` with `request` as this setup says.
    #[inline]
    fn call<H, T>(&self, inner: H, mut request: Request, state: S) -> WrappedFuture<H::Future>
    where
        H: Handler<T, S>,
        T: 'static,
        S: Clone + Send + Sync + 'static,
    {
        if let Some(scope) = &self.scope {
            request.extensions_mut().insert(scope.clone());
        }
        let call = Guarded {
            inner,
            state,
            guards: (!self.guards.is_empty()).then(|| self.guards.clone()),
            handler: PhantomData,
        };
        match &self.cors {
            None => WrappedFuture::Plain {
                future: call.call(request),
            },
            Some(cors) => WrappedFuture::Cors {
                future: cors.respond(request, call),
            },
        }
    }
}

impl<H: Clone, S> Clone for Wrapped<H, S> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            setup: Arc::clone(&self.setup),
        }
    }
}

impl<K: Copy, H, S> Clone for InSlot<K, H, S> {
    fn clone(&self) -> Self {
        Self {
            slot: self.slot,
            kept: PhantomData,
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

    fn call(self, request: Request, state: S) -> Self::Future {
        self.setup.call(self.inner, request, state)
    }
}

impl<K, H, T, S> Handler<T, S> for InSlot<K, H, S>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
    K: Fn() -> &'static RouteSlot + Copy + Send + Sync + 'static,
{
    type Future = WrappedFuture<H::Future>;

    fn call(self, request: Request, state: S) -> Self::Future {
        match (self.slot)().kept::<H, S>() {
            Some(kept) => kept.setup.call(kept.handler.clone(), request, state),
            // Only a handler made by `route_in_slot`, after the slot took its setup, exists.
            None => WrappedFuture::Unreachable,
        }
    }
}

/// The path's generated `OPTIONS` route, answered from the [`RouteSlot`] of a route of the
/// path: zero-sized, like that route's handler.
struct OptionsInSlot<K, H, S> {
    slot: K,
    kept: PhantomData<fn() -> (H, S)>,
}

impl<K: Copy, H, S> Clone for OptionsInSlot<K, H, S> {
    fn clone(&self) -> Self {
        Self {
            slot: self.slot,
            kept: PhantomData,
        }
    }
}

impl<K, H, S> Service<Request> for OptionsInSlot<K, H, S>
where
    K: Fn() -> &'static RouteSlot,
    H: 'static,
    S: 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = ResponseFuture<std::future::Ready<Result<Response, Infallible>>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let setup = (self.slot)().kept::<H, S>().map(|kept| &kept.setup);
        match setup.and_then(|setup| Some((setup.cors.as_ref()?, setup.options.as_ref()?))) {
            Some((cors, options)) => cors.respond(request, OptionsAnswer(options)),
            // Only a route whose slot holds the path's CORS and answer adds this service.
            None => ResponseFuture::ready(StatusCode::INTERNAL_SERVER_ERROR.into_response()),
        }
    }
}

/// The generated `OPTIONS` answer, borrowed from the slot, as CORS hands a request on to it.
struct OptionsAnswer(&'static FixedAnswer);

impl Downstream<Body> for OptionsAnswer {
    type Future = std::future::Ready<Result<Response, Infallible>>;
    type Owned = Self;

    fn call(self, _: Request) -> Self::Future {
        self.0.answer()
    }

    fn into_owned(self) -> Self {
        self
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
        Unreachable,
    }
}

impl<F: Future<Output = Response>> Future for WrappedFuture<F> {
    type Output = Response;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        let result = match self.project() {
            WrappedProj::Plain { future } => future.poll(cx),
            WrappedProj::Cors { future } => future.poll(cx),
            WrappedProj::Unreachable => {
                return Poll::Ready(StatusCode::INTERNAL_SERVER_ERROR.into_response());
            }
        };
        result.map(|result| match result {
            Ok(response) => response,
            Err(never) => match never {},
        })
    }
}
