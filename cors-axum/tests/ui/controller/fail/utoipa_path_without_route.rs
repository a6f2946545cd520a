use cors_axum::prelude::*;

pub struct ItemsController;

#[controller("items")]
impl ItemsController {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }

    #[utoipa::path(responses((status = 200, description = "not a route")))]
    async fn helper() -> &'static str {
        "helper"
    }
}

fn main() {}
