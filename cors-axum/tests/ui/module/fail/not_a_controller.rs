use cors_axum::prelude::*;

// No `#[controller]` impl block.
pub struct UsersController;

impl UsersController {
    #[allow(dead_code)]
    async fn list() -> &'static str {
        "[]"
    }
}

rest_root_module! {
    pub struct AppModule {
        controllers: [UsersController],
    }
}

fn main() {}
