// The controller is declared for the module's state; a handler takes a `State<..>` of another
// type, which is not a part of it: the error is at the argument and names `FromRef`.
use axum::extract::State;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct AppState;

#[derive(Clone)]
pub struct Other;

pub struct UsersController;

#[controller("users", state = AppState)]
impl UsersController {
    #[route("GET")]
    async fn list(State(_other): State<Other>) -> &'static str {
        "[]"
    }
}

rest_root_module! {
    pub struct AppModule {
        state: AppState,
        controllers: [UsersController],
    }
}

fn main() {}
