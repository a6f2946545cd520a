use cors_axum::prelude::*;

pub struct ItemsController;

#[controller("items")]
impl ItemsController {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }

    // The same route once the paths are normalised.
    #[route("GET", "/")]
    async fn list_again() -> &'static str {
        "[]"
    }
}

fn main() {}
