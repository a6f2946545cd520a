use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("GET", "limit")]
    const LIMIT: usize = 10;

    #[route("GET", "items")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
