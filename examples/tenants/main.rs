//! A multi-tenant API whose allowed origins live in PostgreSQL: each tenant calls it from its
//! own domain, listed in the table `tenant_origins(origin text primary key)` (granted on every
//! host), or in `tenant_host_origins(host text, origin text, primary key (host, origin))`
//! (granted on that host only: the tenant's own API host). The tables and their notify
//! triggers are created if missing; every replica loads them and follows their changes
//! (`LISTEN`/`NOTIFY`), and no request queries the database.
//!
//! ```text
//! DATABASE_URL=postgres://app@localhost/app PORT=3000 \
//!     cargo run --example tenants --features postgres
//! psql "$DATABASE_URL" -c "INSERT INTO tenant_origins VALUES ('https://acme.example')"
//! curl -i -H 'Origin: https://acme.example' http://127.0.0.1:3000/
//!     200, with Access-Control-Allow-Origin: https://acme.example
//! psql "$DATABASE_URL" -c "DELETE FROM tenant_origins WHERE origin = 'https://acme.example'"
//! curl -i -H 'Origin: https://acme.example' http://127.0.0.1:3000/
//!     200, without Access-Control-Allow-Origin: the page cannot read it
//! psql "$DATABASE_URL" -c "INSERT INTO tenant_host_origins VALUES \
//!     ('acme.api.example', 'https://app.acme.example')"
//! curl -i -H 'Host: acme.api.example' -H 'Origin: https://app.acme.example' http://127.0.0.1:3000/
//!     200, with Access-Control-Allow-Origin: https://app.acme.example
//! curl -i -H 'Host: globex.api.example' -H 'Origin: https://app.acme.example' http://127.0.0.1:3000/
//!     200, without it: another tenant's host
//! ```
//!
//! Environment: `DATABASE_URL` (required; with a managed database, TLS checked as libpq does it:
//! `postgres://app:..@db.example:5432/app?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem`),
//! `HOST` (default `127.0.0.1`), `PORT` (default `3000`), `FRONT_END` (the application's own
//! front-end, always allowed; default `http://localhost:8080`). Run as many replicas as needed
//! against the same database, each on its own port: a change reaches all of them within a
//! second.
//!
//! A database that is down or silent at start is not fatal here: the failure is logged within
//! the connect timeout, the application serves with only the front-end allowed, and the follow
//! keeps retrying; the tenants' origins are allowed once the table is read. An application that
//! would rather not start exits on `ready`'s error instead.

mod app;

use std::time::Duration;

use anyhow::Context as _;
use cors_axum::cors::postgres::PgOrigins;
use cors_axum::cors::{OriginSet, TenantOrigins};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let env =
        |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_owned());
    let database_url = std::env::var("DATABASE_URL").context("DATABASE_URL is required")?;
    let (host, port) = (env("HOST", "127.0.0.1"), env("PORT", "3000"));
    let front_end = env("FRONT_END", "http://localhost:8080");

    let tenants = OriginSet::new("tenants");
    let hosts = TenantOrigins::new("tenant_hosts");
    let source = PgOrigins::new(database_url, &tenants)
        .context("DATABASE_URL")?
        .tenant_hosts(&hosts)?;
    if let Err(error) = source.create_table().await {
        tracing::warn!(%error, "the tables could not be created; following them all the same");
    }
    // Followed while `follow` lives: until the end of `main`.
    let follow = source.spawn();
    if let Err(error) = follow.ready(Duration::from_secs(10)).await {
        tracing::warn!(%error, "only the front-end is allowed until the table is read");
    }

    let router = app::router(&front_end, &tenants, &hosts)?;
    let listener = tokio::net::TcpListener::bind(format!("{host}:{port}")).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, router.into_make_service()).await?;
    drop(follow);
    Ok(())
}
