use cors_axum::prelude::*;

/// Neither a `Guard` nor an extractor.
pub struct Audit;

pub struct UsersController;

#[controller]
impl UsersController {
    #[route("GET", "users", guards = [Audit])]
    async fn list() -> &'static str {
        "[]"
    }
}

rest_root_module! {
    pub struct AppModule {
        controllers: [UsersController],
        guards: [Audit],
    }
}

fn main() {}
