// A module with `imports`, `controllers` and `providers_per_rou`, trailing commas and docs.
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct Greeting(&'static str);

pub struct HelloController;

#[controller]
impl HelloController {
    #[route("GET", "hello")]
    async fn hello(Inject(greeting): Inject<Greeting>) -> &'static str {
        greeting.0
    }
}

pub struct ByeController;

#[controller]
impl ByeController {
    #[route("GET", "bye")]
    async fn bye() -> &'static str {
        "bye"
    }
}

rest_root_module! {
    /// The application.
    pub struct AppModule {
        imports: [
            CorsModule::with_opts(CorsOptions::new().origin("https://example.com")),
        ],
        controllers: [HelloController, ByeController,],
        providers_per_rou: [
            ProviderBuilder::new().use_value(Greeting("hello")),
            ProviderBuilder::new().use_value(CorsOptions::new().max_age(600u64)),
        ],
    }
}

/// An empty module, in a private one-line declaration.
mod empty {
    cors_axum::rest_root_module! { pub(crate) struct EmptyModule {} }
}

fn main() {
    let routes = AppModule::routes().unwrap();
    let mut seen: Vec<String> = routes
        .iter()
        .map(|r| format!("{} {} {}", r.method(), r.path(), r.module()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            "GET /bye AppModule",
            "GET /hello AppModule",
            "OPTIONS /bye AppModule",
            "OPTIONS /hello AppModule",
        ]
    );
    let _router: axum::Router = AppModule::router().unwrap();
    let _app: cors_axum::Application = AppModule::application().unwrap();
    assert!(empty::EmptyModule::routes().unwrap().is_empty());
}
