use cors_axum::prelude::*;

pub struct ItemsController;

#[controller(prefix = "items")]
impl ItemsController {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
