use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("GET", "items")]
    async fn list<T: Default>() -> &'static str {
        "[]"
    }
}

fn main() {}
