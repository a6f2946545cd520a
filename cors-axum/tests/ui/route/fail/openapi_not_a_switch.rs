use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("GET", "items", openapi = "hidden")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
