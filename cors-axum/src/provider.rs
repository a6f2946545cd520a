//! Providers: values registered on a module, a controller or a route, and the [`Inject`]
//! extractor that hands them to handlers and controller fields.

use std::any::{Any, TypeId, type_name};
use std::fmt;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use http::request::Parts;

/// One provided value.
#[derive(Clone)]
pub(crate) struct Provider {
    type_id: TypeId,
    type_name: &'static str,
    value: Arc<dyn Any + Send + Sync>,
}

impl fmt::Debug for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Provider")
            .field("type", &self.type_name)
            .finish_non_exhaustive()
    }
}

/// Builds a list of provided values, as `providers_per_rou: [..]` of a module takes them.
///
/// ```
/// use cors_axum::{CorsOptions, ProviderBuilder};
///
/// #[derive(Clone)]
/// struct Greeting(&'static str);
///
/// let providers = ProviderBuilder::new()
///     .use_value(Greeting("hello"))
///     .use_value(CorsOptions::new().max_age(600));
/// assert_eq!(providers.len(), 2);
/// ```
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct ProviderBuilder {
    providers: Vec<Provider>,
}

impl ProviderBuilder {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Provides `value`; handlers get a clone of it through [`Inject<T>`].
    ///
    /// A later value of the same type replaces an earlier one.
    pub fn use_value<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        let provider = Provider {
            type_id: TypeId::of::<T>(),
            type_name: type_name::<T>(),
            value: Arc::new(value),
        };
        self.insert(provider);
        self
    }

    fn insert(&mut self, provider: Provider) {
        match self
            .providers
            .iter_mut()
            .find(|p| p.type_id == provider.type_id)
        {
            Some(slot) => *slot = provider,
            None => self.providers.push(provider),
        }
    }

    /// How many values are provided.
    pub fn len(&self) -> usize {
        self.providers.len()
    }

    /// Whether nothing is provided.
    pub fn is_empty(&self) -> bool {
        self.providers.is_empty()
    }

    /// Whether a value of the type with `type_id` is provided.
    pub(crate) fn provides(&self, type_id: TypeId) -> bool {
        self.providers.iter().any(|p| p.type_id == type_id)
    }

    /// The provided value of type `T`, if any.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.providers
            .iter()
            .find(|p| p.type_id == TypeId::of::<T>())
            .and_then(|p| p.value.downcast_ref())
    }

    /// The provided value of type `T`, taken out of the list.
    pub(crate) fn take<T: Clone + 'static>(&mut self) -> Option<T> {
        let at = self
            .providers
            .iter()
            .position(|p| p.type_id == TypeId::of::<T>())?;
        self.providers.remove(at).value.downcast_ref().cloned()
    }

    /// Appends `other`; its values replace values of the same type.
    pub(crate) fn extend(&mut self, other: ProviderBuilder) {
        for provider in other.providers {
            self.insert(provider);
        }
    }

    pub(crate) fn into_scope(self) -> ProviderScope {
        ProviderScope(Arc::new(self))
    }
}

/// Turns an entry of `providers_per_rou: [..]` (or `providers = [..]`) into providers.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a provider list",
    note = "write `ProviderBuilder::new().use_value(value)`"
)]
pub trait IntoProviders {
    /// The providers.
    fn into_providers(self) -> ProviderBuilder;
}

impl IntoProviders for ProviderBuilder {
    fn into_providers(self) -> ProviderBuilder {
        self
    }
}

/// The lists of a `providers = [..]` and `cors = ..` in `#[controller]` and `#[route]`, in
/// order: later values replace earlier values of the same type.
impl<const N: usize> IntoProviders for [ProviderBuilder; N] {
    fn into_providers(self) -> ProviderBuilder {
        let mut all = ProviderBuilder::new();
        for list in self {
            all.extend(list);
        }
        all
    }
}

/// The providers visible to one route, put into the request's extensions.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProviderScope(Arc<ProviderBuilder>);

impl ProviderScope {
    /// Whether a value of the type with `type_id` is provided.
    pub(crate) fn provides(&self, type_id: TypeId) -> bool {
        self.0.provides(type_id)
    }

    /// The provided value of the type with `type_id`, shared.
    pub(crate) fn value(&self, type_id: TypeId) -> Option<Arc<dyn Any + Send + Sync>> {
        self.0
            .providers
            .iter()
            .find(|p| p.type_id == type_id)
            .map(|p| Arc::clone(&p.value))
    }

    /// The value of type `T`, and the scope without it (`None` when nothing else is left),
    /// while the router is built: the routes of `OpenapiModule` are given what they serve this
    /// way, and their requests then carry only the providers the module's other routes see.
    #[cfg(feature = "openapi")]
    pub(crate) fn take<T: Clone + 'static>(self) -> (Option<T>, Option<ProviderScope>) {
        let value = self.0.get::<T>().cloned();
        let mut rest = Arc::unwrap_or_clone(self.0);
        rest.providers.retain(|p| p.type_id != TypeId::of::<T>());
        (value, (!rest.is_empty()).then(|| rest.into_scope()))
    }
}

/// Extracts a provided value (constructor or parameter injection).
///
/// The value comes from the route's providers, then its controller's, then its module's
/// `providers_per_rou`, then the application's ([`ApplicationBuilder::provide`]); the most
/// specific wins. A handler or controller field that takes `Inject<T>` on a route without a
/// provider for `T` is a [`BuildError::MissingProvider`] when the router is built.
///
/// [`ApplicationBuilder::provide`]: crate::app::ApplicationBuilder::provide
/// [`BuildError::MissingProvider`]: crate::BuildError::MissingProvider
///
/// ```
/// use cors_axum::prelude::*;
///
/// #[derive(Clone)]
/// pub struct Greeting(pub &'static str);
///
/// pub struct GreetController;
///
/// #[controller]
/// impl GreetController {
///     #[route("GET", "greet")]
///     async fn greet(Inject(greeting): Inject<Greeting>) -> &'static str {
///         greeting.0
///     }
/// }
///
/// rest_root_module! {
///     pub struct GreetModule {
///         controllers: [GreetController],
///         providers_per_rou: [ProviderBuilder::new().use_value(Greeting("hello"))],
///     }
/// }
/// # assert!(GreetModule::router().is_ok());
/// ```
#[derive(Clone, Debug)]
pub struct Inject<T>(pub T);

impl<T: Clone + Send + Sync + 'static, S: Send + Sync> FromRequestParts<S> for Inject<T> {
    type Rejection = InjectRejection;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let found = parts
            .extensions
            .get::<ProviderScope>()
            .and_then(|scope| scope.0.get::<T>())
            .map(|value| Inject(value.clone()));
        found.ok_or_else(|| {
            // For the guard that extracted it, whose rejection may say nothing of it.
            parts.extensions.insert(MissingInjection {
                type_name: type_name::<T>(),
            });
            InjectRejection {
                type_name: type_name::<T>(),
                route: format!("{} {}", parts.method, parts.uri.path()),
            }
        })
    }
}

/// Left in the request by an `Inject<T>` that found no value, so that the guard it ran in is
/// named in the log.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MissingInjection {
    pub(crate) type_name: &'static str,
}

/// The rejection of [`Inject<T>`] when no value of type `T` is provided for the route.
///
/// The router build checks every `Inject<T>` of handlers and controller fields, and those that
/// guards declare ([`GuardDeclaration::inject`](crate::app::GuardDeclaration::inject)), so this happens only when
/// `Inject<T>` is extracted elsewhere, such as inside a custom extractor or an undeclared guard
/// (whose failure is then logged naming the route and the guard).
#[derive(Debug)]
pub struct InjectRejection {
    type_name: &'static str,
    /// The request's method and path.
    route: String,
}

impl fmt::Display for InjectRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no provider for `{}` on route `{}`; provide one with `.provide(..)` on the application \
             builder, or with `ProviderBuilder::new().use_value(..)` in the providers of its module, \
             controller or route",
            self.type_name, self.route
        )
    }
}

impl std::error::Error for InjectRejection {}

impl IntoResponse for InjectRejection {
    fn into_response(self) -> Response {
        tracing::error!("{self}");
        (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error\n").into_response()
    }
}
