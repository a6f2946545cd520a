use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("GET", "items", openapi = false, openapi = true)]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
