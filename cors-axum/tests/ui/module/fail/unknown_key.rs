use cors_axum::prelude::*;

rest_root_module! {
    pub struct AppModule {
        imports: [CorsModule],
        providers: [ProviderBuilder::new()],
    }
}

fn main() {}
