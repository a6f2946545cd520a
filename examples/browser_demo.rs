//! The five requests of the design's table, made by a real browser.
//!
//! ```text
//! cargo run --example browser_demo
//! HOST=127.0.0.1 API_PORT=3000 PAGE_PORT=8080 cargo run --example browser_demo
//! ```
//!
//! Two servers on two origins: the API (the controllers of the `cors` example: GET, POST and
//! PATCH on `/`, GET `/credentials` calling `CorsService::set_cookie`) on `API_PORT` (3000), and a
//! page on `PAGE_PORT` (8080). Open the printed URL. The page makes the five requests with
//! `fetch` and shows, for each one, the request, what the browser let the script read (status,
//! exposed headers), what went over the wire (the API logs every exchange and the page server
//! hands the log to the page), and whether it matches the design's table. The page also sends
//! its verdicts back, and the demo prints them.
//!
//! The page calls the API on the host it was loaded from, so both are on the same site (another
//! port is another origin, not another site); add `?api_host=127.0.0.1` to a page opened on
//! `localhost` (or the reverse) for a cross-site API, where `set_cookie` switches to
//! `SameSite=None; Secure; Partitioned`. The API allows pages from `http://127.0.0.1`,
//! `http://localhost` and `http://[::1]` on any port; `CORS_ORIGIN` (a comma-separated list of
//! origins and patterns) replaces that rule.
//!
//! Request 1 has no `Origin`, which a browser never does across origins, so the page server
//! sends it on the page's behalf and shows the raw answer.
//!
//! The page holds its load event until its results are in: it has a hidden image, `/hold`, that
//! the page server answers only once the page has sent its verdicts (or after 30 seconds). A
//! browser that takes a screenshot when the page has loaded (Firefox's `--screenshot`, WebDriver's
//! navigation) then shows the finished page.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::Html;
use axum::routing::{get, post};
use cors_axum::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

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

/// GET `/credentials`: sets a cookie through `CorsService`.
pub struct SecondController;

#[controller]
impl SecondController {
    #[route("GET", "credentials")]
    async fn credentials(ctx: RequestContext, cors: CorsService) -> Response {
        cors.set_cookie("one", "value for one");
        ctx.send("Here GET request with \"Access-Control-Allow-Credentials: true\" header.\n")
    }
}

/// `CORS_ORIGIN` (a comma-separated list of origins and patterns), or pages on this machine.
fn allowed_origins() -> AllowOrigin {
    match std::env::var("CORS_ORIGIN") {
        Ok(list) if !list.trim().is_empty() => {
            AllowOrigin::list(list.split(',').map(str::trim).filter(|o| !o.is_empty()))
        }
        _ => AllowOrigin::predicate(is_local_page),
    }
}

/// `http://127.0.0.1`, `http://localhost` or `http://[::1]`, on any port.
fn is_local_page(origin: &HeaderValue) -> bool {
    let Some(rest) = origin.to_str().ok().and_then(|o| o.strip_prefix("http://")) else {
        return false;
    };
    let host = match rest.rsplit_once(':') {
        Some((host, port)) if port.parse::<u16>().is_ok() => host,
        _ => rest,
    };
    matches!(host, "127.0.0.1" | "localhost" | "[::1]")
}

rest_root_module! {
    /// The API of the demo.
    pub struct DemoModule {
        imports: [CorsModule::with_opts(CorsOptions::new().origin(allowed_origins()))],
        controllers: [FirstController, SecondController],
    }
}

/// The last exchanges with the API, as they went over the wire.
#[derive(Debug, Default)]
pub struct Exchanges {
    log: Mutex<Vec<Value>>,
}

impl Exchanges {
    /// How many exchanges the log keeps.
    const KEEP: usize = 200;

    fn push(&self, mut exchange: Value) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let id = log.last().and_then(|e| e["id"].as_u64()).unwrap_or(0) + 1;
        exchange["id"] = id.into();
        log.push(exchange);
        if log.len() > Self::KEEP {
            log.remove(0);
        }
    }

    /// The exchanges after `id`.
    pub fn since(&self, id: u64) -> Vec<Value> {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.iter()
            .filter(|e| e["id"].as_u64().unwrap_or(0) > id)
            .cloned()
            .collect()
    }
}

/// Request headers worth showing.
const SHOWN_REQUEST_HEADERS: &[&str] = &[
    "origin",
    "access-control-request-method",
    "access-control-request-headers",
    "content-type",
    "x-pingother",
    "cookie",
];

/// Logs each exchange with the API.
async fn record_exchange(
    State(exchanges): State<Arc<Exchanges>>,
    request: Request,
    next: Next,
) -> Response {
    let method = request.method().to_string();
    let target = request.uri().to_string();
    let mut seen = serde_json::Map::new();
    for name in SHOWN_REQUEST_HEADERS {
        if let Some(value) = request.headers().get(*name) {
            seen.insert(
                (*name).to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into(),
            );
        }
    }
    let response = next.run(request).await;
    let headers: Vec<Value> = response
        .headers()
        .iter()
        .filter(|(name, _)| *name != header::DATE)
        .map(|(name, value)| json!([name.as_str(), String::from_utf8_lossy(value.as_bytes())]))
        .collect();
    exchanges.push(json!({
        "method": method,
        "target": target,
        "request": seen,
        "status": response.status().as_u16(),
        "response": headers,
    }));
    response
}

/// The demo's page; `__API_PORT__` is replaced.
const PAGE: &str = include_str!("browser_demo.html");

/// The running demo.
pub struct Demo {
    /// The page to open.
    pub page_url: String,
    /// The API's base URL, as the page reaches it when opened at `page_url`.
    pub api_url: String,
    results: Arc<Mutex<Option<Value>>>,
    servers: Vec<JoinHandle<std::io::Result<()>>>,
}

impl Demo {
    /// The verdicts a page sent after running the five cases, if one did since the last call.
    pub fn take_results(&self) -> Option<Value> {
        self.results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Serves until a server fails.
    pub async fn serve(self) -> anyhow::Result<()> {
        for server in self.servers {
            server.await??;
        }
        Ok(())
    }
}

/// Starts the API on `host:api_port` and the page on `host:page_port` (0: any free port).
pub async fn start(host: &str, api_port: u16, page_port: u16) -> anyhow::Result<Demo> {
    let api_listener = TcpListener::bind((host, api_port)).await?;
    let page_listener = TcpListener::bind((host, page_port)).await?;
    let api_addr = loopback_if_unspecified(api_listener.local_addr()?);
    let page_addr = loopback_if_unspecified(page_listener.local_addr()?);

    let exchanges = Arc::new(Exchanges::default());
    let api = DemoModule::router()?.layer(axum::middleware::from_fn_with_state(
        exchanges.clone(),
        record_exchange,
    ));

    let results = Arc::new(Mutex::new(None));
    // Pages served, and pages served when verdicts last came in: what `/hold` waits for.
    let progress = Arc::new(tokio::sync::watch::Sender::new((0_u64, 0_u64)));
    let html = PAGE.replace("__API_PORT__", &api_addr.port().to_string());
    let page = Router::new()
        .route(
            "/",
            get({
                let progress = progress.clone();
                move || {
                    progress.send_modify(|(served, _)| *served += 1);
                    std::future::ready(Html(html.clone()))
                }
            }),
        )
        .route(
            "/exchanges",
            get(move |uri: Uri| {
                let since = uri
                    .query()
                    .and_then(|q| q.strip_prefix("since="))
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                std::future::ready(json_response(&Value::from(exchanges.since(since))))
            }),
        )
        .route(
            "/no-origin",
            get(move || async move {
                match options_without_origin(api_addr).await {
                    Ok(answer) => json_response(&answer),
                    Err(error) => (StatusCode::BAD_GATEWAY, error.to_string()).into_response(),
                }
            }),
        )
        .route(
            "/hold",
            get({
                let progress = progress.clone();
                move || {
                    // The page that asks is the last one served.
                    let page = progress.borrow().0;
                    let mut reported = progress.subscribe();
                    async move {
                        let done = reported.wait_for(|(_, answered)| *answered >= page);
                        let _ = tokio::time::timeout(Duration::from_secs(30), done).await;
                        StatusCode::NO_CONTENT
                    }
                }
            }),
        )
        .route(
            "/results",
            post({
                let results = results.clone();
                move |body: String| {
                    let verdicts = serde_json::from_str::<Value>(&body).ok();
                    if let Some(cases) = verdicts.as_ref().and_then(Value::as_array) {
                        for case in cases {
                            let mark = if case["pass"] == true { "pass" } else { "FAIL" };
                            println!(
                                "{mark}  {}. {}",
                                case["n"],
                                case["title"].as_str().unwrap_or("")
                            );
                        }
                    }
                    *results.lock().unwrap_or_else(|e| e.into_inner()) = verdicts;
                    progress.send_modify(|(served, answered)| *answered = *served);
                    std::future::ready(StatusCode::NO_CONTENT)
                }
            }),
        );

    let servers = vec![
        tokio::spawn(async move { axum::serve(api_listener, api.into_make_service()).await }),
        tokio::spawn(async move { axum::serve(page_listener, page.into_make_service()).await }),
    ];
    Ok(Demo {
        page_url: format!("http://{page_addr}/"),
        api_url: format!("http://{api_addr}"),
        results,
        servers,
    })
}

fn loopback_if_unspecified(addr: SocketAddr) -> SocketAddr {
    if addr.ip().is_unspecified() {
        SocketAddr::from(([127, 0, 0, 1], addr.port()))
    } else {
        addr
    }
}

fn json_response(value: &Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

/// Request 1: `OPTIONS /` without `Origin`, over a plain TCP connection; the status and
/// headers of the answer.
async fn options_without_origin(api: SocketAddr) -> anyhow::Result<Value> {
    const LIMIT: Duration = Duration::from_secs(5);
    let mut stream = tokio::time::timeout(LIMIT, TcpStream::connect(api)).await??;
    let request = format!("OPTIONS / HTTP/1.1\r\nHost: {api}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    tokio::time::timeout(LIMIT, stream.read_to_end(&mut raw)).await??;
    let text = String::from_utf8_lossy(&raw);
    let head = text.split("\r\n\r\n").next().unwrap_or_default();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("not an HTTP response: {head:?}"))?;
    let headers: Vec<Value> = lines
        .filter_map(|line| line.split_once(':'))
        .filter(|(name, _)| !name.eq_ignore_ascii_case("date"))
        .map(|(name, value)| json!([name.trim().to_ascii_lowercase(), value.trim()]))
        .collect();
    Ok(json!({ "status": status, "headers": headers }))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt().with_target(false).init();
    let host = std::env::var("HOST").unwrap_or_else(|_| "127.0.0.1".to_owned());
    let port = |name: &str, default: u16| -> anyhow::Result<u16> {
        match std::env::var(name) {
            Ok(value) => value
                .parse()
                .map_err(|_| anyhow::anyhow!("{name}={value:?} is not a port number")),
            Err(_) => Ok(default),
        }
    };
    let demo = start(&host, port("API_PORT", 3000)?, port("PAGE_PORT", 8080)?).await?;
    println!("API  on {}", demo.api_url);
    println!("open {}", demo.page_url);
    demo.serve().await
}
