// `#[route]` with a path, `cors = ..` and `providers = [..]`; paths are normalised.
use axum::extract::Path;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct Limit(u32);

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("POST", "items/{id}", cors = CorsOptions::new().max_age(60u64))]
    async fn update(Path(id): Path<u32>) -> String {
        format!("updated {id}")
    }

    #[route(
        "GET",
        "/items/{id}/",
        providers = [ProviderBuilder::new().use_value(Limit(10))],
        cors = CorsOptions::new().origin("https://example.com"),
    )]
    async fn get(Path(id): Path<u32>, Inject(Limit(limit)): Inject<Limit>) -> String {
        format!("{id} {limit}")
    }

    #[route("GET", "files/{*rest}")]
    async fn file(Path(rest): Path<String>) -> String {
        rest
    }

    #[route("GET")]
    async fn root() -> &'static str {
        "root"
    }
}

rest_root_module! {
    pub struct AppModule {
        imports: [CorsModule::with_opts(CorsOptions::new())],
        controllers: [ItemsController],
    }
}

fn main() {
    let routes = AppModule::routes().unwrap();
    let mut seen: Vec<String> = routes
        .iter()
        .map(|r| format!("{} {}", r.method(), r.path()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            "GET /",
            "GET /files/{*rest}",
            "GET /items/{id}",
            "OPTIONS /",
            "OPTIONS /files/{*rest}",
            "OPTIONS /items/{id}",
            "POST /items/{id}",
        ]
    );
    let _router: axum::Router = AppModule::router().unwrap();
}
