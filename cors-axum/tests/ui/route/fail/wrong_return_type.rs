use cors_axum::prelude::*;

pub struct Handlers;

struct NotAResponse;

#[controller]
impl Handlers {
    #[route("GET")]
    async fn fine() -> &'static str {
        "fine"
    }

    #[route("GET", "wrong")]
    async fn wrong() -> NotAResponse {
        NotAResponse
    }
}

fn main() {}
