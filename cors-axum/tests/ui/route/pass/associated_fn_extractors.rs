// Handlers without a receiver take any extractor that axum (built with `query`) offers.
use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, Query, RawPathParams};
use axum::http::HeaderMap;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct Greeting(&'static str);

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("GET", "items/{id}")]
    async fn by_id(Path(id): Path<u32>) -> String {
        format!("item {id}")
    }

    #[route("GET", "items/{id}/tags/{tag}")]
    async fn tag(Path((id, tag)): Path<(u32, String)>) -> String {
        format!("{id}:{tag}")
    }

    #[route("GET", "items")]
    async fn search(Query(query): Query<HashMap<String, String>>) -> String {
        query.get("q").cloned().unwrap_or_default()
    }

    #[route("GET", "raw/{a}/{b}")]
    async fn raw(params: RawPathParams) -> String {
        params.iter().map(|(k, v)| format!("{k}={v}")).collect()
    }

    #[route("GET", "headers")]
    async fn headers(headers: HeaderMap) -> String {
        headers.len().to_string()
    }

    #[route("POST", "items")]
    async fn create(headers: HeaderMap, body: String) -> String {
        format!("{} {body}", headers.len())
    }

    #[route("PUT", "items/{id}")]
    async fn replace(Path(id): Path<u32>, body: Bytes) -> String {
        format!("{id} {}", body.len())
    }

    #[route("GET", "greet")]
    async fn greet(ctx: RequestContext, Inject(greeting): Inject<Greeting>) -> Response {
        ctx.send(greeting.0)
    }

    #[route("DELETE", "items/{id}")]
    async fn remove() -> &'static str {
        "gone"
    }
}

rest_root_module! {
    pub struct AppModule {
        controllers: [ItemsController],
        providers_per_rou: [ProviderBuilder::new().use_value(Greeting("hello"))],
    }
}

fn main() {
    let routes = AppModule::routes().unwrap();
    let mut seen: Vec<String> = routes
        .iter()
        .map(|r| format!("{} {} {}", r.method(), r.path(), r.handler()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            "DELETE /items/{id} remove",
            "GET /greet greet",
            "GET /headers headers",
            "GET /items search",
            "GET /items/{id} by_id",
            "GET /items/{id}/tags/{tag} tag",
            "GET /raw/{a}/{b} raw",
            "POST /items create",
            "PUT /items/{id} replace",
        ]
    );
    let _router: axum::Router = AppModule::router().unwrap();
}
