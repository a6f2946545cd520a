use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("GET", "items", max_age = 60)]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
