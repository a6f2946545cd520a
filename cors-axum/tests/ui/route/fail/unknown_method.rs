use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("FETCH", "items")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
