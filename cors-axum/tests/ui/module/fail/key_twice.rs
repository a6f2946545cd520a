use cors_axum::prelude::*;

pub struct UsersController;

#[controller]
impl UsersController {
    #[route("GET", "users")]
    async fn list() -> &'static str {
        "[]"
    }
}

rest_root_module! {
    pub struct AppModule {
        controllers: [UsersController],
        imports: [CorsModule],
        controllers: [],
    }
}

fn main() {}
