//! `#[utoipa::path(..)]` on a controller method, without the method and path `#[route]` gives,
//! compiles with and without the `openapi` feature, and without a `utoipa` dependency.

use cors_axum::prelude::*;

pub struct ItemsController;

#[controller("items")]
impl ItemsController {
    /// One item.
    #[route("GET", "{id}")]
    #[route("HEAD", "{id}")]
    #[utoipa::path(
        responses(
            (status = 200, description = "the item"),
            (status = 404, description = "no item has this id"),
        ),
        tag = "items",
    )]
    async fn one() -> &'static str {
        "one"
    }
}

rest_root_module! {
    pub struct AppModule { controllers: [ItemsController] }
}

fn main() {
    assert_eq!(AppModule::routes().unwrap().len(), 2);
}
