use cors_axum::prelude::*;

rest_root_module! {
    pub struct AppModule {
        imports: [CorsModule],
        openapi: [false],
    }
}

fn main() {}
