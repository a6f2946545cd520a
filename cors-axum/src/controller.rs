//! Controllers and the route registry filled by `#[controller]`.

use std::any::TypeId;

use axum::extract::FromRequestParts;
use axum::routing::MethodRouter;

use crate::provider::ProviderBuilder;

/// A type whose `impl` block is marked `#[controller]`.
///
/// Implemented by the macro; listed in the `controllers: [..]` of a module.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a controller",
    label = "listed in `controllers`, but it has no `#[controller]` impl block",
    note = "add `#[controller]` to an `impl {Self}` block whose methods carry `#[route(..)]`"
)]
pub trait Controller: 'static {
    /// The controller's name as written in the source, for route tables and errors.
    const NAME: &'static str;
}

/// A controller that is built per request from its fields (constructor injection).
///
/// Implemented for every type that can be extracted from request parts; `#[controller]` on a
/// struct with extractor fields implements that.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has `&self` routes, so it must be built per request",
    label = "`{Self}` is not built from the request",
    note = "add `#[controller]` to the struct `{Self}` so that its fields are injected per request"
)]
pub trait ControllerInstance: FromRequestParts<()> {}

// Not recommended, so that a missing impl is reported with the message above rather than as a
// missing `FromRequestParts` with a list of every extractor.
#[diagnostic::do_not_recommend]
impl<T: FromRequestParts<()>> ControllerInstance for T {}

/// One route as `#[controller]` registers it: constants and `fn` pointers only.
#[doc(hidden)]
#[derive(Debug)]
pub struct RouteRegistration {
    /// The controller type, to match `controllers: [..]` of a module.
    pub controller: fn() -> TypeId,
    /// The controller's name.
    pub controller_name: &'static str,
    /// Upper-case method name, validated by the macro.
    pub method: &'static str,
    /// The path below the module: controller prefix and route path, starting with `/`.
    pub path: &'static str,
    /// The handler's name.
    pub handler: &'static str,
    /// Builds the axum method router of this route.
    pub method_router: fn() -> MethodRouter,
    /// Controller-level providers.
    pub controller_providers: Option<fn() -> ProviderBuilder>,
    /// Route-level providers.
    pub route_providers: Option<fn() -> ProviderBuilder>,
}

inventory::collect!(RouteRegistration);

/// A controller listed in a module.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct ControllerRef {
    pub(crate) type_id: TypeId,
    pub(crate) name: &'static str,
}

impl ControllerRef {
    /// The reference to controller `C`.
    pub fn of<C: Controller>() -> Self {
        Self {
            type_id: TypeId::of::<C>(),
            name: C::NAME,
        }
    }
}

#[doc(hidden)]
pub fn type_id_of<T: 'static>() -> TypeId {
    TypeId::of::<T>()
}

/// The methods a route layer of axum supports, in the order `Allow` lists them.
pub(crate) const METHOD_ORDER: [&str; 9] = [
    "OPTIONS", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "TRACE", "CONNECT",
];

/// Position of a method in [`METHOD_ORDER`], for stable sorting.
pub(crate) fn method_rank(method: &str) -> usize {
    METHOD_ORDER
        .iter()
        .position(|m| *m == method)
        .unwrap_or(METHOD_ORDER.len())
}
