//! A server for load runs: the seed example's routes and CORS configuration
//! (`cors-axum/benches/seed`) served by `CorsModule`, by axum with tower-http's `CorsLayer`, or by
//! bare axum without CORS.
//!
//! `cargo run --release --example load_server -- ours|tower|bare` (port from `PORT`, default
//! 3000). `scripts/load.sh` drives it with wrk; see docs/PERFORMANCE.md.

#[path = "../cors-axum/benches/seed/mod.rs"]
#[allow(dead_code)]
mod seed;

fn main() -> anyhow::Result<()> {
    let which = std::env::args().nth(1).unwrap_or_else(|| "ours".to_owned());
    let app = match which.as_str() {
        "ours" | "bare" => seed::router(&which),
        "tower" => seed::router("tower-http"),
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
