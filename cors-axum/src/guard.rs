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

use crate::wiring::Needs;

/// The future of one guard.
#[doc(hidden)]
pub type GuardFuture<'a> = Pin<Box<dyn Future<Output = Result<(), Response>> + Send + 'a>>;

/// One guard, type-erased: runs extractor `G` and keeps only its verdict.
#[doc(hidden)]
pub type GuardFn<S> = for<'a> fn(&'a mut Parts, &'a S) -> GuardFuture<'a>;

/// One guard with its type's name, for the log line of a guard whose `Inject<T>` meets no
/// provider.
pub(crate) type NamedGuard<S> = (GuardFn<S>, &'static str);

/// The guards of one route, in the order they run.
#[doc(hidden)]
pub type Guards<S> = Arc<[NamedGuard<S>]>;

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

/// What a guard takes with [`Inject<T>`](crate::Inject) inside its extractor, declared so
/// that the router build checks it is provided, as it checks the `Inject<T>` of handlers.
///
/// A guard is an extractor: what it extracts inside `from_request_parts` is not in its type,
/// so the build cannot see it. Declared, a value that no level provides for a route the guard
/// runs on is a [`BuildError::MissingGuardProvider`](crate::BuildError::MissingGuardProvider)
/// naming the guard, the type and the route; undeclared, the guard's requests fail at run time
/// and the log line names the route, the guard and the type.
///
/// Declarations are read for the guards listed in `guards: [..]` of a module, a controller or
/// a route; `ApplicationBuilder::guard` takes any guard, but cannot read them.
///
/// ```
/// use axum::extract::FromRequestParts;
/// use axum::http::{StatusCode, request::Parts};
/// use cors_axum::prelude::*;
/// use cors_axum::{BuildError, GuardInjects};
///
/// #[derive(Clone)]
/// pub struct ApiToken(pub String);
///
/// pub struct Bearer;
///
/// impl<S: Send + Sync> FromRequestParts<S> for Bearer {
///     type Rejection = StatusCode;
///
///     async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, StatusCode> {
///         let Inject(ApiToken(token)) = Inject::<ApiToken>::from_request_parts(parts, state)
///             .await
///             .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)?;
///         let sent = parts.headers.get("authorization").and_then(|v| v.to_str().ok());
///         match sent.and_then(|v| v.strip_prefix("Bearer ")) {
///             Some(sent) if sent == token => Ok(Bearer),
///             _ => Err(StatusCode::UNAUTHORIZED),
///         }
///     }
/// }
///
/// /// `Bearer` takes the `ApiToken` the application provides.
/// impl GuardInjects for Bearer {
///     type Injects = (ApiToken,);
/// }
///
/// pub struct UsersController;
///
/// #[controller("users")]
/// impl UsersController {
///     #[route("GET")]
///     async fn list() -> &'static str { "[]" }
/// }
///
/// rest_root_module! {
///     pub struct AppModule { controllers: [UsersController], guards: [Bearer] }
/// }
///
/// let err = AppModule::router().unwrap_err();
/// assert!(matches!(err, BuildError::MissingGuardProvider { .. }));
/// assert!(AppModule::builder().provide(ApiToken("secret".to_owned())).router().is_ok());
/// ```
pub trait GuardInjects {
    /// The types the guard takes with `Inject<T>`, as a tuple: `(ApiToken,)`,
    /// `(ApiToken, Db)`; up to four.
    type Injects: InjectedValues;
}

/// The types of [`GuardInjects::Injects`]: tuples of up to four `Clone + Send + Sync` types.
pub trait InjectedValues {
    /// Declares each type as taken by `guard`.
    #[doc(hidden)]
    fn declare(guard: &'static str, needs: &mut Needs);
}

macro_rules! injected_values {
    ($($t:ident),*) => {
        impl<$($t: Clone + Send + Sync + 'static),*> InjectedValues for ($($t,)*) {
            #[allow(unused_variables)]
            fn declare(guard: &'static str, needs: &mut Needs) {
                $(needs.guard_inject::<$t>(guard);)*
            }
        }
    };
}

injected_values!();
injected_values!(A);
injected_values!(A, B);
injected_values!(A, B, C);
injected_values!(A, B, C, D);

/// Guard `G` as a function pointer, for the static lists the macros write.
#[doc(hidden)]
pub const fn guard<G: Guard<S>, S>() -> GuardFn<S> {
    G::check
}
