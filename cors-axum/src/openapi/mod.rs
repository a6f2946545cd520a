//! OpenAPI: [`OpenapiModule`] serves an OpenAPI 3.1 document of the routes of the module that
//! imports it and of the modules that module imports, made with
//! [utoipa](https://docs.rs/utoipa) from what the route registry knows (paths, methods,
//! controllers, handlers' doc comments, guards) and what the handlers' types and
//! `#[utoipa::path(..)]` say. Feature `openapi`; the page that shows it, feature
//! `openapi-rapidoc`.
//!
//! Details utoipa's axum support finds in a handler's types are found here without
//! annotations: `Path<T>` (its parameters, named by the path), `Query<T>` where `T: IntoParams`,
//! `Json<T>` where `T: ToSchema` (the request body), and `Json<T>`, `Result<Json<T>, E>`,
//! `String` or `&'static str` as the result (a `200` response); `(StatusCode, Json<T>)` is the
//! same body under `default`, and a bare `StatusCode` a `default` response without one, since
//! their status is known only when the handler answers. Anything else, the status among it, is
//! written with utoipa's own `#[utoipa::path(..)]` on the controller method, without the method
//! and path, which `#[route]` gives; a success response it lists without `body` gets the body
//! the result type describes:
//!
//! ```
//! use axum::Json;
//! use axum::extract::Path;
//! use cors_axum::openapi::OpenapiModule;
//! use cors_axum::prelude::*;
//! use utoipa::ToSchema;
//!
//! #[derive(serde::Serialize, ToSchema)]
//! pub struct Item {
//!     id: u32,
//!     name: String,
//! }
//!
//! pub struct ItemsController;
//!
//! #[controller("items")]
//! impl ItemsController {
//!     /// One item.
//!     ///
//!     /// Answers `404` for an unknown id.
//!     #[route("GET", "{id}")]
//!     #[utoipa::path(responses(
//!         (status = 200, description = "the item", body = Item),
//!         (status = 404, description = "no item has this id"),
//!     ))]
//!     async fn one(Path(id): Path<u32>) -> Json<Item> {
//!         Json(Item { id, name: "one".to_owned() })
//!     }
//! }
//!
//! rest_root_module! {
//!     pub struct AppModule { imports: [OpenapiModule], controllers: [ItemsController] }
//! }
//! # let routes = AppModule::routes().unwrap();
//! # assert_eq!(routes.len(), 2);
//! ```
//!
//! The operation of `GET /items/{id}` then has the id `ItemsController_one`, the tag
//! `ItemsController`, the summary `One item.`, the path parameter `id` (an integer) and the two
//! responses; `Item` is among the document's schemas.

pub(crate) mod document;
pub(crate) mod module;
pub(crate) mod serve;

pub use module::{OpenapiModule, OpenapiModuleWith};
