// The controller's state is read from its handler, `Other`; its module's is `AppState`: the
// error names both, `FromRef` and `state = AppState`.
use axum::extract::State;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct AppState;

#[derive(Clone)]
pub struct Other;

pub struct UsersController;

#[controller("users")]
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
