//! A realistic application: configuration read from a file, CORS for the whole application
//! from that configuration, a feature module under `/api/v1` behind a bearer-token guard, axum
//! `State` and a value provided at start.
//!
//! ```text
//! cargo run --example app                      # reads examples/app/config.json
//! APP_CONFIG=my-config.json cargo run --example app
//! ```
//!
//! Editing the file's `cors` part while it runs applies it at once (an invalid edit is logged
//! and the options in force stay).
//!
//! Then, from a page on `http://localhost:8080` (or with curl):
//!
//! ```text
//! curl -i -H 'Origin: http://localhost:8080' http://127.0.0.1:3000/api/v1/users
//!     401, with Access-Control-Allow-Origin: the page can read the refusal
//! curl -i -H 'Origin: http://localhost:8080' -H 'Authorization: Bearer change-me' \
//!     http://127.0.0.1:3000/api/v1/users
//! curl -i -X POST -H 'Origin: https://evil.example' -H 'Sec-Fetch-Site: cross-site' \
//!     -d user=a http://127.0.0.1:3000/session
//!     403: a cross-site form post never reaches the handler
//! curl http://127.0.0.1:3000/openapi.json
//!     the OpenAPI document of every route above; http://127.0.0.1:3000/docs shows it
//! ```

mod api;

use cors_axum::cors::CorsReload;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();

    let path = std::env::var("APP_CONFIG").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/app/config.json").to_owned()
    });
    let config = api::read_config(&path)?;

    // Invalid CORS options in the file, a missing provider, a route conflict: errors here.
    let reload = CorsReload::new();
    let app = api::application(&config, &reload).build()?;
    print!("{}", app.routes());
    let router = app.into_router().with_state(api::AppState::default());

    // Each change of the file reloads its CORS options; an invalid one is logged and the
    // options in force stay.
    let _watch = reload.watch_file(&path, api::cors_of)?;

    let listener = tokio::net::TcpListener::bind(&config.listen).await?;
    println!("listening on http://{}", listener.local_addr()?);
    // `into_make_service` shares the prepared router with every connection.
    axum::serve(listener, router.into_make_service()).await?;
    Ok(())
}
