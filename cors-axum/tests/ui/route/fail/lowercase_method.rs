use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("get", "items")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
