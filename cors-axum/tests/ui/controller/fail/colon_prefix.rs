use cors_axum::prelude::*;

pub struct ItemsController;

#[controller("users/:user_id/items")]
impl ItemsController {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
