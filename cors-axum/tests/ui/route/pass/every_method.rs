// Every method axum routes is accepted, on one path.
use cors_axum::prelude::*;

pub struct EveryMethodController;

#[controller]
impl EveryMethodController {
    #[route("GET", "any")]
    async fn get() -> &'static str {
        "GET"
    }

    #[route("HEAD", "any")]
    async fn head() -> &'static str {
        ""
    }

    #[route("POST", "any")]
    async fn post() -> &'static str {
        "POST"
    }

    #[route("PUT", "any")]
    async fn put() -> &'static str {
        "PUT"
    }

    #[route("PATCH", "any")]
    async fn patch() -> &'static str {
        "PATCH"
    }

    #[route("DELETE", "any")]
    async fn delete() -> &'static str {
        "DELETE"
    }

    #[route("OPTIONS", "any")]
    async fn options() -> &'static str {
        "OPTIONS"
    }

    #[route("TRACE", "any")]
    async fn trace() -> &'static str {
        "TRACE"
    }

    #[route("CONNECT", "any")]
    async fn connect() -> &'static str {
        "CONNECT"
    }
}

rest_root_module! {
    pub struct AppModule {
        controllers: [EveryMethodController],
    }
}

fn main() {
    let routes = AppModule::routes().unwrap();
    let mut methods: Vec<String> = routes.iter().map(|r| r.method().to_string()).collect();
    methods.sort();
    assert_eq!(
        methods,
        ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"]
    );
    assert!(routes.iter().all(|r| r.path() == "/any"));
    let _router: axum::Router = AppModule::router().unwrap();
}
