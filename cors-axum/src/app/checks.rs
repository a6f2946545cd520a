//! What the macros check when a controller or module is compiled: traits a handler's arguments
//! and result, a controller and a module's state must meet, implemented for every type that
//! meets them. They are named in compile errors, each with a message that says what to change;
//! code never implements or calls them.

pub use crate::controller::{ControllerInstance, ListedInAnyState, ModuleState, NeedsState};
pub use crate::module::IntoImport;

/// A field of a controller struct: an extractor of the application's state.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a controller field",
    label = "not an extractor",
    note = "a controller field is an extractor, built per request: wrap a provided value in `Inject<{Self}>` \
            (and provide it with `ProviderBuilder::new().use_value(..)`), or use an extractor such as \
            `RequestContext`, `CorsService` or `HeaderMap`; for `State<T>`, declare the state with \
            `#[controller(state = T)]` on the struct and on its impl block"
)]
pub trait ControllerField<S>: axum::extract::FromRequestParts<S> {}

#[diagnostic::do_not_recommend]
impl<S, T: axum::extract::FromRequestParts<S>> ControllerField<S> for T {}

/// Extracts one field of a controller struct.
pub async fn field<S: Send + Sync, T: ControllerField<S>>(
    parts: &mut http::request::Parts,
    state: &S,
) -> Result<T, axum::response::Response> {
    T::from_request_parts(parts, state)
        .await
        .map_err(axum::response::IntoResponse::into_response)
}

/// An argument of a handler before the last one: an extractor that leaves the body.
#[diagnostic::on_unimplemented(
    message = "`{Self}` must be the last argument of the handler, or is not an extractor",
    label = "only the last argument may read the request body",
    note = "arguments before the last implement `axum::extract::FromRequestParts`; an extractor of the \
            body (`String`, `Bytes`, `Json<T>`, `Form<T>`, `Request`) goes last. `#[axum::debug_handler]` \
            under `#[route]` explains handler errors in more detail"
)]
pub trait PartsArgument<S>: axum::extract::FromRequestParts<S> {}

#[diagnostic::do_not_recommend]
impl<S, T: axum::extract::FromRequestParts<S>> PartsArgument<S> for T {}

/// The last argument of a handler: any extractor.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an extractor",
    label = "a handler's arguments are extractors",
    note = "implement `axum::extract::FromRequest` or `FromRequestParts` for it, or take a provided value \
            as `Inject<{Self}>`"
)]
pub trait LastArgument<S, M>: axum::extract::FromRequest<S, M> {}

#[diagnostic::do_not_recommend]
impl<S, M, T: axum::extract::FromRequest<S, M>> LastArgument<S, M> for T {}

/// A `State<T>` argument of a handler in a controller for one state `S`: `T` is `S` or a
/// part of it.
#[diagnostic::on_unimplemented(
    message = "`State<{Self}>` cannot be extracted in a module whose state is `{S}`",
    label = "`{Self}` is not the state `{S}`, nor a part of it",
    note = "take `State<{S}>`, or make `{Self}` a part of the state with \
            `impl axum::extract::FromRef<{S}> for {Self}`; the state is the one declared by \
            `state: {S}` on the module and `#[controller(state = {S})]`"
)]
pub trait StatePart<S>: axum::extract::FromRef<S> {}

#[diagnostic::do_not_recommend]
impl<S, T: axum::extract::FromRef<S>> StatePart<S> for T {}

/// An argument before the last one of a handler in a controller for every state (one
/// without `state = ..` and without `State<T>` arguments).
#[diagnostic::on_unimplemented(
    message = "`{Self}` must be the last argument of the handler, or is not an extractor under every state",
    label = "only the last argument may read the request body",
    note = "arguments before the last implement `axum::extract::FromRequestParts`; an extractor of the body \
            (`String`, `Bytes`, `Json<T>`, `Form<T>`, `Request`) goes last. This controller declares no state, \
            so they extract under any state: if `{Self}` needs the application's state (`State<T>` behind an \
            alias, or an extractor implemented for one state type), declare it with \
            `#[controller(state = T)]`, and `state: T` on the module. `#[axum::debug_handler]` under \
            `#[route]` explains handler errors in more detail"
)]
pub trait AnyStatePartsArgument<S>: axum::extract::FromRequestParts<S> {}

#[diagnostic::do_not_recommend]
impl<S, T: axum::extract::FromRequestParts<S>> AnyStatePartsArgument<S> for T {}

/// The last argument of a handler in a controller for every state.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an extractor under every state",
    label = "a handler's arguments are extractors, under any state when the controller declares none",
    note = "this controller declares no state: if `{Self}` needs the application's state (`State<T>` behind an \
            alias, or an extractor implemented for one state type), declare it with `#[controller(state = T)]`, \
            and `state: T` on the module. Otherwise implement `axum::extract::FromRequest` or \
            `FromRequestParts` for it, or take a provided value as `Inject<{Self}>`"
)]
pub trait AnyStateLastArgument<S, M>: axum::extract::FromRequest<S, M> {}

#[diagnostic::do_not_recommend]
impl<S, M, T: axum::extract::FromRequest<S, M>> AnyStateLastArgument<S, M> for T {}

/// A controller for every state with `&self` routes: built per request under any state.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has `&self` routes, so it must be built per request under any state",
    label = "`{Self}` is not built from the request under every state",
    note = "add `#[controller]` to the struct `{Self}` so that its fields are injected per request. A struct \
            whose fields take `State<T>` (or declared with `#[controller(state = T)]`) is built for state `T` \
            only: then declare this impl block with `#[controller(state = T)]` too"
)]
pub trait AnyStateInstance<S>: axum::extract::FromRequestParts<S> {}

#[diagnostic::do_not_recommend]
impl<S, T: axum::extract::FromRequestParts<S>> AnyStateInstance<S> for T {}

/// A `State<T>` a controller's state was read from: axum's, not another type of that name.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not axum's `State<{T}>`, from which this controller's state was read",
    label = "read as the controller's state `{T}`",
    note = "`#[controller]` without `state = ..` reads the state from its handlers' and fields' `State<T>`; \
            name another type by its path (`my_crate::State<T>`) so that it is not read, or declare the state \
            with `#[controller(state = T)]`"
)]
pub trait StateArgument<T> {}

impl<T> StateArgument<T> for axum::extract::State<T> {}

/// What a handler returns: a response.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a response",
    label = "route handlers return a type implementing `IntoResponse`",
    note = "return `Response`, `String`, `&'static str`, `Json<T>`, `(StatusCode, T)`, `Result<T, E>` with \
            both responses, or implement `axum::response::IntoResponse` for it"
)]
pub trait HandlerOutput: axum::response::IntoResponse {}

#[diagnostic::do_not_recommend]
impl<T: axum::response::IntoResponse> HandlerOutput for T {}

/// Checks an argument before the last one.
pub const fn parts_argument<S, T: PartsArgument<S>>() {}

/// Checks the last argument.
pub const fn last_argument<S, M, T: LastArgument<S, M>>() {}

/// Checks an argument before the last one, in a controller for every state.
pub const fn any_state_parts_argument<S, T: AnyStatePartsArgument<S>>() {}

/// Checks the last argument, in a controller for every state.
pub const fn any_state_last_argument<S, M, T: AnyStateLastArgument<S, M>>() {}

/// Checks a `State<T>` the controller's state `T` was read from.
pub const fn state_argument<T, A: StateArgument<T>>() {}

/// Checks the return type.
pub const fn handler_output<T: HandlerOutput>() {}
