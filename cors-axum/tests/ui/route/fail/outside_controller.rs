use cors_axum::prelude::*;

#[route("GET", "items")]
async fn list() -> &'static str {
    "[]"
}

fn main() {}
