use axum::extract::State;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct AppState;

#[derive(Clone)]
pub struct Db;

#[controller]
pub struct UsersController {
    state: State<AppState>,
    db: State<Db>,
}

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list(&self) -> &'static str {
        let _ = (&self.state, &self.db);
        "[]"
    }
}

fn main() {}
