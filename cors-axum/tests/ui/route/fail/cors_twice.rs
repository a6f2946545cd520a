use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("GET", "items", cors = CorsOptions::new(), cors = CorsOptions::new())]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
