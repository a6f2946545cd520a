//! Guards: checks that run before a handler and may answer the request instead.
//!
//! A guard is a type implementing [`Guard`] for the application's state, or any extractor (a
//! type implementing axum's `FromRequestParts`); its rejection (a `401`, a `403`, a `429`...)
//! becomes the response. Guards are given at every level (application, module, controller,
//! route) and run just before the handler, the most general first, inside the CORS handling:
//! preflights never reach them, and their rejections carry the CORS headers like any other
//! response.

use std::any::{TypeId, type_name};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Response};
use http::request::Parts;
#[cfg(feature = "openapi")]
use utoipa::openapi::security::SecurityScheme;

/// The future of one guard.
pub(crate) type GuardFuture<'a> = Pin<Box<dyn Future<Output = Result<(), Response>> + Send + 'a>>;

/// One guard, type-erased: runs guard `G` and keeps only its verdict.
pub(crate) type GuardFn<S> = for<'a> fn(&'a mut Parts, &'a S) -> GuardFuture<'a>;

/// One guard with its type's name, for the log line of a guard whose `Inject<T>` meets no
/// provider.
pub(crate) type NamedGuard<S> = (GuardFn<S>, &'static str);

/// One guard as the macros list it: how it runs, and what it declares.
pub(crate) type ListedGuard<S> = (GuardFn<S>, fn() -> GuardDeclaration);

/// The guards of one route, in the order they run.
pub(crate) type Guards<S> = Arc<[NamedGuard<S>]>;

/// A type that guards routes: it lets a request through or answers it instead of the handler.
///
/// Implemented by a guard type, once; every extractor (a type implementing axum's
/// `FromRequestParts<S>`) is also a guard, without an impl, and declares nothing. `M` tells the
/// two apart: leave it out. A type that is both an extractor and a `Guard` cannot be listed as a
/// guard; give the guard a type of its own.
///
/// [`declare`](Guard::declare) says what the guard takes with [`Inject<T>`](crate::Inject),
/// so that a value that no level provides for a route it guards is a
/// [`BuildError::MissingGuardProvider`](crate::BuildError::MissingGuardProvider) naming the
/// guard, the type and the route; and, with the `openapi` feature, the security scheme it
/// enforces, which the routes it guards require in the OpenAPI document. Declarations are read
/// for the guards listed in `guards: [..]` of a module, a controller or a route;
/// `ApplicationBuilder::guard` runs them but reads no declaration.
///
/// ```
/// use axum::extract::FromRequestParts;
/// use axum::http::{StatusCode, request::Parts};
/// use cors_axum::prelude::*;
/// use cors_axum::BuildError;
/// use cors_axum::app::{Guard, GuardDeclaration};
///
/// #[derive(Clone)]
/// pub struct ApiToken(pub String);
///
/// /// Requests without `Authorization: Bearer <token>` get `401`.
/// pub struct Bearer;
///
/// impl<S: Send + Sync> Guard<S> for Bearer {
///     type Rejection = StatusCode;
///
///     async fn check(parts: &mut Parts, state: &S) -> Result<(), StatusCode> {
///         let Inject(ApiToken(token)) = Inject::<ApiToken>::from_request_parts(parts, state)
///             .await
///             .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)?;
///         let sent = parts.headers.get("authorization").and_then(|v| v.to_str().ok());
///         match sent.and_then(|v| v.strip_prefix("Bearer ")) {
///             Some(sent) if sent == token => Ok(()),
///             _ => Err(StatusCode::UNAUTHORIZED),
///         }
///     }
///
///     fn declare(guard: &mut GuardDeclaration) {
///         guard.inject::<ApiToken>();
///     }
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
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a guard",
    label = "neither a `Guard` nor an extractor of this application's state",
    note = "a guard implements `cors_axum::app::Guard<S>`, or is an extractor (it implements \
            `axum::extract::FromRequestParts<S>`); its rejection (such as \
            `StatusCode::UNAUTHORIZED`) answers the request instead of the handler"
)]
pub trait Guard<S, M = ()>: Send + Sized + 'static {
    /// The answer when the guard refuses a request.
    type Rejection: IntoResponse;

    /// Lets the request through with `Ok(())`, or refuses it.
    fn check(
        parts: &mut Parts,
        state: &S,
    ) -> impl Future<Output = Result<(), Self::Rejection>> + Send;

    /// Declares what the guard takes with `Inject<T>` and the security scheme it enforces;
    /// nothing unless implemented.
    fn declare(guard: &mut GuardDeclaration) {
        let _ = guard;
    }
}

/// The `M` of [`Guard`] for extractors.
pub enum Extractor {}

#[diagnostic::do_not_recommend]
impl<S, G> Guard<S, Extractor> for G
where
    S: Send + Sync,
    G: FromRequestParts<S> + Send + 'static,
{
    type Rejection = G::Rejection;

    async fn check(parts: &mut Parts, state: &S) -> Result<(), G::Rejection> {
        G::from_request_parts(parts, state).await.map(drop)
    }
}

/// What a guard declares in [`Guard::declare`].
pub struct GuardDeclaration {
    /// The guard's type name.
    pub(crate) name: &'static str,
    /// What it takes with `Inject<T>`: (type, type name).
    pub(crate) injects: Vec<(TypeId, &'static str)>,
    /// The security schemes it enforces, by name.
    #[cfg(feature = "openapi")]
    pub(crate) security: Vec<(&'static str, SecurityScheme)>,
}

impl GuardDeclaration {
    /// The guard takes a `T` with [`Inject<T>`](crate::Inject): the router build checks that
    /// one is provided for every route it guards, as it checks the `Inject<T>` of handlers.
    pub fn inject<T: Clone + Send + Sync + 'static>(&mut self) -> &mut Self {
        self.injects.push((TypeId::of::<T>(), type_name::<T>()));
        self
    }

    /// The guard enforces security scheme `scheme`, named `name` in
    /// `components.securitySchemes` (such as `"bearerAuth"`; guards that enforce the same scheme
    /// give the same name): every route it guards requires it in the OpenAPI document, so that
    /// clients such as Swagger UI send the credentials.
    #[cfg(feature = "openapi")]
    #[cfg_attr(docsrs, doc(cfg(feature = "openapi")))]
    pub fn security(&mut self, name: &'static str, scheme: SecurityScheme) -> &mut Self {
        self.security.push((name, scheme));
        self
    }

    /// What guard `G` declares.
    pub(crate) fn of<G: Guard<S, M>, S, M>() -> Self {
        let mut declaration = GuardDeclaration {
            name: type_name::<G>(),
            injects: Vec::new(),
            #[cfg(feature = "openapi")]
            security: Vec::new(),
        };
        G::declare(&mut declaration);
        declaration
    }
}

/// Runs guard `G`, type-erased.
pub(crate) fn check<'a, G: Guard<S, M>, S, M: 'static>(
    parts: &'a mut Parts,
    state: &'a S,
) -> GuardFuture<'a> {
    let verdict = G::check(parts, state);
    Box::pin(async move { verdict.await.map_err(IntoResponse::into_response) })
}

/// Guard `G` as the static lists the macros write: `M` is inferred.
pub const fn guard<G: Guard<S, M>, S, M: 'static>() -> ListedGuard<S> {
    (check::<G, S, M>, GuardDeclaration::of::<G, S, M>)
}
