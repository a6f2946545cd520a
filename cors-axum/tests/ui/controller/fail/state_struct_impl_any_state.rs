// The struct is built for `AppState`, read from its field; the impl block's handlers say
// nothing of the state, so the block is for every state and cannot build the struct.
use axum::extract::State;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct AppState;

#[controller]
pub struct UsersController {
    state: State<AppState>,
}

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list(&self) -> &'static str {
        let _ = &self.state;
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
