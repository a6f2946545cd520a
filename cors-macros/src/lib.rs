//! Procedural macros of [`cors-axum`](https://docs.rs/cors-axum). Use them through `cors-axum`,
//! which re-exports them; their documentation is here, and shows on their pages there.
//!
//! Each entry point is one line; the work is in one module per macro, and every error goes
//! through one funnel that keeps the item and adds the error, so that IDEs keep working.

mod attr;
mod controller;
mod module;
mod openapi;
mod path;
mod route;
mod state;

use proc_macro::TokenStream;

/// Declares a controller: on an `impl` block, its routes; on a struct, its injected fields.
///
/// # On an `impl` block
///
/// Every method marked [`#[route("METHOD")]`](macro@route) or `#[route("METHOD", "path")]` is a
/// route. A method without a receiver is an ordinary axum handler: any extractors as arguments
/// (the request body last), any `IntoResponse` as result. A `&self` method is called on a
/// controller built per request from its fields (see below).
///
/// ```
/// use axum::extract::Path;
/// use cors_axum::prelude::*;
///
/// #[derive(Clone)]
/// pub struct Db;
///
/// pub struct UsersController;
///
/// #[controller("users", cors = CorsOptions::new().max_age(600))]
/// impl UsersController {
///     #[route("GET")]
///     async fn list(Inject(_db): Inject<Db>) -> &'static str {
///         "[]"
///     }
///
///     #[route("GET", "{id}")]
///     async fn one(Path(id): Path<u32>) -> String {
///         format!("user {id}")
///     }
///
///     /// Not for browsers on other origins: no CORS headers, preflights refused.
///     #[route("DELETE", "{id}", cors = false)]
///     async fn remove(Path(id): Path<u32>) -> String {
///         format!("deleted {id}")
///     }
/// }
///
/// rest_root_module! {
///     pub struct AppModule {
///         imports: [CorsModule],
///         controllers: [UsersController],
///         providers_per_rou: [ProviderBuilder::new().use_value(Db)],
///     }
/// }
///
/// let routes = AppModule::routes().unwrap();
/// assert_eq!(routes.len(), 5); // GET /users, OPTIONS /users, GET, DELETE and OPTIONS /users/{id}
/// ```
///
/// Arguments, all optional:
///
/// | argument | meaning |
/// |---|---|
/// | `"prefix"` or `path = "prefix"` | prefixes the path of every route of the block |
/// | `state = T` | the handlers extract `State<T>` (or parts of `T` through `FromRef`); the controller goes in modules declared with `state: T`. Without it, the state is read from the handlers' `State<T>` arguments, if they take one |
/// | `providers = [ProviderBuilder::new().use_value(v), ..]` | values for `Inject<T>` in these routes, more specific than the module's |
/// | `cors = CorsOptions::new()...` | CORS options of these routes, merged over the module's; `cors = false` switches CORS off |
/// | `guards = [G, ..]` | guards (`Guard<S>` types or extractors) run before each handler; a rejection answers instead |
/// | `layers = [layer, ..]` | tower layers (such as `axum::middleware::from_fn(f)`) around each route |
/// | `openapi = false` | leaves these routes out of the OpenAPI document (feature `openapi`); `openapi = true` lists them where their module leaves its routes out |
///
/// Guards and layers of every level run inside the CORS handling: preflights are answered before
/// them, and their rejections carry the CORS headers. Layers wrap, from the outside in: the
/// application's, the modules' (the importing module outside the imported one), the
/// controller's, the route's. Guards run after every layer, just before the handler, the most
/// general first.
///
/// The macro reports at compile time, pointing at the token at fault: a trait implementation or
/// a generic block; a `#[route]` on something other than a method; two routes with the same
/// method and path; handlers taking two different `State<..>` without `state = ..`; an
/// argument before the last that reads the body, or that is not an extractor (under every
/// state, in a controller without one); a return type that is not a response; `&mut self`. It registers one entry per
/// controller in an [`inventory`](https://docs.rs/inventory) registry; the routes themselves
/// are constants of the controller, read by the modules that list it.
///
/// # On a struct: constructor injection
///
/// On a struct whose fields are extractors (`RequestContext`, `CorsService`, `Inject<T>`,
/// `HeaderMap`, ...), `#[controller]` makes the struct an extractor built from its fields, so
/// that its `&self` methods can be routes. A field that is not an extractor is a compile error
/// that suggests `Inject<T>`. A struct whose fields take `State<T>` is built for state `T`; it
/// takes one argument, `state = T`, to say so when the state cannot be read from its fields. Its
/// impl block has the same state: read from its handlers' `State<T>` arguments, or written
/// `#[controller(state = T)]` when they take none.
///
/// ```
/// use cors_axum::prelude::*;
///
/// #[controller]
/// pub struct SessionController {
///     ctx: RequestContext,
///     cors: CorsService,
/// }
///
/// #[controller]
/// impl SessionController {
///     #[route("POST", "login")]
///     async fn login(&self, body: String) -> Response {
///         self.cors.set_cookie("session", "opaque-token");
///         self.ctx.send(format!("welcome {body}"))
///     }
/// }
/// # rest_root_module! { pub struct AppModule { imports: [CorsModule], controllers: [SessionController] } }
/// # AppModule::router().unwrap();
/// ```
#[proc_macro_attribute]
pub fn controller(args: TokenStream, item: TokenStream) -> TokenStream {
    controller::expand(args.into(), item.into()).into()
}

/// Declares a route: a method of a [`#[controller]`](macro@controller) `impl` block.
///
/// `#[route("GET")]` serves the controller's path; `#[route("POST", "items/{id}")]` a path below
/// it. Methods are upper case: `GET`, `HEAD`, `POST`, `PUT`, `PATCH`, `DELETE`, `OPTIONS`,
/// `TRACE`, `CONNECT`; a `GET` route also answers `HEAD`. Paths use axum's syntax: `{id}` for a
/// parameter, `{*rest}` for a wildcard; a leading `/` is optional and a trailing one is
/// dropped. A method may carry several `#[route]`s.
///
/// After the method and path, the same optional arguments as the controller's, for this route
/// alone and more specific: `providers = [..]`, `cors = ..` (or `cors = false`),
/// `guards = [..]`, `layers = [..]`, `openapi = false` (or `true`, over its controller's or
/// module's). With `cors = CorsOptions::new().preflight_passthrough(true)`
/// on an `OPTIONS` route, preflights reach that handler too.
///
/// ```
/// use axum::http::StatusCode;
/// use cors_axum::prelude::*;
///
/// pub struct ItemsController;
///
/// #[controller("items")]
/// impl ItemsController {
///     #[route("PUT", "{id}", cors = CorsOptions::new().credentials(true).origin("https://app.example"))]
///     async fn replace(ctx: RequestContext, body: String) -> (StatusCode, String) {
///         let id = ctx.param("id").unwrap_or_default().to_owned();
///         (StatusCode::ACCEPTED, format!("{id}: {body}"))
///     }
/// }
/// # rest_root_module! { pub struct AppModule { imports: [CorsModule], controllers: [ItemsController] } }
/// # AppModule::router().unwrap();
/// ```
///
/// Compile errors: a lower-case or unknown method, a path with `:id` (written `{id}` in axum
/// 0.8), `?`, `#`, whitespace, `//` or unbalanced braces, a handler that is not an `async fn` or
/// is generic, and `#[route]` outside a `#[controller]` block. For errors in a handler's
/// arguments or result, `#[axum::debug_handler]` works under `#[route]` and explains them in
/// more detail.
#[proc_macro_attribute]
pub fn route(args: TokenStream, item: TokenStream) -> TokenStream {
    route::expand_outside_controller(args.into(), item.into()).into()
}

/// Declares a module: `imports`, `controllers`, `providers_per_rou` (or `providers_per_route`),
/// and optionally `state`, `guards`, `layers` and `openapi`.
///
/// ```
/// use axum::http::StatusCode;
/// use cors_axum::prelude::*;
///
/// pub struct HealthController;
///
/// #[controller]
/// impl HealthController {
///     #[route("GET", "health")]
///     async fn health() -> &'static str { "ok" }
/// }
///
/// pub struct UsersController;
///
/// #[controller]
/// impl UsersController {
///     #[route("GET")]
///     async fn list() -> &'static str { "[]" }
/// }
///
/// /// A guard: an extractor whose rejection answers the request.
/// pub struct Authenticated;
///
/// impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Authenticated {
///     type Rejection = StatusCode;
///
///     async fn from_request_parts(
///         parts: &mut axum::http::request::Parts,
///         _: &S,
///     ) -> Result<Self, StatusCode> {
///         match parts.headers.get("authorization") {
///             Some(_) => Ok(Authenticated),
///             None => Err(StatusCode::UNAUTHORIZED),
///         }
///     }
/// }
///
/// feature_module! {
///     pub struct UsersModule {
///         controllers: [UsersController],
///         guards: [Authenticated],
///     }
/// }
///
/// rest_root_module! {
///     pub struct AppModule {
///         imports: [
///             CorsModule::with_opts(CorsOptions::new().origin("https://app.example")),
///             Import::at("/api/v1/users", UsersModule),
///         ],
///         controllers: [HealthController],
///     }
/// }
///
/// let app = AppModule::application().unwrap();
/// // CORS covers the imported module too; `OPTIONS` routes are generated for every path.
/// assert_eq!(app.routes().len(), 4);
/// assert!(app.routes().iter().all(|route| route.cors() == Some("AppModule")));
/// ```
///
/// | key | value |
/// |---|---|
/// | `imports: [..]` | modules, `Import::at(prefix, module)` to mount one under a prefix, `CorsModule` (or `CorsModule::with_opts(options)`, `CorsModule::disabled()`) |
/// | `controllers: [..]` | controller types |
/// | `providers_per_rou: [..]` or `providers_per_route: [..]` | `ProviderBuilder::new().use_value(v)`: values for `Inject<T>` in this module's routes; `CorsOptions` among them are this module's CORS options. The two spellings are one key (`providers_per_rou` is the original framework's); messages name the one the module wrote |
/// | `state: T` | the module's routes extract `State<T>`; `router()` returns `Router<T>`, to be given its state with `.with_state(..)` |
/// | `guards: [..]` | guards (`Guard<S>` types or extractors) run before the handlers of this module and of the modules it imports |
/// | `layers: [..]` | tower layers around the routes of this module and of the modules it imports, inside CORS |
/// | `openapi: false` | leaves the routes of this module and of the modules it imports out of the OpenAPI document (feature `openapi`); an imported module with `openapi: true`, a controller or a route with `openapi = true` is listed again |
///
/// The module gets `router()` (an `axum::Router`), `routes()` (a `RouteTable`),
/// `application()` (both) and `builder()` (to provide values, guards and layers at run time);
/// every module can also be imported by another one. Each returns a `BuildError` for what would
/// otherwise fail later: conflicting routes, invalid CORS options, an `Inject<T>` without a
/// provider, `CorsService` without CORS. An unknown or repeated key, a non-list value, a
/// controller listed twice or an entry that is not a module or controller is a compile error.
#[proc_macro]
pub fn rest_root_module(input: TokenStream) -> TokenStream {
    module::expand(input.into()).into()
}

/// [`rest_root_module!`], spelled as in the original framework.
#[allow(non_snake_case)]
#[proc_macro]
pub fn restRootModule(input: TokenStream) -> TokenStream {
    module::expand(input.into()).into()
}

/// [`rest_root_module!`] under the name that says the module is imported by others: the two
/// declare the same kind of module.
#[proc_macro]
pub fn feature_module(input: TokenStream) -> TokenStream {
    module::expand(input.into()).into()
}
