//! Controllers: what `#[controller]` generates for a type, and the registry of controllers.

use std::any::TypeId;

use axum::extract::FromRequestParts;
use axum::routing::MethodRouter;
use http::Method;

use crate::describe::draft::{Describe, RouteDoc};
use crate::guard::ListedGuard;
use crate::handler::RouteSetup;
use crate::needs::Needs;
use crate::provider::ProviderBuilder;

/// A type whose `impl` block is marked [`#[controller]`](crate::controller), for modules whose
/// state is `S`.
///
/// Implemented by the macro, never by hand; listed in the `controllers: [..]` of a module. A
/// controller without `state = ..` is a controller for every state; one declared with
/// `#[controller(state = AppState)]` belongs in modules declared with `state: AppState`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a controller of this module",
    label = "listed in `controllers`, but it has no `#[controller]` impl block for this module's state",
    note = "add `#[controller]` to an `impl {Self}` block whose methods carry `#[route(..)]`; a controller \
            whose handlers or fields take `State<T>`, or declared with `#[controller(state = T)]`, goes in a \
            module declared with `state: T`"
)]
pub trait Controller<S: 'static = ()>: 'static {
    /// The controller's name, routes and providers, as a module of state `S` lists them.
    /// `#[controller]` implements it for every state `S` that the controller fits; for a
    /// controller of one state `T`, under the bound `T: ModuleState<S>` (spanned at the
    /// `State<T>` the state was read from), so that a mismatch names both states.
    #[doc(hidden)]
    fn controller_ref() -> ControllerRef<S>;
}

/// A controller as a module without `state:` lists it: one for every state. A controller of
/// one state `T` implements it under the bound `T: NeedsState`, which nothing meets, so that
/// the error names `state: T`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a controller",
    label = "listed in `controllers`, but it has no `#[controller]` impl block",
    note = "add `#[controller]` to an `impl {Self}` block whose methods carry `#[route(..)]`"
)]
pub trait ListedInAnyState {
    /// The controller's routes for a module of state `S`; reached only for controllers of every
    /// state, since the others do not compile in such a module.
    #[doc(hidden)]
    fn controller_ref_any<S: Clone + Send + Sync + 'static>() -> ControllerRef<S> {
        unreachable!("a controller of one state is listed only in modules of that state")
    }
}

/// The state `S` of a module, met by a controller whose state is `Self`: only `S = Self`.
#[diagnostic::on_unimplemented(
    message = "this controller's handlers take `State<{Self}>`, but the module's state is `{S}`",
    label = "listed in a module declared with `state: {S}`",
    note = "a controller whose handlers take `State<{Self}>` goes in a module declared with `state: {Self}`. \
            If `{Self}` is a part of the module's state, implement `axum::extract::FromRef<{S}> for {Self}` \
            and declare the controller with `#[controller(state = {S})]`: its handlers then take \
            `State<{Self}>` from the module's `{S}`"
)]
pub trait ModuleState<S: 'static>: Sized + 'static {
    /// The controller's routes, as the module's.
    #[doc(hidden)]
    fn cast(controller: ControllerRef<Self>) -> ControllerRef<S>;
}

impl<T: 'static> ModuleState<T> for T {
    fn cast(controller: ControllerRef<T>) -> ControllerRef<T> {
        controller
    }
}

/// What a module without `state:` lacks for a controller whose state is `Self`: implemented
/// for no state, so that listing such a controller there names the state to declare.
#[diagnostic::on_unimplemented(
    message = "this controller's handlers take `State<{Self}>`, so its module needs `state: {Self}`",
    label = "listed in a module declared without `state`",
    note = "declare the module with `state: {Self}` and give its router the state with \
            `.with_state(..)`; a module without `state` works under any state, so its controllers \
            may not take one"
)]
pub trait NeedsState {}

mod sealed {
    /// No value: the one type `NeedsState` is implemented for, so that an error does not say
    /// that the trait has no implementations.
    #[allow(dead_code, reason = "named by the impl of `NeedsState`, never made")]
    pub(crate) enum NoModuleState {}
}

#[diagnostic::do_not_recommend]
impl NeedsState for sealed::NoModuleState {}

/// A controller that is built per request from its fields (constructor injection).
///
/// Implemented for every type that can be extracted from request parts; `#[controller]` on a
/// struct with extractor fields implements that.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has `&self` routes, so it must be built per request",
    label = "`{Self}` is not built from the request",
    note = "add `#[controller]` to the struct `{Self}` so that its fields are injected per request; \
            if the impl block declares `state = T`, the struct takes the same `state = T`"
)]
pub trait ControllerInstance<S>: FromRequestParts<S> {}

// Not recommended, so that a missing impl is reported with the message above rather than as a
// missing `FromRequestParts` with a list of every extractor.
#[diagnostic::do_not_recommend]
impl<S, T: FromRequestParts<S>> ControllerInstance<S> for T {}

/// One route of a controller, as `#[controller]` declares it: constants and `fn` pointers only.
pub struct RouteDef<S: 'static> {
    /// The method.
    pub(crate) method: Method,
    /// The path below the module: controller prefix and route path, starting with `/`.
    pub(crate) path: &'static str,
    /// The handler's name.
    pub(crate) handler: &'static str,
    /// Adds the route to the method router of its path, with the setup the builder gives: the
    /// guards that run before its handler (those of the application and modules, then
    /// [`guards`](Self::guards)), its providers, and its CORS when the handler takes it.
    pub(crate) method_router: fn(MethodRouter<S>, RouteSetup<S>) -> MethodRouter<S>,
    /// The guards of the controller, then of the route.
    pub(crate) guards: &'static [ListedGuard<S>],
    /// Whether the controller or the route has layers of its own, which CORS must wrap: then
    /// the builder puts CORS in a layer around the route, not in its handler.
    pub(crate) layered: bool,
    /// Route-level providers (`providers = [..]`, `cors = ..` of `#[route]`).
    pub(crate) providers: Option<fn() -> ProviderBuilder>,
    /// What the handler (and the controller, for `&self` handlers) extracts that the module
    /// must provide (`Inject<T>`, `CorsService`): declared by the controller's one function for
    /// all its routes, given the route's index.
    pub(crate) needs: fn(usize, &mut Needs),
    /// The route's index among its controller's, for [`needs`](Self::needs).
    pub(crate) index: usize,
    /// What the route says about itself in an OpenAPI document; empty without the `openapi`
    /// feature.
    pub(crate) doc: RouteDoc,
}

impl<S: 'static> RouteDef<S> {
    /// A route without guards, layers, providers or documentation of its own: what
    /// `#[controller]` writes for most routes, the rest added by the methods below, so that
    /// each route is a short expression for the compiler to read in every build.
    pub const fn new(
        method: Method,
        path: &'static str,
        handler: &'static str,
        method_router: fn(MethodRouter<S>, RouteSetup<S>) -> MethodRouter<S>,
        needs: fn(usize, &mut Needs),
        index: usize,
    ) -> Self {
        Self {
            method,
            path,
            handler,
            method_router,
            guards: &[],
            layered: false,
            providers: None,
            needs,
            index,
            doc: RouteDoc::UNDOCUMENTED,
        }
    }

    /// With the guards of its controller and route.
    #[must_use]
    pub const fn guards(mut self, guards: &'static [ListedGuard<S>]) -> Self {
        self.guards = guards;
        self
    }

    /// With layers of its controller or route.
    #[must_use]
    pub const fn layered(mut self) -> Self {
        self.layered = true;
        self
    }

    /// With providers of its own.
    #[must_use]
    pub const fn providers(mut self, providers: fn() -> ProviderBuilder) -> Self {
        self.providers = Some(providers);
        self
    }

    /// With its documentation: the first paragraph of its handler's doc comment, the rest,
    /// whether the handler is `#[deprecated]`, and the function that describes its types.
    #[must_use]
    pub const fn doc(
        mut self,
        summary: &'static str,
        description: &'static str,
        deprecated: bool,
        details: Describe,
    ) -> Self {
        self.doc = RouteDoc::new(summary, description, deprecated, details);
        self
    }

    /// What the route and its guards need from its module.
    pub(crate) fn needs(&self) -> Needs {
        let mut needs = Needs::of(self.needs, self.index);
        for (_, declaration) in self.guards {
            needs.guard(&declaration());
        }
        needs
    }

    /// Listed in OpenAPI documents or left out (`openapi = ..` of `#[route]` or
    /// `#[controller]`), whatever its module says; after [`doc`](Self::doc).
    #[must_use]
    pub const fn listed(mut self, listed: bool) -> Self {
        self.doc = self.doc.listed(listed);
        self
    }
}

/// One controller in the registry: one entry per `#[controller]` impl block.
#[derive(Debug)]
pub struct ControllerEntry {
    /// The controller's name.
    pub name: &'static str,
    /// The controller type.
    pub type_id: fn() -> TypeId,
    /// Where it is declared (`module_path!()`).
    pub module_path: &'static str,
}

inventory::collect!(ControllerEntry);

/// A controller listed in a module.
pub struct ControllerRef<S: 'static> {
    pub(crate) type_id: TypeId,
    pub(crate) name: &'static str,
    pub(crate) routes: &'static [RouteDef<S>],
    pub(crate) providers: Option<fn() -> ProviderBuilder>,
}

impl<S: 'static> ControllerRef<S> {
    /// Controller `C`, named `name`, with its routes and its own providers (`#[controller]`, and
    /// the benchmarks and tests of the router build).
    pub fn new<C: 'static>(
        name: &'static str,
        routes: &'static [RouteDef<S>],
        providers: Option<fn() -> ProviderBuilder>,
    ) -> Self {
        Self {
            type_id: TypeId::of::<C>(),
            name,
            routes,
            providers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::RequestContext;
    use crate::guard::guard;

    fn router(into: MethodRouter, _: RouteSetup<()>) -> MethodRouter {
        into
    }

    fn needs(_: usize, needs: &mut Needs) {
        needs.cors_service = true;
    }

    fn providers() -> ProviderBuilder {
        ProviderBuilder::new()
    }

    const PLAIN: RouteDef<()> = RouteDef::new(Method::GET, "/items", "list", router, needs, 0);
    const GUARDS: &[ListedGuard<()>] = &[guard::<RequestContext, (), _>()];
    const FULL: RouteDef<()> =
        RouteDef::new(Method::PUT, "/items/{id}", "update", router, needs, 1)
            .guards(GUARDS)
            .layered()
            .providers(providers);

    #[test]
    fn a_route_def_has_only_what_it_is_given_beside_the_constructor() {
        // Made in constants, as `#[controller]` makes them, then read as values.
        let (plain, full) = (PLAIN, FULL);
        assert_eq!(
            (plain.method, plain.path, plain.handler),
            (Method::GET, "/items", "list")
        );
        assert!(plain.guards.is_empty());
        assert!(!plain.layered);
        assert!(plain.providers.is_none());
        assert!(Needs::of(plain.needs, plain.index).cors_service);

        assert_eq!((full.method, full.path), (Method::PUT, "/items/{id}"));
        assert_eq!(full.guards.len(), 1);
        assert!(full.layered);
        assert!(full.providers.is_some());
    }
}
