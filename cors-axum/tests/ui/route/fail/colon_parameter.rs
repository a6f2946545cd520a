use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("GET", "items/:id")]
    async fn show() -> &'static str {
        "{}"
    }
}

fn main() {}
