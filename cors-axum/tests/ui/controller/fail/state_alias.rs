// The state hides behind an alias, so it cannot be read from the handlers: the error leads to
// `state = ..`.
use axum::extract::State;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct AppState;

type Shared = State<AppState>;

pub struct UsersController;

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list(_state: Shared) -> &'static str {
        "[]"
    }

    #[route("POST")]
    async fn create(_state: Shared, body: String) -> String {
        body
    }
}

fn main() {}
