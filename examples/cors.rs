//! The example server of the original `cors` module, on axum.
//!
//! ```text
//! cargo run --example cors
//! HOST=0.0.0.0 PORT=8080 CORS_ORIGIN='https://example.com,https://*.example.com' cargo run --example cors
//! ```
//!
//! `FirstController` answers GET, POST and PATCH on `/`; `SecondController` answers
//! GET `/credentials` and sets a cookie through `CorsService`. `CorsModule` adds the `OPTIONS`
//! routes and the CORS headers.

use cors_axum::prelude::*;

/// GET, POST and PATCH on `/`.
pub struct FirstController;

#[controller]
impl FirstController {
    #[route("GET")]
    async fn get_method(ctx: RequestContext) -> Response {
        ctx.send("GET method\n")
    }

    #[route("POST")]
    async fn post_method(ctx: RequestContext) -> Response {
        ctx.send("POST method\n")
    }

    #[route("PATCH")]
    async fn patch_method(ctx: RequestContext) -> Response {
        ctx.send("PATCH method\n")
    }
}

/// GET `/credentials`, with constructor injection of the request context and `CorsService`.
#[controller]
pub struct SecondController {
    ctx: RequestContext,
    cors: CorsService,
}

#[controller]
impl SecondController {
    #[route("GET", "credentials")]
    async fn credentials(&self) -> Response {
        self.cors.set_cookie("one", "value for one");
        self.ctx
            .send("Here GET request with \"Access-Control-Allow-Credentials: true\" header.\n")
    }
}

/// The allowed origins: `CORS_ORIGIN` (a comma-separated list of origins and patterns such as
/// `https://*.example.com`), or `https://example.com`.
fn allowed_origins() -> AllowOrigin {
    match std::env::var("CORS_ORIGIN") {
        Ok(list) if !list.trim().is_empty() => {
            AllowOrigin::list(list.split(',').map(str::trim).filter(|o| !o.is_empty()))
        }
        _ => AllowOrigin::exact("https://example.com"),
    }
}

rest_root_module! {
    /// The application: both controllers, with CORS for the configured origins.
    pub struct AppModule {
        imports: [CorsModule::with_opts(CorsOptions::new().origin(allowed_origins()))],
        controllers: [FirstController, SecondController],
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // `RUST_LOG=cors_axum=debug` logs why each refused CORS request was refused.
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();

    let app = AppModule::application()?;
    print!("{}", app.routes());

    let host = std::env::var("HOST").unwrap_or_else(|_| "127.0.0.1".to_owned());
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("{host}:{port}")).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app.into_router().into_make_service()).await?;
    Ok(())
}
