// The struct is built for `Db`, read from its field; the impl block's handler reads `AppState`.
use axum::extract::State;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct AppState;

#[derive(Clone)]
pub struct Db;

#[controller]
pub struct UsersController {
    db: State<Db>,
}

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list(&self, State(_state): State<AppState>) -> &'static str {
        let _ = &self.db;
        "[]"
    }
}

fn main() {}
