//! Guards: extractors that run before a handler and may answer the request instead.
//!
//! A guard is any type implementing axum's `FromRequestParts` for the application's state; its
//! rejection (a `401`, a `403`, a `429`...) becomes the response. Guards are given at every
//! level (application, module, controller, route) and run just before the handler, the most
//! general first, inside the CORS handling: preflights never reach them, and their rejections
//! carry the CORS headers like any other response.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Response};
use http::request::Parts;

/// The future of one guard.
pub(crate) type GuardFuture<'a> = Pin<Box<dyn Future<Output = Result<(), Response>> + Send + 'a>>;

/// One guard, type-erased: runs extractor `G` and keeps only its verdict.
pub(crate) type GuardFn<S> = for<'a> fn(&'a mut Parts, &'a S) -> GuardFuture<'a>;

/// One guard with its type's name, for the log line of a guard whose `Inject<T>` meets no
/// provider.
pub(crate) type NamedGuard<S> = (GuardFn<S>, &'static str);

/// The guards of one route, in the order they run.
pub(crate) type Guards<S> = Arc<[NamedGuard<S>]>;

/// A type that can guard routes: an extractor whose rejection answers the request.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a guard",
    label = "not an extractor of this application's state",
    note = "a guard is a type implementing `axum::extract::FromRequestParts<S>`; its rejection \
            (such as `StatusCode::UNAUTHORIZED`) answers the request instead of the handler"
)]
pub trait Guard<S>: Send + 'static {
    /// Runs the guard.
    #[doc(hidden)]
    fn check<'a>(parts: &'a mut Parts, state: &'a S) -> GuardFuture<'a>;
}

#[diagnostic::do_not_recommend]
impl<S, G> Guard<S> for G
where
    S: Send + Sync + 'static,
    G: FromRequestParts<S> + Send + 'static,
{
    fn check<'a>(parts: &'a mut Parts, state: &'a S) -> GuardFuture<'a> {
        Box::pin(async move {
            G::from_request_parts(parts, state)
                .await
                .map(drop)
                .map_err(IntoResponse::into_response)
        })
    }
}

/// Guard `G` as a function pointer, for the static lists the macros write.
pub const fn guard<G: Guard<S>, S>() -> GuardFn<S> {
    G::check
}
