//! The handler of a route as the module system builds it: the user's handler, with the route's
//! providers put into the request, its CORS handling and its guards, all in one axum handler.
//!
//! Wrapping the handler itself, rather than putting tower layers around the route, keeps one
//! axum `Route` per method, as a plain axum handler has: each layer on a route costs a clone
//! of a boxed service and a boxed future per request. Where the user's own layers run at the
//! route, controller or module level, CORS must wrap them, so the builder puts it in a layer
//! around them instead.

use std::any::{Any, TypeId};
use std::convert::Infallible;
use std::future::Future;
use std::marker::PhantomData;
use std::ops::Deref;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, ready};

use axum::body::Body;
use axum::extract::Request;
use axum::handler::Handler;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter};
use cors_axum_core::ActualDecision;
use http::StatusCode;
use tower_layer::Layer;
use tower_service::Service;

use crate::cors::answer::FixedAnswer;
use crate::cors::respond::{Downstream, PathCors, PreflightPassedOn, Prepared};
use crate::cors::{Boxed, CorsLayer, Inline, ResponseFuture, Then, finish_decided};
use crate::guard::{Guards, NamedGuard};
use crate::needs::Needs;
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
    let (setup, options) = Setup::of(setup);
    shared(router, filter, Arc::new(Kept::new(setup, handler)), options)
}

/// Adds the handler `kept` for `filter`, with its setup beside it behind a reference count, and
/// the path's generated `OPTIONS` route if the route serves it. Generic over the state and the
/// handler's future alone, so compiled once per application rather than per route.
fn shared<S, F>(
    router: MethodRouter<S>,
    filter: MethodFilter,
    kept: Arc<dyn KeptRoute<S, F>>,
    options: Option<PathOptions>,
) -> MethodRouter<S>
where
    S: Clone + Send + Sync + 'static,
    F: Future<Output = Response> + Send + 'static,
{
    let router = match options {
        Some(options) => options_apart(router, options),
        None => router,
    };
    router.on(filter, Shared(kept))
}

/// Adds the path's generated `OPTIONS` route as a service of its own, behind the path's CORS:
/// one type for every path, for a route that does not answer it from its slot.
fn options_apart<S>(router: MethodRouter<S>, (answer, cors): PathOptions) -> MethodRouter<S>
where
    S: Clone + Send + Sync + 'static,
{
    router.on_service(
        MethodFilter::OPTIONS,
        CorsLayer::for_path(cors).layer(answer),
    )
}

/// [`route_into`] for a route that has a [`RouteSlot`] of its own, `slot`: the first router
/// that mounts the route keeps the handler and its setup there, and the route's service is
/// then zero-sized; so is the path's generated `OPTIONS` route where the route serves it,
/// answered from the slot. That route is one more type, a dozen more functions to compile:
/// `#[controller]` calls this for the route of each path that the builder will ask to serve
/// it (the first of the path's routes in the builder's order), and
/// [`route_in_slot_without_options`] for the others.
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
    K: SlotKey,
{
    in_slot(router, filter, handler, slot, setup, |router, options| {
        slot.slot().answer_options(options);
        router.on_service(MethodFilter::OPTIONS, OptionsInSlot { slot })
    })
}

/// [`route_in_slot`] for a route that is not expected to serve its path's generated `OPTIONS`
/// route: should the builder ask it to all the same, that route is a service of its own, one
/// type for every path, behind the path's CORS.
#[doc(hidden)]
pub fn route_in_slot_without_options<H, T, S, K>(
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
    K: SlotKey,
{
    in_slot(router, filter, handler, slot, setup, options_apart)
}

/// [`route_in_slot`], with `serve_options` adding the path's generated `OPTIONS` route where
/// the route claims its slot and serves it.
#[inline(always)]
fn in_slot<H, T, S, K>(
    router: MethodRouter<S>,
    filter: MethodFilter,
    handler: H,
    slot: K,
    setup: RouteSetup<S>,
    serve_options: impl FnOnce(MethodRouter<S>, PathOptions) -> MethodRouter<S>,
) -> MethodRouter<S>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
    K: SlotKey,
{
    let (setup, options) = Setup::of(setup);
    // A route that sees providers keeps them beside its handler: a slot is never given back,
    // and providers (a database pool, say) must go when their router does.
    if setup.scope.is_some() {
        return shared(router, filter, Arc::new(Kept::new(setup, handler)), options);
    }
    // A zero-sized handler (a function, as `#[route]` passes) is all its type says: two mounts
    // of it that add nothing to it (no guards, CORS or providers) cannot differ.
    let interchangeable = size_of::<H>() == 0 && setup.adds_nothing();
    let kept_type = TypeId::of::<Kept<H, T, S>>();
    let kept = Kept::new(setup, handler);
    let handler = InSlot::<K, H, T, S> {
        slot,
        kept: PhantomData,
    };
    let in_slot = slot.slot();
    // Taken already, as for every later router: the route is not boxed for the slot.
    if in_slot.is_taken() {
        // The slot keeps the same function with nothing added: it answers for this route too.
        if interchangeable && in_slot.keeps_interchangeable(kept_type) {
            return router.on(filter, handler);
        }
        return shared(router, filter, Arc::new(kept), options);
    }
    match in_slot.claim(Box::new(kept), kept_type, interchangeable) {
        Ok(()) => match options {
            Some(options) => serve_options(router, options).on(filter, handler),
            None => router.on(filter, handler),
        },
        // Claimed by another thread meanwhile: the route keeps its setup beside its handler.
        Err(kept) => shared(router, filter, Arc::from(kept), options),
    }
}

/// Where one route keeps its handler and setup for the first router that mounts it, so that
/// the route's service can be zero-sized: axum copies a route's service into a new box for
/// every request, which allocates unless the service has no size. `#[controller]` keeps its
/// routes' slots in one `static` array ([`RouteParts`]).
///
/// The first mount takes the slot for as long as the process runs; a later one (another
/// router, another path, another state) finds it taken and keeps its setup with its handler,
/// behind a reference count, unless neither adds anything to the handler (no guards, CORS or
/// providers): then the route in the slot answers for both. A slot is never given back, so a
/// service reading it always reads the setup of the router that made it. What a slot keeps
/// past its router is the handler (a function, for `#[route]`), the route's guards
/// (functions) and its path's CORS plan; a route that sees providers is never put in a slot,
/// so that they are dropped with their router.
#[doc(hidden)]
pub struct RouteSlot {
    /// The kept route, a [`KeptBox`] (which names the state and the handler's future, but not
    /// the handler), with the type of the `Kept` in it.
    kept: OnceLock<(TypeId, Box<dyn Any + Send + Sync>)>,
    /// The path's generated `OPTIONS` answer, when the route serves it: kept apart from the
    /// handler, so that the `OPTIONS` route's type does not depend on the handler's.
    options: OnceLock<PathOptions>,
    /// Whether the route kept here may answer for any later mount of the same handler that
    /// adds nothing to it either.
    interchangeable: AtomicBool,
}

impl RouteSlot {
    /// An empty slot.
    #[allow(clippy::new_without_default)] // Used in `static`s, where `Default` cannot be.
    pub const fn new() -> Self {
        Self {
            kept: OnceLock::new(),
            options: OnceLock::new(),
            interchangeable: AtomicBool::new(false),
        }
    }

    /// Keeps `kept` (of type `kept_type`) here if the slot is still free, else gives it back;
    /// `interchangeable` when it may answer for later mounts of its handler that add nothing to
    /// it. Generic over the state and the handler's future alone.
    fn claim<S: 'static, F: 'static>(
        &'static self,
        kept: KeptBox<S, F>,
        kept_type: TypeId,
        interchangeable: bool,
    ) -> Result<(), KeptBox<S, F>> {
        // Set by another thread since it was found free, at most: `set` then gives the same
        // box back.
        match self.kept.set((kept_type, Box::new(kept))) {
            Ok(()) => {
                // Read only with the kept route: seen without it, a later mount keeps its own.
                self.interchangeable
                    .store(interchangeable, Ordering::Relaxed);
                Ok(())
            }
            Err((_, kept)) => match kept.downcast() {
                Ok(kept) => Err(*kept),
                Err(_) => unreachable!("a slot is given the value it gives back"),
            },
        }
    }

    /// Whether a route is kept here.
    fn is_taken(&self) -> bool {
        self.kept.get().is_some()
    }

    /// Whether the route kept here is of type `kept` and may answer for a later mount of it.
    /// Not generic: compiled once, not once per route.
    fn keeps_interchangeable(&self, kept: TypeId) -> bool {
        self.interchangeable.load(Ordering::Relaxed)
            && self.kept.get().is_some_and(|(taken, _)| *taken == kept)
    }

    /// What is kept here, under state `S`, for a handler whose future is `F`.
    fn kept<S: 'static, F: 'static>(&'static self) -> Option<&'static dyn KeptRoute<S, F>> {
        let kept: &KeptBox<S, F> = self.kept.get()?.1.downcast_ref()?;
        Some(&**kept)
    }

    /// Keeps the path's CORS and generated `OPTIONS` answer, for the route that claimed the
    /// slot.
    fn answer_options(&'static self, answer: PathOptions) {
        // Only the route that claimed the slot sets this, once.
        let _ = self.options.set(answer);
    }
}

/// Names the [`RouteSlot`] of one route as a zero-sized value, so that the route's service, which
/// holds it, stays zero-sized: a type per route. `#[controller]` uses [`SlotOf`]; a function
/// returning a slot kept in a `static` of its own is one too.
#[doc(hidden)]
pub trait SlotKey: Copy + Send + Sync + 'static {
    /// The slot.
    fn slot(self) -> &'static RouteSlot;
}

impl<F> SlotKey for F
where
    F: Fn() -> &'static RouteSlot + Copy + Send + Sync + 'static,
{
    fn slot(self) -> &'static RouteSlot {
        self()
    }
}

/// What `#[controller]` writes once for all of a controller's routes, whatever the state, in
/// one `impl` rather than one per route or per concern.
#[doc(hidden)]
pub trait RouteParts: 'static {
    /// The slots of the routes, one per route in declaration order, in one `static`.
    fn route_slots() -> &'static [RouteSlot];

    /// Declares into `needs` what route `route` (its index among the controller's) needs from
    /// its module.
    fn route_needs(route: usize, needs: &mut Needs);
}

/// What route `I` of controller `C` needs: the `needs` of its `RouteDef`.
#[doc(hidden)]
pub fn needs_of<C: RouteParts, const I: usize>(needs: &mut Needs) {
    C::route_needs(I, needs);
}

/// The [`RouteSlot`] of route `I` of controller `C`.
#[doc(hidden)]
pub struct SlotOf<C, const I: usize>(PhantomData<fn() -> C>);

impl<C, const I: usize> SlotOf<C, I> {
    /// The key.
    pub const KEY: Self = Self(PhantomData);
}

impl<C, const I: usize> Clone for SlotOf<C, I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C, const I: usize> Copy for SlotOf<C, I> {}

impl<C: RouteParts, const I: usize> SlotKey for SlotOf<C, I> {
    fn slot(self) -> &'static RouteSlot {
        &C::route_slots()[I]
    }
}

/// A route's handler with what the module system adds to it: in its [`RouteSlot`], or behind
/// a reference count.
struct Kept<H, T, S> {
    setup: Setup<S>,
    handler: H,
    extractors: PhantomData<fn() -> T>,
}

impl<H, T, S> Kept<H, T, S> {
    fn new(setup: Setup<S>, handler: H) -> Self {
        Self {
            setup,
            handler,
            extractors: PhantomData,
        }
    }
}

/// A kept route as a slot keeps it: boxed, its handler's type erased.
type KeptBox<S, F> = Box<dyn KeptRoute<S, F>>;

/// A [`Kept`] route, whatever its handler's type: what a request needs of it. Through this,
/// the request path (CORS, guards, futures) is compiled once per state and handler future,
/// which every handler function shares, rather than once per route.
trait KeptRoute<S, F>: Send + Sync + 'static {
    fn setup(&self) -> &Setup<S>;

    fn call(&self, request: Request, state: S) -> F;
}

impl<H, T, S> KeptRoute<S, H::Future> for Kept<H, T, S>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    fn setup(&self) -> &Setup<S> {
        &self.setup
    }

    #[inline]
    fn call(&self, request: Request, state: S) -> H::Future {
        self.handler.clone().call(request, state)
    }
}

/// A kept route, as a request holds it: `&'static` in its slot, an `Arc` beside its router's
/// other routes. The request path is compiled once for each.
trait RouteRef<S, F>: Deref<Target = dyn KeptRoute<S, F>> + Send + 'static {}

impl<S, F, R> RouteRef<S, F> for R where R: Deref<Target = dyn KeptRoute<S, F>> + Send + 'static {}

/// A user's handler kept with its setup in its route's [`RouteSlot`]: zero-sized.
struct InSlot<K, H, T, S> {
    slot: K,
    kept: PhantomData<Kept<H, T, S>>,
}

/// A user's handler kept with its setup behind a reference count (its slot was taken, or it
/// sees providers). One type for every handler function of an application.
struct Shared<S: 'static, F: 'static>(Arc<dyn KeptRoute<S, F>>);

/// What the module system adds to a user's handler.
struct Setup<S> {
    guards: Guards<S>,
    cors: Option<PathCors>,
    scope: Option<ProviderScope>,
}

/// The answer of a path's generated `OPTIONS` route, with the path's CORS it goes through.
type PathOptions = (FixedAnswer, PathCors);

impl<S> Setup<S> {
    /// Whether the module system adds nothing to the handler: no guards, CORS or providers.
    fn adds_nothing(&self) -> bool {
        self.guards.is_empty() && self.cors.is_none() && self.scope.is_none()
    }

    /// What `setup` adds to a handler, and the path's generated `OPTIONS` answer if the route
    /// serves it (only a route that answers for its path's CORS does). Inlined: a call would
    /// copy both through memory.
    #[inline(always)]
    fn of(setup: RouteSetup<S>) -> (Self, Option<PathOptions>) {
        let RouteSetup {
            guards,
            cors,
            scope,
            options,
        } = setup;
        // Only the route that serves the generated `OPTIONS` route needs the path's CORS twice.
        let options = match (options, &cors) {
            (Some(answer), Some(cors)) => Some((answer, cors.clone())),
            _ => None,
        };
        (
            Self {
                guards,
                cors,
                scope,
            },
            options,
        )
    }
}

/// Calls `route`, whose setup is `setup`, with `request`: the handler with its providers, behind
/// its CORS and guards. The request is only borrowed until it is handed to the handler, in one
/// place: each call taking it by value on the way would copy it.
#[inline]
fn call_route<S, F, R>(
    setup: &Setup<S>,
    route: R,
    mut request: Request,
    state: S,
) -> WrappedFuture<F>
where
    S: Clone + Send + Sync + 'static,
    F: Future<Output = Response> + Send + 'static,
    R: RouteRef<S, F>,
{
    if let Some(scope) = &setup.scope {
        request.extensions_mut().insert(scope.clone());
    }
    let guarded = !setup.guards.is_empty();
    let then = match &setup.cors {
        None => Then::Untouched,
        Some(cors) => match cors.decided(&request) {
            // The common request: decided at once, no guards, no cookies.
            Ok(decision) if !guarded => {
                return WrappedFuture::Decided {
                    future: route.call(request, state),
                    decision,
                };
            }
            Ok(decision) => Then::Decided(decision),
            Err(step) => match cors.prepare_from(&mut request, step) {
                Prepared::HandOn(then) => then,
                Prepared::Answer(response) => {
                    return WrappedFuture::Cors {
                        future: ResponseFuture::ready(response),
                    };
                }
                Prepared::Lookup(waiting) => {
                    let call = Guarded {
                        route,
                        state,
                        guarded,
                        future: PhantomData,
                    };
                    return WrappedFuture::Cors {
                        future: cors.after_lookup(*waiting, request, call),
                    };
                }
            },
        },
    };
    // A preflight carries no credentials: guards never see one.
    if guarded && !then.is_preflight() {
        let future = behind_guards(route, state, request);
        return WrappedFuture::Cors {
            future: ResponseFuture::then(future, then),
        };
    }
    let future = route.call(request, state);
    match then {
        Then::Untouched => WrappedFuture::Direct { future },
        Then::Decided(decision) => WrappedFuture::Decided { future, decision },
        then => WrappedFuture::Cors {
            future: ResponseFuture::then(GuardedFuture::Direct { future }, then),
        },
    }
}

impl<K: Copy, H, T, S> Clone for InSlot<K, H, T, S> {
    fn clone(&self) -> Self {
        Self {
            slot: self.slot,
            kept: PhantomData,
        }
    }
}

impl<S, F> Clone for Shared<S, F> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<K, H, T, S> Handler<T, S> for InSlot<K, H, T, S>
where
    H: Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
    K: SlotKey,
{
    type Future = WrappedFuture<H::Future>;

    fn call(self, request: Request, state: S) -> Self::Future {
        match self.slot.slot().kept::<S, H::Future>() {
            Some(kept) => call_route(kept.setup(), kept, request, state),
            // Only a handler made by `route_in_slot`, after the slot took its setup, exists.
            None => WrappedFuture::Unreachable,
        }
    }
}

/// The extractors of a [`Shared`] handler, as axum names a handler's: the handler behind it
/// names its own.
struct SharedRoute;

impl<S, F> Handler<SharedRoute, S> for Shared<S, F>
where
    S: Clone + Send + Sync + 'static,
    F: Future<Output = Response> + Send + 'static,
{
    type Future = WrappedFuture<F>;

    fn call(self, request: Request, state: S) -> Self::Future {
        call_route(self.0.setup(), Arc::clone(&self.0), request, state)
    }
}

/// The path's generated `OPTIONS` route, answered from the [`RouteSlot`] of a route of the
/// path: zero-sized, like that route's handler, and of one type per route whatever the
/// handler's.
struct OptionsInSlot<K> {
    slot: K,
}

impl<K: Copy> Clone for OptionsInSlot<K> {
    fn clone(&self) -> Self {
        Self { slot: self.slot }
    }
}

impl<K: SlotKey> Service<Request> for OptionsInSlot<K> {
    type Response = Response;
    type Error = Infallible;
    type Future = ResponseFuture<std::future::Ready<Result<Response, Infallible>>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        match self.slot.slot().options.get() {
            Some((answer, cors)) => cors.respond(request, OptionsAnswer(answer)),
            // Only a route whose slot holds the path's CORS and answer adds this service.
            None => ResponseFuture::ready(StatusCode::INTERNAL_SERVER_ERROR.into_response()),
        }
    }
}

/// The generated `OPTIONS` answer, borrowed from the slot, as CORS hands a request on to it.
struct OptionsAnswer(&'static FixedAnswer);

impl Downstream<Body> for OptionsAnswer {
    type Future = std::future::Ready<Result<Response, Infallible>>;
    // The generated `OPTIONS` route answers preflights itself: kept in its future, that
    // answer allocates nothing more.
    type Keep = Inline;
    type Owned = Self;

    fn call(self, _: Request) -> Self::Future {
        self.0.answer()
    }

    fn into_owned(self) -> Self {
        self
    }
}

/// The user's handler behind its guards, as CORS hands a request on to it.
struct Guarded<R, S, F> {
    route: R,
    state: S,
    guarded: bool,
    future: PhantomData<fn() -> F>,
}

impl<R, S, F> Downstream<Body> for Guarded<R, S, F>
where
    S: Clone + Send + Sync + 'static,
    F: Future<Output = Response> + Send + 'static,
    R: RouteRef<S, F>,
{
    type Future = GuardedFuture<F>;
    // An answer given without the handler (a `403`, a preflight of a route with its own
    // `OPTIONS` handler) is rare: boxed, it does not make every request's future larger.
    type Keep = Boxed;
    type Owned = Self;

    #[inline]
    fn call(self, request: Request) -> Self::Future {
        let Guarded {
            route,
            state,
            guarded,
            ..
        } = self;
        // A preflight carries no credentials: guards never see one.
        if guarded && request.extensions().get::<PreflightPassedOn>().is_none() {
            return behind_guards(route, state, request);
        }
        GuardedFuture::Direct {
            future: route.call(request, state),
        }
    }

    fn into_owned(self) -> Self {
        self
    }
}

/// The handler's future behind its guards: out of [`Guarded::call`], so that a route without
/// guards inlines a small call.
#[inline(never)]
fn behind_guards<S, F, R>(route: R, state: S, request: Request) -> GuardedFuture<F>
where
    S: Clone + Send + Sync + 'static,
    F: Future<Output = Response> + Send + 'static,
    R: RouteRef<S, F>,
{
    let guarded = async move {
        let (mut parts, body) = request.into_parts();
        if let Err(rejection) = run_guards(&mut parts, &state, &route.setup().guards).await {
            return rejection;
        }
        route.call(Request::from_parts(parts, body), state).await
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
    /// The future of a route's handler with what the module system adds to it: the two common
    /// cases polled here, in one step, the others through the CORS and guards futures.
    #[project = WrappedProj]
    pub(crate) enum WrappedFuture<F> {
        /// The handler's answer as it is: no guards, and no CORS or CORS off for the route.
        Direct {
            #[pin]
            future: F,
        },
        /// The handler's answer with the decision's CORS headers: no guards, no cookies.
        Decided {
            #[pin]
            future: F,
            decision: ActualDecision,
        },
        /// Behind guards, with cookies, a passed-on preflight, an answer given without the
        /// handler, or an asynchronous origin decision.
        Cors {
            #[pin]
            future: ResponseFuture<GuardedFuture<F>, Boxed>,
        },
        Unreachable,
    }
}

impl<F: Future<Output = Response>> Future for WrappedFuture<F> {
    type Output = Response;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        let result = match self.project() {
            WrappedProj::Direct { future } => return future.poll(cx),
            WrappedProj::Decided { future, decision } => {
                let mut response = ready!(future.poll(cx));
                finish_decided(response.headers_mut(), decision);
                return Poll::Ready(response);
            }
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
