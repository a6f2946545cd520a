//! A server for load runs: the same routes and CORS configuration served by `CorsModule`, by
//! axum with tower-http's `CorsLayer`, or by bare axum without CORS.
//!
//! `cargo run --release --example load_server -- ours|tower|bare` (port from `PORT`, default
//! 3000). `scripts/load.sh` drives it with wrk; see docs/PERFORMANCE.md.

use axum::Router;
use axum::http::{HeaderValue, Method};
use axum::routing::get;
use cors_axum::prelude::*;

const ORIGIN: &str = "https://example.com";

struct FirstController;

#[controller]
impl FirstController {
    #[route("GET")]
    async fn get_method() -> &'static str {
        "GET method\n"
    }

    #[route("POST")]
    async fn post_method() -> &'static str {
        "POST method\n"
    }

    #[route("PATCH")]
    async fn patch_method() -> &'static str {
        "PATCH method\n"
    }
}

rest_root_module! {
    struct LoadModule {
        imports: [CorsModule::with_opts(CorsOptions::new().origin(ORIGIN))],
        controllers: [FirstController],
    }
}

fn bare() -> Router {
    Router::new().route(
        "/",
        get(|| async { "GET method\n" })
            .post(|| async { "POST method\n" })
            .patch(|| async { "PATCH method\n" }),
    )
}

/// tower-http configured as `CorsModule` answers: the exact origin, the path's methods,
/// mirrored request headers.
fn tower() -> Router {
    use tower_http::cors::{AllowHeaders, CorsLayer};
    bare().layer(
        CorsLayer::new()
            .allow_origin(HeaderValue::from_static(ORIGIN))
            .allow_methods([
                Method::OPTIONS,
                Method::GET,
                Method::HEAD,
                Method::POST,
                Method::PATCH,
            ])
            .allow_headers(AllowHeaders::mirror_request()),
    )
}

fn main() -> anyhow::Result<()> {
    let which = std::env::args().nth(1).unwrap_or_else(|| "ours".to_owned());
    let app = match which.as_str() {
        "ours" => LoadModule::router()?,
        "tower" => tower(),
        "bare" => bare(),
        other => anyhow::bail!("unknown server `{other}`; expected ours, tower or bare"),
    };
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    // One thread per server, so that the load generator has the other core.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
        println!("{which} listening on http://{}", listener.local_addr()?);
        axum::serve(listener, app.into_make_service()).await?;
        anyhow::Ok(())
    })
}
