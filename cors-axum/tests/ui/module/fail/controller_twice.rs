use cors_axum::prelude::*;

pub struct UsersController;

#[controller]
impl UsersController {
    #[route("GET", "users")]
    async fn list() -> &'static str {
        "[]"
    }
}

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("GET", "items")]
    async fn list() -> &'static str {
        "[]"
    }
}

rest_root_module! {
    pub struct AppModule {
        controllers: [UsersController, ItemsController, UsersController],
    }
}

fn main() {}
