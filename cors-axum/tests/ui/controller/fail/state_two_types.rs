use axum::extract::State;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct AppState;

#[derive(Clone)]
pub struct Db;

pub struct UsersController;

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list(State(_state): State<AppState>) -> &'static str {
        "[]"
    }

    #[route("POST")]
    async fn create(State(_db): State<Db>, body: String) -> String {
        body
    }
}

fn main() {}
