use cors_axum::prelude::*;

pub struct ItemsController;

#[controller("items", path = "things")]
impl ItemsController {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
