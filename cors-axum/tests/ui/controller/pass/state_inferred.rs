// Controllers without `state = ..` whose handlers take `State<AppState>`, under its spellings:
// the state is read from them, and the controllers go in a module declared with `state: AppState`.
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::Request;
use cors_axum::prelude::*;
use http_body_util::BodyExt;
use tower::ServiceExt;

#[derive(Clone)]
pub struct AppState {
    pub greeting: &'static str,
}

pub struct GreetController;

#[controller("greet")]
impl GreetController {
    #[route("GET", "{name}")]
    async fn greet(State(state): State<AppState>, Path(name): Path<String>) -> String {
        format!("{} {name}", state.greeting)
    }

    #[route("POST")]
    async fn echo(state: axum::extract::State<AppState>, body: String) -> String {
        format!("{}: {body}", state.greeting)
    }

    #[route("GET")]
    async fn plain() -> &'static str {
        "no state here"
    }
}

/// A controller without state goes in the module too.
pub struct HealthController;

#[controller]
impl HealthController {
    #[route("GET", "health")]
    async fn health() -> &'static str {
        "ok"
    }
}

rest_root_module! {
    pub struct AppModule {
        state: AppState,
        controllers: [GreetController, HealthController],
    }
}

async fn get(router: &axum::Router, method: &str, uri: &str, body: &str) -> String {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .body(Body::from(body.to_owned()))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200, "{method} {uri}");
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[tokio::main]
async fn main() {
    let app = AppModule::builder().build().unwrap();
    let mut seen: Vec<String> = app
        .routes()
        .iter()
        .map(|r| format!("{} {} {}", r.method(), r.path(), r.handler()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            "GET /greet plain",
            "GET /greet/{name} greet",
            "GET /health health",
            "POST /greet echo",
        ]
    );
    let router: axum::Router = app.into_router().with_state(AppState { greeting: "hello" });
    assert_eq!(get(&router, "GET", "/greet/ada", "").await, "hello ada");
    assert_eq!(get(&router, "POST", "/greet", "hi").await, "hello: hi");
    assert_eq!(get(&router, "GET", "/greet", "").await, "no state here");
}
