use cors_axum::prelude::*;

#[controller]
async fn list() -> &'static str {
    "[]"
}

fn main() {}
