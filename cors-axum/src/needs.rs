//! What a route needs from its module, found at compile time and checked when the router is
//! built: every `Inject<T>` has a provider in scope, and `CorsService` is used only under CORS.
//!
//! `#[controller]` knows the type of every handler argument and controller field. For each it
//! writes `(&&&Probe::<Type>::new()).declare(needs)`, and the same for the controller of a
//! `&self` route: method resolution takes the impl of [`Declare`] with the most references whose
//! bounds the type meets. `&&Probe<T>` for a struct controller ([`FieldNeeds`]: the needs of its
//! fields), `&Probe<Inject<T>>` or `&Probe<CorsService>`, else the do-nothing impl for
//! `Probe<T>`. An `Option<Inject<T>>` is optional by construction and needs nothing. Guards are
//! probed the same way, with [`DeclareGuard`].

use std::any::{TypeId, type_name};
use std::marker::PhantomData;

use crate::cors::CorsService;
use crate::provider::Inject;

/// What one route extracts that its module must provide.
#[derive(Debug, Default)]
pub struct Needs {
    pub(crate) injected: Vec<(TypeId, &'static str)>,
    pub(crate) cors_service: bool,
    /// The guards declared here (of a controller and route, or of a module), in the order they
    /// run, by type name: for the log line of a guard that meets no provider.
    pub(crate) guards: Vec<&'static str>,
    /// What those guards take with `Inject<T>`, as they declare it with [`GuardInjects`]:
    /// (guard, type, type name).
    ///
    /// [`GuardInjects`]: crate::app::GuardInjects
    pub(crate) guard_injected: Vec<GuardNeed>,
}

/// A value a guard takes with `Inject<T>`, as it declares it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GuardNeed {
    pub(crate) guard: &'static str,
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
}

impl Needs {
    /// The needs that `declare` writes.
    #[inline]
    pub(crate) fn of(declare: fn(usize, &mut Needs), route: usize) -> Self {
        let mut needs = Needs::default();
        declare(route, &mut needs);
        needs
    }

    /// Guard `G`, and what it declares it takes.
    fn guard<G: ?Sized>(&mut self) -> &'static str {
        let name = type_name::<G>();
        self.guards.push(name);
        name
    }

    /// A value guard `guard` takes with `Inject<T>`.
    pub(crate) fn guard_inject<T: 'static>(&mut self, guard: &'static str) {
        self.guard_injected.push(GuardNeed {
            guard,
            type_id: TypeId::of::<T>(),
            type_name: type_name::<T>(),
        });
    }

    fn inject<T: 'static>(&mut self) {
        let id = TypeId::of::<T>();
        if !self.injected.iter().any(|(known, _)| *known == id) {
            self.injected.push((id, type_name::<T>()));
        }
    }
}

/// A type, probed for what it needs (see the module documentation).
pub struct Probe<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> Probe<T> {
    /// The probe of `T`.
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<T: ?Sized> Default for Probe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Declares what a handler's argument or a `&self` route's controller requires.
pub trait Declare {
    /// Adds the requirement to `needs`.
    fn declare(&self, needs: &mut Needs);
}

impl<T: FieldNeeds> Declare for &&Probe<T> {
    fn declare(&self, needs: &mut Needs) {
        T::declare_fields(needs);
    }
}

impl<T: 'static> Declare for &Probe<Inject<T>> {
    fn declare(&self, needs: &mut Needs) {
        needs.inject::<T>();
    }
}

impl Declare for &Probe<CorsService> {
    fn declare(&self, needs: &mut Needs) {
        needs.cors_service = true;
    }
}

/// Every other type: nothing needed.
impl<T: ?Sized> Declare for Probe<T> {
    fn declare(&self, _: &mut Needs) {}
}

/// The needs of a controller's fields, implemented by `#[controller]` on a struct.
pub trait FieldNeeds {
    /// Adds the needs of every field.
    fn declare_fields(needs: &mut Needs);
}

/// Declares a guard, with what it takes when it says so with [`GuardInjects`].
///
/// [`GuardInjects`]: crate::app::GuardInjects
pub trait DeclareGuard {
    /// Adds the guard and its values to `needs`.
    fn declare_guard(&self, needs: &mut Needs);
}

impl<G: GuardInjects> DeclareGuard for &Probe<G> {
    fn declare_guard(&self, needs: &mut Needs) {
        let guard = needs.guard::<G>();
        G::Injects::declare(guard, needs);
    }
}

/// A guard that declares nothing: its name only.
impl<G: ?Sized> DeclareGuard for Probe<G> {
    fn declare_guard(&self, needs: &mut Needs) {
        needs.guard::<G>();
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
/// use cors_axum::BuildError;
/// use cors_axum::app::GuardInjects;
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

#[cfg(test)]
// The borrows pick the impl, as in the code `#[controller]` writes.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;

    #[derive(Clone)]
    struct Db;

    struct Fields;

    impl FieldNeeds for Fields {
        fn declare_fields(needs: &mut Needs) {
            needs.inject::<u8>();
        }
    }

    fn declare_all(needs: &mut Needs) {
        (&&&Probe::<Inject<Db>>::new()).declare(needs);
        (&&&Probe::<Option<Inject<String>>>::new()).declare(needs);
        (&&&Probe::<String>::new()).declare(needs);
        (&&&Probe::<CorsService>::new()).declare(needs);
        (&&&Probe::<Inject<Db>>::new()).declare(needs);
    }

    #[test]
    fn probes_find_injected_types_and_cors_service_only() {
        let needs = Needs::of(|_, needs| declare_all(needs), 0);
        assert_eq!(needs.injected.len(), 1, "{needs:?}");
        assert_eq!(needs.injected[0].0, TypeId::of::<Db>());
        assert!(needs.injected[0].1.ends_with("Db"));
        assert!(needs.cors_service);
        assert!(!Needs::of(|_, needs| (&&&Probe::<String>::new()).declare(needs), 0).cors_service);
        let fields = Needs::of(|_, needs| (&&&Probe::<Fields>::new()).declare(needs), 0);
        assert_eq!(fields.injected[0].0, TypeId::of::<u8>());
    }
}
