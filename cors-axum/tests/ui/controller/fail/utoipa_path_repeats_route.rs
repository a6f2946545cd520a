use cors_axum::prelude::*;

pub struct ItemsController;

#[controller("items")]
impl ItemsController {
    #[route("GET", "{id}")]
    #[utoipa::path(get, path = "/items/{id}", responses((status = 200, description = "the item")))]
    async fn one() -> &'static str {
        "one"
    }

    #[route("GET")]
    #[utoipa::path(responses((status = 200, description = "the items")), path = "/items")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
