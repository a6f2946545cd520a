//! The handler of a route as the module system builds it: the user's handler, with the route's
//! providers put into the request, its CORS handling and its guards, all in one axum handler.
//!
//! Every route of an application is the same handler type, [`Wrapped`], which holds the user's
//! handler behind a reference count with what the module system adds to it: the request path
//! (CORS, guards, the response future) is compiled once per state type, not once per route,
//! and what each route compiles is what axum compiles for a plain handler. Where the user's own
//! layers run at the route, controller or module level, CORS must wrap them, so the builder
//! puts it in a layer around them instead.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use axum::extract::Request;
use axum::handler::Handler;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter};
use http::StatusCode;

use crate::cors::respond::{Decision, PathCors};
use crate::cors::{Finish, ResponseFuture};
use crate::guard::Guards;
use crate::provider::{MissingInjection, ProviderScope};
use crate::unwind::CatchUnwind;

/// What the builder gives the function that builds a route's method router: what the module
/// system adds to the route's handler.
pub struct RouteSetup<S> {
    /// The guards, most general first.
    pub(crate) guards: Guards<S>,
    /// The route's CORS, when the handler itself answers for it.
    pub(crate) cors: Option<PathCors>,
    /// The providers the route sees.
    pub(crate) scope: Option<ProviderScope>,
}

/// The future of a handler function or closure, as axum's `Handler` gives it.
pub(crate) type HandlerFuture = Pin<Box<dyn Future<Output = Response> + Send>>;

/// The method router of one route: `handler` for `filter`, with the route's setup.
pub fn route<H, T, S>(filter: MethodFilter, handler: H, setup: RouteSetup<S>) -> MethodRouter<S>
where
    H: Handler<T, S, Future = HandlerFuture>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    route_into(MethodRouter::new(), filter, handler, setup)
}

/// Adds `handler` for `filter`, with the route's setup, to the method router of its path. The
/// one part of the request path compiled for each route: the handler behind a pointer.
pub fn route_into<H, T, S>(
    router: MethodRouter<S>,
    filter: MethodFilter,
    handler: H,
    setup: RouteSetup<S>,
) -> MethodRouter<S>
where
    H: Handler<T, S, Future = HandlerFuture>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    let kept = Arc::new(Kept {
        setup,
        handler: Box::new(Erased(handler, PhantomData)),
    });
    router.on(filter, Wrapped(kept))
}

/// A user's handler with what the module system adds to it. The handler is boxed, not kept as
/// the unsized last field, whose place (and that of the fields before it behind an `Arc`)
/// would be computed from its alignment at each access; a handler that captures nothing, the
/// usual one, takes no allocation in a box.
struct Kept<S> {
    setup: RouteSetup<S>,
    handler: Box<dyn CallHandler<S>>,
}

/// A handler whose extractors `T` are erased from its type: one vtable per route.
struct Erased<H, T>(H, PhantomData<fn() -> T>);

/// A handler, whatever its type, called with a request and the state.
trait CallHandler<S>: Send + Sync + 'static {
    fn call(&self, request: Request, state: S) -> HandlerFuture;
}

impl<H, T, S> CallHandler<S> for Erased<H, T>
where
    H: Handler<T, S, Future = HandlerFuture>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    fn call(&self, request: Request, state: S) -> HandlerFuture {
        self.0.clone().call(request, state)
    }
}

/// Every route's handler as axum holds it: one type for the routes of an application.
struct Wrapped<S: 'static>(Arc<Kept<S>>);

impl<S> Clone for Wrapped<S> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

/// The extractors of a [`Wrapped`] handler, as axum names a handler's: the handler behind it
/// names its own.
struct WrappedRoute;

impl<S: Clone + Send + Sync + 'static> Handler<WrappedRoute, S> for Wrapped<S> {
    type Future = ResponseFuture<HandlerFuture>;

    #[expect(
        clippy::async_yields_async,
        reason = "a lookup's future yields the next state"
    )]
    fn call(self, mut request: Request, state: S) -> Self::Future {
        let route = self.0;
        let setup = &route.setup;
        if let Some(scope) = &setup.scope {
            request.extensions_mut().insert(scope.clone());
        }
        let decision = match &setup.cors {
            Some(cors) => cors.decide(&mut request, None),
            None => Decision::HandOn(Finish::Untouched),
        };
        // The common case, a route without guards: its handler called here, not through
        // `respond` below, as each hop copies the request (240 bytes).
        if setup.guards.is_empty() && matches!(decision, Decision::HandOn(_)) {
            // What finishes the answer is taken from the decision only once the handler is
            // called: taken before, it would be copied aside to be dropped if the call panics.
            let future = route.handler.call(request, state);
            let Decision::HandOn(finish) = decision else {
                unreachable!("matched above")
            };
            return ResponseFuture::new(future, finish);
        }
        let cors = matches!(decision, Decision::Lookup(_)).then(|| setup.cors.clone());
        // The handler behind its guards (the first rejection answers, a guard that panics
        // answers `500`), unless the request is a preflight passed on to it: a browser sends a
        // preflight without credentials, so guards never see one.
        let respond = move |decision: Decision, request: Request| {
            let finish = match decision {
                Decision::HandOn(finish) => finish,
                Decision::Answer(response) => return ResponseFuture::ready(response),
                Decision::Lookup(_) => unreachable!("a request is looked up once"),
            };
            if matches!(finish, Finish::Preflight(_)) || route.setup.guards.is_empty() {
                return ResponseFuture::new(route.handler.call(request, state), finish);
            }
            let guarded: HandlerFuture = Box::pin(async move {
                let (mut parts, body) = request.into_parts();
                for (guard, name) in route.setup.guards.iter() {
                    match CatchUnwind::new(guard(&mut parts, &state)).await {
                        Ok(Ok(())) => {}
                        Ok(Err(rejection)) => {
                            report_missing_injection(&parts, name);
                            return rejection;
                        }
                        Err(panic) => {
                            tracing::error!(
                                target: "cors_axum",
                                route = parts.uri.path(),
                                "a guard panicked: {}",
                                panic.escape_debug()
                            );
                            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
                        }
                    }
                }
                route
                    .handler
                    .call(Request::from_parts(parts, body), state)
                    .await
            });
            ResponseFuture::new(guarded, finish)
        };
        let Decision::Lookup(lookup) = decision else {
            return respond(decision, request);
        };
        let cors = cors.flatten().expect("only CORS looks origins up");
        ResponseFuture::lookup(Box::pin(async move {
            let decision = cors.decide(&mut request, Some(lookup.await));
            respond(decision, request)
        }))
    }
}

/// Logs, when guard `guard` was rejected after an `Inject<T>` found no value, what to provide:
/// the build checks what guards declare in `Guard::declare`, not what they extract inside.
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
         declare it in the guard's `Guard::declare` so that the router build checks it",
        ty = missing.type_name,
        method = parts.method,
        path = parts.uri.path(),
    );
}
