// The controller's state is read from its handlers; its module must be declared with it.
use axum::extract::State;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct AppState;

pub struct UsersController;

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list(State(_state): State<AppState>) -> &'static str {
        "[]"
    }
}

rest_root_module! {
    pub struct AppModule {
        controllers: [UsersController],
    }
}

fn main() {}
