//! End-to-end CORS in a real browser: headless Chromium against servers on two loopback origins.
//!
//! CORS is enforced by browsers, so the proof that `CorsModule` works is a browser that lets a page
//! read, or refuses to let it read, the answers to real cross-origin `fetch` calls. Each test (a
//! *scenario*) starts:
//!
//! - the **API server**: [`ApiModule`], declared with `rest_root_module!` and importing
//!   `CorsModule::with_opts(api_cors())`, inside a middleware that logs every request as the server
//!   received it ([`Wire`]: method, target, `Origin`, preflight or not, `Cookie`); the handlers that
//!   check cookies also record what they saw;
//! - the **page server**: one HTML page whose script runs the scenario's `fetch` cases in sequence
//!   and POSTs a JSON report of what script could see (response or network error, status, body,
//!   readable headers) to the page server's `/report`, which hands it to the test on a channel;
//!
//! then launches Chromium as a child process on the page's URL, waits at most
//! [`REPORT_TIMEOUT`] for the report, kills Chromium and asserts on both sides: what the page
//! could read, and what reached the server (preflight counts, cookies sent back).
//!
//! # Why no DevTools-protocol crate
//!
//! The page is the probe. `fetch` reports exactly what CORS lets script see (a refused response
//! is a `TypeError`, nothing more, by design), and the server's log shows what the browser sent:
//! preflights, actual requests, cookies. A CDP client (`chromiumoxide`, `headless_chrome`, or
//! WebDriver with `fantoccini` and chromedriver) would add a websocket stack, a large dependency
//! tree and coupling to the browser's protocol version, to observe nothing these two points
//! miss. So Chromium is started as a plain process (`tokio::process`, `kill_on_drop`), and the
//! only dev-dependency added is `cookie` (already a dependency of `cors-axum`), to give
//! `CorsService::set_cookie_with` explicit attributes.
//!
//! # Origins
//!
//! Every server binds `127.0.0.1` on a port the system picks; the page reaches them by name:
//!
//! | scenario | page | API | relation |
//! |---|---|---|---|
//! | `same_site_ip` | `http://127.0.0.1:A` | `http://127.0.0.1:B` | cross-origin, same site (ports are not part of a site) |
//! | `same_site_localhost` | `http://localhost:A` | `http://localhost:B` | cross-origin, same site |
//! | `cross_site_localhost_page` | `http://localhost:A` | `http://127.0.0.1:B` | cross-site |
//! | `cross_site_ip_page` | `http://127.0.0.1:A` | `http://localhost:B` | cross-site |
//! | `origin_not_allowed` | `http://blocked.localhost:A` | `http://127.0.0.1:B` | not an allowed origin |
//!
//! The two cross-site scenarios also run with "Allow third-party cookies" set in the profile
//! (`*_3pc_allowed`); a new Chromium profile blocks them. Chromium resolves `localhost` and
//! `*.localhost` to loopback by itself, without DNS. The API allows pages from `http://127.0.0.1`
//! and `http://localhost` on any port ([`api_cors`]), so the origins need no run-time
//! configuration and the API stays a plain `rest_root_module!`.
//!
//! # Cookies
//!
//! The cookie cases set one cookie per attribute combination (`/cookies/set/{variant}`), then one
//! credentialed request (`/cookies/check`) shows which of them Chromium sent back. The expected
//! results are [`COOKIE_FINDINGS`], documented in `docs/COOKIES.md`; on a mismatch the test
//! prints the table it observed.
//!
//! # The demo
//!
//! The last test runs `examples/browser_demo.rs` (included as a module) in Chromium, same-site
//! and cross-site, checks the verdicts its page sends back, and takes screenshots with
//! `--screenshot` and `--virtual-time-budget` (Chromium's virtual time waits for pending fetches,
//! so the page is complete when it is captured).
//!
//! # Determinism and time
//!
//! One Chromium per scenario, with a fresh profile (`--user-data-dir` under
//! `CARGO_TARGET_TMPDIR`); scenarios take turns (a process-wide lock), so two browsers never
//! compete for the two cores; cases run in sequence; distinct query strings keep one case's
//! preflight from being answered from the cache of another; every wait is bounded. The whole file
//! takes about ten seconds.
//!
//! # Running
//!
//! The browser is `$CHROMIUM`, or `chromium`, `chromium-browser`, `google-chrome` or
//! `google-chrome-stable` on `PATH`. Without one, the tests print why they skipped, except with
//! `CI=true`, where a missing browser fails them. `UPDATE_SCREENSHOT=1` also writes the demo's
//! same-site screenshot to `docs/browser_demo.png` (it always goes to `CARGO_TARGET_TMPDIR`);
//! that is Chromium's full-colour PNG, about 270 KB, where the committed one was reduced to a
//! 128-colour palette (about 100 KB).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Html;
use axum::{Extension, Router};
use cookie::{Cookie, SameSite};
use cors_axum::prelude::*;
use serde_json::{Value, json};
use tokio::process::Command;
use tokio::sync::mpsc;

#[path = "../examples/browser_demo.rs"]
#[allow(dead_code, unreachable_pub)]
mod browser_demo;

#[path = "../examples/app/api.rs"]
#[allow(dead_code)]
mod app;

/// How long a page may take to report; a scenario takes one to three seconds here.
const REPORT_TIMEOUT: Duration = Duration::from_secs(30);

/// Chromium's flags: headless, no sandbox (containers), nothing that talks to the network on its
/// own, no HTTP/3.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--mute-audio",
];

/// Scenarios take turns: one browser at a time.
static BROWSER_TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

// ---------------------------------------------------------------------------------------------
// The API under test.
// ---------------------------------------------------------------------------------------------

/// The API's CORS options: pages served from `http://127.0.0.1` or `http://localhost` on any
/// port (the tests pick ports at run time), two allowed request headers, one exposed response
/// header. Credentials are not allowed by default: `CorsService` turns them on per response.
fn api_cors() -> CorsOptions {
    CorsOptions::new()
        .origin(AllowOrigin::predicate(is_loopback_page))
        .allow_headers(["content-type", "x-pingother"])
        .expose_headers(["x-request-id"])
}

/// `http://127.0.0.1:<port>` or `http://localhost:<port>`.
fn is_loopback_page(origin: &HeaderValue) -> bool {
    let Some(rest) = origin.to_str().ok().and_then(|o| o.strip_prefix("http://")) else {
        return false;
    };
    let Some((host, port)) = rest.rsplit_once(':') else {
        return false;
    };
    matches!(host, "127.0.0.1" | "localhost") && port.parse::<u16>().is_ok()
}

/// `/items`: every method, echoing the body.
pub struct ItemsController;

#[controller("items")]
impl ItemsController {
    #[route("GET")]
    async fn list(ctx: RequestContext) -> Response {
        ctx.send("items")
    }

    #[route("POST")]
    async fn create(ctx: RequestContext, body: String) -> Response {
        ctx.send(format!("created {body}"))
    }

    #[route("PUT")]
    async fn replace(ctx: RequestContext, body: String) -> Response {
        ctx.send(format!("replaced {body}"))
    }

    #[route("PATCH")]
    async fn update(ctx: RequestContext, body: String) -> Response {
        ctx.send(format!("patched {body}"))
    }

    #[route("DELETE")]
    async fn remove(ctx: RequestContext) -> Response {
        ctx.send("deleted")
    }
}

/// `/headers`: one exposed and one unexposed response header; `/cached` and `/uncached`: a
/// non-simple method under a long and a zero preflight max-age.
pub struct MiscController;

#[controller]
impl MiscController {
    #[route("GET", "headers")]
    async fn headers() -> Response {
        (
            [("x-request-id", "req-42"), ("x-internal", "secret")],
            "headers",
        )
            .into_response()
    }

    #[route("PUT", "cached", cors = CorsOptions::new().max_age(600))]
    async fn cached() -> &'static str {
        "cached"
    }

    #[route("PUT", "uncached", cors = CorsOptions::new().max_age(0))]
    async fn uncached() -> &'static str {
        "uncached"
    }
}

/// `/session`: a cookie with `set_cookie`'s defaults; `/session/check`: what came back.
pub struct SessionController;

#[controller("session")]
impl SessionController {
    #[route("GET")]
    async fn start(ctx: RequestContext, cors: CorsService) -> Response {
        cors.set_cookie("session", "abc 123");
        ctx.send("session started")
    }

    #[route("GET", "check")]
    async fn check(
        ctx: RequestContext,
        cors: CorsService,
        Extension(wire): Extension<Arc<Wire>>,
    ) -> Response {
        let cookie = cookie_header(&ctx);
        wire.handler_saw("/session/check", &cookie);
        cors.allow_credentials();
        ctx.send(format!("cookie: {cookie}"))
    }
}

/// `/cookies/set/{variant}`: one cookie per attribute combination; `/cookies/check`: which of
/// them came back.
pub struct CookieLabController;

#[controller("cookies")]
impl CookieLabController {
    #[route("GET", "set/{variant}")]
    async fn set(ctx: RequestContext, cors: CorsService) -> Response {
        let variant = ctx.param("variant").unwrap_or_default();
        if variant == "default" {
            cors.set_cookie("lab_default", "1");
        } else if let Some(cookie) = lab_cookie(variant) {
            cors.set_cookie_with(cookie);
        } else {
            return (StatusCode::NOT_FOUND, "unknown variant").into_response();
        }
        ctx.send(format!("set {variant}"))
    }

    #[route("GET", "check")]
    async fn check(
        ctx: RequestContext,
        cors: CorsService,
        Extension(wire): Extension<Arc<Wire>>,
    ) -> Response {
        let cookie = cookie_header(&ctx);
        wire.handler_saw("/cookies/check", &cookie);
        cors.allow_credentials();
        ctx.send(format!("cookie: {cookie}"))
    }
}

rest_root_module! {
    /// The API of the browser tests.
    pub struct ApiModule {
        imports: [CorsModule::with_opts(api_cors())],
        controllers: [ItemsController, MiscController, SessionController, CookieLabController],
    }
}

fn cookie_header(ctx: &RequestContext) -> String {
    ctx.headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The attribute combinations of the cookie cases, as in `docs/COOKIES.md`. `default` is
/// `CorsService::set_cookie`; all the others also have `Path=/; HttpOnly`.
const COOKIE_VARIANTS: &[(&str, &str)] = &[
    ("default", "`set_cookie` defaults"),
    ("unspecified", "no `SameSite`"),
    ("lax", "`SameSite=Lax`"),
    ("strict", "`SameSite=Strict`"),
    ("none", "`SameSite=None`"),
    ("none_secure", "`SameSite=None; Secure`"),
    ("lax_secure", "`SameSite=Lax; Secure`"),
    (
        "none_secure_partitioned",
        "`SameSite=None; Secure; Partitioned`",
    ),
];

fn lab_cookie(variant: &str) -> Option<Cookie<'static>> {
    let mut cookie = Cookie::new(format!("lab_{variant}"), "1");
    cookie.set_path("/");
    cookie.set_http_only(true);
    match variant {
        "unspecified" => {}
        "lax" => cookie.set_same_site(SameSite::Lax),
        "strict" => cookie.set_same_site(SameSite::Strict),
        "none" => {
            cookie.set_same_site(SameSite::None);
            // The `cookie` crate adds `Secure` to `SameSite=None` unless told not to.
            cookie.set_secure(false);
        }
        "none_secure" => {
            cookie.set_same_site(SameSite::None);
            cookie.set_secure(true);
        }
        "lax_secure" => {
            cookie.set_same_site(SameSite::Lax);
            cookie.set_secure(true);
        }
        "none_secure_partitioned" => {
            cookie.set_same_site(SameSite::None);
            cookie.set_secure(true);
            cookie.set_partitioned(true);
        }
        _ => return None,
    }
    Some(cookie)
}

// ---------------------------------------------------------------------------------------------
// What the API server received.
// ---------------------------------------------------------------------------------------------

/// The API server's log.
#[derive(Debug, Default)]
pub struct Wire {
    requests: Mutex<Vec<Received>>,
    handlers: Mutex<Vec<(&'static str, String)>>,
}

/// One request as the API server received it.
#[derive(Debug, Clone)]
struct Received {
    method: String,
    target: String,
    origin: Option<String>,
    preflight: bool,
    cookie: Option<String>,
}

impl Wire {
    fn handler_saw(&self, handler: &'static str, cookie: &str) {
        lock(&self.handlers).push((handler, cookie.to_owned()));
    }

    fn requests(&self) -> Vec<Received> {
        lock(&self.requests).clone()
    }

    /// Actual (non-preflight) requests with `method` to `target` (path and query).
    fn actual(&self, method: &str, target: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| !r.preflight && r.method == method && r.target == target)
            .count()
    }

    /// Preflights for `target`.
    fn preflights(&self, target: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.preflight && r.target == target)
            .count()
    }

    /// The `Cookie` headers `handler` saw, in order.
    fn cookies_seen_by(&self, handler: &str) -> Vec<String> {
        lock(&self.handlers)
            .iter()
            .filter(|(h, _)| *h == handler)
            .map(|(_, cookie)| cookie.clone())
            .collect()
    }

    fn dump(&self) -> String {
        self.requests()
            .iter()
            .map(|r| {
                format!(
                    "  {}{} {} origin={:?} cookie={:?}\n",
                    if r.preflight { "preflight " } else { "" },
                    r.method,
                    r.target,
                    r.origin,
                    r.cookie
                )
            })
            .collect()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn record(State(wire): State<Arc<Wire>>, request: Request, next: Next) -> Response {
    lock(&wire.requests).push(Received::from(&request));
    next.run(request).await
}

impl From<&Request> for Received {
    fn from(request: &Request) -> Self {
        let text = |name: header::HeaderName| {
            request
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        Received {
            method: request.method().to_string(),
            target: request
                .uri()
                .path_and_query()
                .map_or_else(|| "/".to_owned(), ToString::to_string),
            origin: text(header::ORIGIN),
            preflight: request.method() == Method::OPTIONS
                && request
                    .headers()
                    .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD),
            cookie: text(header::COOKIE),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Servers, the page and the browser.
// ---------------------------------------------------------------------------------------------

/// Serves `router` on `127.0.0.1`, on a port the system picks; returns the port.
async fn serve(router: Router) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let port = listener.local_addr().expect("local address").port();
    tokio::spawn(async move { axum::serve(listener, router.into_make_service()).await });
    port
}

/// The page of the scenarios; `__CONFIG__` becomes `{"api": .., "cases": [..]}`.
const PAGE: &str = r#"<!doctype html>
<meta charset="utf-8">
<title>cors-axum browser test</title>
<pre id="out">running</pre>
<script>
const CONFIG = __CONFIG__;
const READ = ['content-type', 'x-request-id', 'x-internal', 'access-control-allow-origin', 'location',
  'www-authenticate'];
const BEARER = { Authorization: 'Bearer ' + CONFIG.token };
const JSON_TYPE = { 'Content-Type': 'application/json' };

async function call(path, init) {
  try {
    const response = await fetch(CONFIG.api + path, init || {});
    const headers = {};
    for (const name of READ) headers[name] = response.headers.get(name);
    const body = (await response.text()).trim();
    return { outcome: 'ok', status: response.status, body, headers };
  } catch (error) {
    return { outcome: 'blocked', error: String(error) };
  }
}

const CASES = {
  simple_get: () => call('/items'),
  preflight_post: () => call('/items?case=post', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-PINGOTHER': 'pingpong' },
    body: '{"name":"widget"}',
  }),
  put: () => call('/items?case=put', { method: 'PUT', headers: JSON_TYPE, body: '{"name":"gadget"}' }),
  patch: () => call('/items?case=patch', { method: 'PATCH', headers: JSON_TYPE, body: '{"name":"gizmo"}' }),
  delete: () => call('/items?case=delete', { method: 'DELETE' }),
  method_not_allowed: () => call('/session?case=put', { method: 'PUT' }),
  header_not_allowed: () => call('/items?case=bad-header', { method: 'POST', headers: { 'X-Forbidden': 'yes' } }),
  credentials_not_allowed: () => call('/items?case=credentials', { credentials: 'include' }),
  session_start: () => call('/session', { credentials: 'include' }),
  session_check: () => call('/session/check', { credentials: 'include' }),
  exposed_headers: () => call('/headers'),
  cached_1: () => call('/cached', { method: 'PUT' }),
  cached_2: () => call('/cached', { method: 'PUT' }),
  uncached_1: () => call('/uncached', { method: 'PUT' }),
  uncached_2: () => call('/uncached', { method: 'PUT' }),
  cookie_check: () => call('/cookies/check', { credentials: 'include' }),
  // The example application: a bearer-token API under /api/v1, CORS for the whole application.
  users_no_token: () => call('/api/v1/users'),
  users_wrong_token: () => call('/api/v1/users?case=wrong', { headers: { Authorization: 'Bearer wrong' } }),
  users_create: () => call('/api/v1/users', {
    method: 'POST',
    headers: { ...BEARER, 'Content-Type': 'application/json' },
    body: '{"name":"ada"}',
  }),
  users_list: () => call('/api/v1/users?case=list', { headers: BEARER }),
  users_typo: () => call('/api/v1/userz'),
  users_typo_preflighted: () => call('/api/v1/userz?case=preflighted', { headers: BEARER }),
  app_sign_in: () => call('/session', { method: 'POST', credentials: 'include' }),
  app_session: () => call('/session', { credentials: 'include' }),
};

function run(name) {
  if (name.startsWith('cookie_set_')) {
    return call('/cookies/set/' + name.slice('cookie_set_'.length), { credentials: 'include' });
  }
  return CASES[name]();
}

(async () => {
  const results = {};
  let error = null;
  try {
    for (const name of CONFIG.cases) results[name] = await run(name);
  } catch (e) {
    error = String(e);
  }
  const report = JSON.stringify({ userAgent: navigator.userAgent, results, error });
  document.getElementById('out').textContent = report;
  await fetch('/report', { method: 'POST', body: report });
})();
</script>
"#;

/// Serves the page for `cases` against `api`; each report goes to `reports`. Returns the port.
async fn page_server(api: &str, cases: &[String], reports: mpsc::Sender<String>) -> u16 {
    let config = json!({ "api": api, "cases": cases, "token": APP_TOKEN });
    let html = PAGE.replace("__CONFIG__", &config.to_string());
    let router = Router::new()
        .route(
            "/",
            axum::routing::get(move || {
                let html = html.clone();
                async move { Html(html) }
            }),
        )
        .route(
            "/report",
            axum::routing::post(move |body: String| {
                // Only the first report counts; the test may also have stopped listening.
                let _ = reports.try_send(body);
                std::future::ready(StatusCode::NO_CONTENT)
            }),
        );
    serve(router).await
}

/// The browser to use; `None` (after saying why) when there is none outside CI.
fn browser() -> Option<PathBuf> {
    if let Some(path) = find_browser() {
        return Some(path);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(
        !ci,
        "Chromium not found and CI=true: install it (apt-get install -y chromium) or set \
         CHROMIUM=/path/to/chromium; the browser tests must run in CI"
    );
    // Straight to stderr, past the test harness's capture, once per run.
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        let _ = writeln!(
            std::io::stderr(),
            "browser tests skipped: Chromium not found (install with apt-get install -y \
             chromium, or set CHROMIUM=/path/to/chromium)"
        );
    });
    None
}

fn find_browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
    .find(|candidate| candidate.is_file())
}

/// `chromium --version`, for the test output.
async fn browser_version(browser: &Path) -> String {
    let output = tokio::time::timeout(
        Duration::from_secs(20),
        Command::new(browser)
            .arg("--version")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await;
    match output {
        Ok(Ok(output)) => String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        _ => "unknown version".to_owned(),
    }
}

/// A fresh Chromium profile directory, removed on drop.
struct Profile(PathBuf);

impl Profile {
    fn new(name: &str) -> Self {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("chromium-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("profile/Default"))
            .expect("create the Chromium profile directory");
        Self(dir)
    }

    /// Sets "Allow third-party cookies" (`chrome://settings/cookies`) in the new profile: the
    /// preference `profile.cookie_controls_mode` is `0` (a new Chromium profile blocks them).
    fn allow_third_party_cookies(self) -> Self {
        std::fs::write(
            self.0.join("profile/Default/Preferences"),
            r#"{"profile":{"cookie_controls_mode":0}}"#,
        )
        .expect("write the Chromium preferences");
        self
    }

    fn command(&self, browser: &Path) -> Command {
        let log = std::fs::File::create(self.log()).expect("create the Chromium log");
        let mut command = Command::new(browser);
        command
            .args(CHROMIUM_FLAGS)
            .arg(format!(
                "--user-data-dir={}",
                self.0.join("profile").display()
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .kill_on_drop(true);
        command
    }

    fn log(&self) -> PathBuf {
        self.0.join("chromium.log")
    }

    /// The end of Chromium's log, for failure messages.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.log()).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for Profile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Opens `url` in Chromium with `profile` and returns the first report the page sends.
async fn load_and_report(
    browser: &Path,
    profile: Profile,
    url: &str,
    reports: &mut mpsc::Receiver<String>,
) -> Report {
    let mut chromium = profile
        .command(browser)
        .arg(url)
        .spawn()
        .expect("start Chromium");
    let report = tokio::select! {
        report = reports.recv() => report,
        status = chromium.wait() => panic!(
            "Chromium exited ({status:?}) before {url} reported; its log ends with:\n{}",
            profile.log_tail()
        ),
        () = tokio::time::sleep(REPORT_TIMEOUT) => panic!(
            "{url} did not report within {REPORT_TIMEOUT:?}; Chromium's log ends with:\n{}",
            profile.log_tail()
        ),
    };
    let _ = chromium.kill().await;
    let report = report.expect("the page server is running");
    let report: Value = serde_json::from_str(&report).expect("the report is JSON");
    assert!(
        report["error"].is_null(),
        "the page's script failed: {}",
        report["error"]
    );
    Report(report)
}

/// What the page's script could see.
struct Report(Value);

impl Report {
    fn case(&self, name: &str) -> &Value {
        let case = &self.0["results"][name];
        assert!(!case.is_null(), "no result for case `{name}`: {}", self.0);
        case
    }

    /// Asserts that script could read the response of case `name`, with `status` and `body`.
    fn ok(&self, name: &str, status: u64, body: &str) -> &Value {
        let case = self.case(name);
        assert_eq!(case["outcome"], "ok", "case `{name}` was blocked: {case}");
        assert_eq!(case["status"], status, "case `{name}`: {case}");
        assert_eq!(case["body"], body, "case `{name}`: {case}");
        case
    }

    /// Asserts that the browser refused script the response of case `name`.
    fn blocked(&self, name: &str) {
        let case = self.case(name);
        assert_eq!(
            case["outcome"], "blocked",
            "case `{name}` should have been blocked by the browser: {case}"
        );
    }
}

/// Where a scenario's page and API are reached, and Chromium's third-party cookie setting.
struct Scenario {
    name: &'static str,
    page_host: &'static str,
    api_host: &'static str,
    third_party_cookies: ThirdPartyCookies,
}

/// Chromium's third-party cookie setting.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ThirdPartyCookies {
    /// A new profile's setting: blocked.
    Blocked,
    /// "Allow third-party cookies".
    Allowed,
}

impl Scenario {
    fn new(name: &'static str, page_host: &'static str, api_host: &'static str) -> Self {
        Self {
            name,
            page_host,
            api_host,
            third_party_cookies: ThirdPartyCookies::Blocked,
        }
    }

    fn allowing_third_party_cookies(mut self, name: &'static str) -> Self {
        self.name = name;
        self.third_party_cookies = ThirdPartyCookies::Allowed;
        self
    }
}

/// The outcome of a scenario: the page's report and the API server's log.
struct Outcome {
    report: Report,
    wire: Arc<Wire>,
    version: String,
}

impl Outcome {
    /// Which lab cookies came back on `/cookies/check`, by variant.
    fn cookies_sent_back(&self) -> BTreeMap<&'static str, bool> {
        let seen = self.wire.cookies_seen_by("/cookies/check");
        let header = seen.last().map_or("", String::as_str);
        let names: Vec<&str> = header
            .split(';')
            .filter_map(|pair| pair.trim().split_once('=').map(|(n, _)| n))
            .collect();
        COOKIE_VARIANTS
            .iter()
            .map(|(variant, _)| (*variant, names.contains(&&*format!("lab_{variant}"))))
            .collect()
    }
}

/// Runs `cases` in Chromium from the scenario's page origin against its API origin.
async fn run_scenario(browser: &Path, scenario: &Scenario, cases: &[String]) -> Outcome {
    let api = ApiModule::router().expect("the API builds");
    run_scenario_on(browser, scenario, cases, api).await
}

/// The token of the example application in the browser tests.
const APP_TOKEN: &str = "browser-test-token";

/// The example application (`examples/app`), allowing pages on loopback with credentials.
fn example_app() -> Router {
    let config = app::Config {
        listen: String::new(),
        api_token: APP_TOKEN.to_owned(),
        cors: CorsOptions::new()
            .origin(AllowOrigin::predicate(is_loopback_page))
            .credentials(true)
            .allow_headers(["authorization", "content-type"])
            .expose_headers(["location"]),
    };
    app::application(&config)
        .router()
        .expect("the example application builds")
        .with_state(app::AppState::default())
}

/// [`run_scenario`] against `api`.
async fn run_scenario_on(
    browser: &Path,
    scenario: &Scenario,
    cases: &[String],
    api: Router,
) -> Outcome {
    let _turn = BROWSER_TURN.lock().await;
    let version = browser_version(browser).await;
    let wire = Arc::new(Wire::default());
    let api = api
        .layer(axum::middleware::from_fn_with_state(wire.clone(), record))
        .layer(Extension(wire.clone()));
    let api_port = serve(api).await;
    let api_url = format!("http://{}:{api_port}", scenario.api_host);

    let (reports_tx, mut reports) = mpsc::channel(1);
    let page_port = page_server(&api_url, cases, reports_tx).await;
    let page_url = format!("http://{}:{page_port}/", scenario.page_host);

    let mut profile = Profile::new(scenario.name);
    if scenario.third_party_cookies == ThirdPartyCookies::Allowed {
        profile = profile.allow_third_party_cookies();
    }
    let report = load_and_report(browser, profile, &page_url, &mut reports).await;
    eprintln!(
        "{version}, scenario {}: page {page_url}, API {api_url}\nthe API received:\n{}",
        scenario.name,
        wire.dump()
    );
    Outcome {
        report,
        wire,
        version,
    }
}

/// Case names, as the page takes them.
fn cases(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

/// The cookie cases: one `cookie_set_<variant>` per variant, then `cookie_check`.
fn cookie_cases() -> Vec<String> {
    COOKIE_VARIANTS
        .iter()
        .map(|(variant, _)| format!("cookie_set_{variant}"))
        .chain(["cookie_check".to_owned()])
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Cookie findings.
// ---------------------------------------------------------------------------------------------

/// Which cookies Chromium sent back, per variant and scenario (`docs/COOKIES.md`); the
/// columns are [`COOKIE_SCENARIOS`].
const COOKIE_FINDINGS: &[(&str, [bool; 6])] = &[
    ("default", [true, true, true, true, true, true]),
    ("unspecified", [true, true, false, false, false, false]),
    ("lax", [true, true, false, false, false, false]),
    ("strict", [true, true, false, false, false, false]),
    ("none", [false, false, false, false, false, false]),
    ("none_secure", [true, true, false, false, true, true]),
    ("lax_secure", [true, true, false, false, false, false]),
    (
        "none_secure_partitioned",
        [true, true, true, true, true, true],
    ),
];

const COOKIE_SCENARIOS: [&str; 6] = [
    "same_site_ip",
    "same_site_localhost",
    "cross_site_localhost_page",
    "cross_site_ip_page",
    "cross_site_localhost_page_3pc_allowed",
    "cross_site_ip_page_3pc_allowed",
];

/// Asserts the cookie cases of `outcome` against [`COOKIE_FINDINGS`].
fn check_cookie_findings(scenario: &str, outcome: &Outcome) {
    let column = COOKIE_SCENARIOS
        .iter()
        .position(|s| *s == scenario)
        .expect("a cookie scenario");
    for (variant, _) in COOKIE_VARIANTS {
        let case = outcome.report.case(&format!("cookie_set_{variant}"));
        assert_eq!(
            case["outcome"], "ok",
            "{scenario}: setting cookie `{variant}` is a credentialed response script can read: {case}"
        );
    }
    let check = outcome.report.case("cookie_check");
    assert_eq!(check["outcome"], "ok", "{scenario}: {check}");
    let observed = outcome.cookies_sent_back();
    let table: String = COOKIE_VARIANTS
        .iter()
        .map(|(variant, attributes)| {
            format!(
                "| {attributes} | {} |\n",
                if observed[variant] {
                    "sent back"
                } else {
                    "dropped"
                }
            )
        })
        .collect();
    eprintln!(
        "{}, {scenario}: cookies sent back\n{table}",
        outcome.version
    );
    for (variant, expected) in COOKIE_FINDINGS {
        assert_eq!(
            observed[variant],
            expected[column],
            "{scenario}: cookie `{variant}` was {} by {}, unlike docs/COOKIES.md says; observed:\n{table}",
            if observed[variant] {
                "sent back"
            } else {
                "not sent back"
            },
            outcome.version,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The scenarios.
// ---------------------------------------------------------------------------------------------

/// Every request kind from an allowed page on the same site: simple, preflighted, refused
/// preflights, credentials, exposed headers, preflight caching, cookies.
#[tokio::test]
async fn same_site_requests_cookies_exposed_headers_and_preflight_cache() {
    let Some(browser) = browser() else { return };
    let scenario = Scenario::new("same_site_ip", "127.0.0.1", "127.0.0.1");
    let mut cases = cases(&[
        "simple_get",
        "preflight_post",
        "put",
        "patch",
        "delete",
        "method_not_allowed",
        "header_not_allowed",
        "credentials_not_allowed",
        "session_start",
        "session_check",
        "exposed_headers",
        "cached_1",
        "cached_2",
        "uncached_1",
        "uncached_2",
    ]);
    cases.extend(cookie_cases());
    let outcome = run_scenario(&browser, &scenario, &cases).await;
    let (report, wire) = (&outcome.report, &outcome.wire);

    // A simple GET: no preflight.
    let get = report.ok("simple_get", 200, "items");
    assert_eq!(get["headers"]["content-type"], "text/plain; charset=utf-8");
    assert_eq!(wire.preflights("/items"), 0);
    assert_eq!(wire.actual("GET", "/items"), 1);

    // Preflighted: one preflight, then the actual request.
    report.ok("preflight_post", 200, r#"created {"name":"widget"}"#);
    report.ok("put", 200, r#"replaced {"name":"gadget"}"#);
    report.ok("patch", 200, r#"patched {"name":"gizmo"}"#);
    report.ok("delete", 200, "deleted");
    for (method, case) in [
        ("POST", "post"),
        ("PUT", "put"),
        ("PATCH", "patch"),
        ("DELETE", "delete"),
    ] {
        let target = format!("/items?case={case}");
        assert_eq!(wire.preflights(&target), 1, "{target}\n{}", wire.dump());
        assert_eq!(wire.actual(method, &target), 1, "{target}\n{}", wire.dump());
    }

    // Refused preflights: the browser never sends the actual request.
    report.blocked("method_not_allowed");
    assert_eq!(wire.preflights("/session?case=put"), 1);
    assert_eq!(wire.actual("PUT", "/session?case=put"), 0);
    report.blocked("header_not_allowed");
    assert_eq!(wire.preflights("/items?case=bad-header"), 1);
    assert_eq!(wire.actual("POST", "/items?case=bad-header"), 0);

    // A credentialed request to a response without `Access-Control-Allow-Credentials`: sent,
    // answered, but not readable.
    report.blocked("credentials_not_allowed");
    assert_eq!(wire.actual("GET", "/items?case=credentials"), 1);

    // The cookie round trip: `set_cookie` on one response, seen by the next handler.
    report.ok("session_start", 200, "session started");
    report.ok("session_check", 200, "cookie: session=abc%20123");
    assert_eq!(
        wire.cookies_seen_by("/session/check"),
        ["session=abc%20123"]
    );

    // Exposed headers: only `X-Request-Id` is readable, although both were sent.
    let exposed = report.ok("exposed_headers", 200, "headers");
    assert_eq!(exposed["headers"]["x-request-id"], "req-42");
    assert!(exposed["headers"]["x-internal"].is_null(), "{exposed}");

    // `Access-Control-Max-Age: 600`: the second PUT goes without a preflight; with `0`, both
    // have one.
    for case in ["cached_1", "cached_2"] {
        report.ok(case, 200, "cached");
    }
    for case in ["uncached_1", "uncached_2"] {
        report.ok(case, 200, "uncached");
    }
    assert_eq!(wire.actual("PUT", "/cached"), 2);
    assert_eq!(wire.preflights("/cached"), 1, "{}", wire.dump());
    assert_eq!(wire.actual("PUT", "/uncached"), 2);
    assert_eq!(wire.preflights("/uncached"), 2, "{}", wire.dump());

    check_cookie_findings(scenario.name, &outcome);
}

/// Same site on `localhost`: the cookie round trip and the cookie attributes.
#[tokio::test]
async fn same_site_localhost_cookies() {
    let Some(browser) = browser() else { return };
    let scenario = Scenario::new("same_site_localhost", "localhost", "localhost");
    cross_origin_cookie_scenario(&browser, &scenario).await;
}

/// Cross-site, page on `localhost`, API on `127.0.0.1`.
#[tokio::test]
async fn cross_site_from_localhost_page() {
    let Some(browser) = browser() else { return };
    let scenario = Scenario::new("cross_site_localhost_page", "localhost", "127.0.0.1");
    cross_origin_cookie_scenario(&browser, &scenario).await;
}

/// Cross-site, page on `127.0.0.1`, API on `localhost`.
#[tokio::test]
async fn cross_site_from_ip_page() {
    let Some(browser) = browser() else { return };
    let scenario = Scenario::new("cross_site_ip_page", "127.0.0.1", "localhost");
    cross_origin_cookie_scenario(&browser, &scenario).await;
}

/// Cross-site both ways, with "Allow third-party cookies" set in Chromium.
#[tokio::test]
async fn cross_site_with_third_party_cookies_allowed() {
    let Some(browser) = browser() else { return };
    let scenario = Scenario::new("cross_site_localhost_page", "localhost", "127.0.0.1")
        .allowing_third_party_cookies("cross_site_localhost_page_3pc_allowed");
    cross_origin_cookie_scenario(&browser, &scenario).await;
    let scenario = Scenario::new("cross_site_ip_page", "127.0.0.1", "localhost")
        .allowing_third_party_cookies("cross_site_ip_page_3pc_allowed");
    cross_origin_cookie_scenario(&browser, &scenario).await;
}

/// Simple and preflighted requests, the `set_cookie` round trip and the cookie attributes.
async fn cross_origin_cookie_scenario(browser: &Path, scenario: &Scenario) {
    let mut cases = cases(&[
        "simple_get",
        "preflight_post",
        "session_start",
        "session_check",
    ]);
    cases.extend(cookie_cases());
    let outcome = run_scenario(browser, scenario, &cases).await;
    let (report, wire) = (&outcome.report, &outcome.wire);

    report.ok("simple_get", 200, "items");
    report.ok("preflight_post", 200, r#"created {"name":"widget"}"#);
    assert_eq!(wire.preflights("/items?case=post"), 1);

    report.ok("session_start", 200, "session started");
    report.ok("session_check", 200, "cookie: session=abc%20123");
    assert_eq!(
        wire.cookies_seen_by("/session/check"),
        ["session=abc%20123"],
        "{}: the handler did not get the cookie set by `set_cookie`",
        scenario.name
    );

    check_cookie_findings(scenario.name, &outcome);
}

/// The example application, cross-site (page on `localhost`, API on `127.0.0.1`): its
/// bearer-token guard runs inside CORS, so the preflight of a request with `Authorization`
/// passes, a request without the token gets a `401` the page can read, and one with it gets
/// through; the users module mounted under `/api/v1` is covered by the root's CORS, and a
/// mistyped path gets a `404` the page can read, preflighted or not.
#[tokio::test]
async fn bearer_token_api_and_feature_module_of_the_example_app() {
    let Some(browser) = browser() else { return };
    let scenario = Scenario::new("example_app", "localhost", "127.0.0.1");
    let cases = cases(&[
        "users_no_token",
        "users_wrong_token",
        "users_create",
        "users_list",
        "users_typo",
        "users_typo_preflighted",
        "app_sign_in",
        "app_session",
    ]);
    let outcome = run_scenario_on(&browser, &scenario, &cases, example_app()).await;
    let (report, wire) = (&outcome.report, &outcome.wire);

    let refused = report.ok("users_no_token", 401, "missing or wrong bearer token");
    assert!(
        refused["headers"]["www-authenticate"].is_null(),
        "not exposed: {refused}"
    );
    assert_eq!(wire.preflights("/api/v1/users"), 1, "{}", wire.dump());
    report.ok("users_wrong_token", 401, "missing or wrong bearer token");
    assert_eq!(
        wire.preflights("/api/v1/users?case=wrong"),
        1,
        "{}",
        wire.dump()
    );
    assert_eq!(wire.actual("GET", "/api/v1/users?case=wrong"), 1);

    let created = report.ok("users_create", 201, r#"{"id":1,"name":"ada"}"#);
    assert_eq!(
        created["headers"]["location"], "/api/v1/users/1",
        "{created}"
    );
    report.ok("users_list", 200, r#"[{"id":1,"name":"ada"}]"#);

    report.ok("users_typo", 404, "");
    report.ok("users_typo_preflighted", 404, "");
    assert_eq!(
        wire.preflights("/api/v1/userz?case=preflighted"),
        1,
        "{}",
        wire.dump()
    );

    report.ok("app_sign_in", 200, "signed in");
    report.ok("app_session", 200, "cookie: session=example-session");
}

/// A page on an origin that is not allowed: the browser blocks every response, and sends no
/// actual request after a preflight.
#[tokio::test]
async fn origin_not_allowed_is_blocked() {
    let Some(browser) = browser() else { return };
    let scenario = Scenario::new("origin_not_allowed", "blocked.localhost", "127.0.0.1");
    let cases = cases(&[
        "simple_get",
        "preflight_post",
        "put",
        "delete",
        "session_start",
        "exposed_headers",
    ]);
    let outcome = run_scenario(&browser, &scenario, &cases).await;
    let (report, wire) = (&outcome.report, &outcome.wire);
    for case in &cases {
        report.blocked(case);
    }
    // Simple requests are sent (and their handlers run); script just cannot read the answers.
    assert_eq!(wire.actual("GET", "/items"), 1);
    assert_eq!(wire.actual("GET", "/session"), 1);
    assert_eq!(wire.actual("GET", "/headers"), 1);
    // Preflighted requests stop at the preflight.
    for (method, target) in [
        ("POST", "/items?case=post"),
        ("PUT", "/items?case=put"),
        ("DELETE", "/items?case=delete"),
    ] {
        assert_eq!(wire.preflights(target), 1, "{target}\n{}", wire.dump());
        assert_eq!(wire.actual(method, target), 0, "{target}\n{}", wire.dump());
    }
    assert!(
        wire.requests().iter().all(|r| r
            .origin
            .as_deref()
            .is_some_and(|o| o.starts_with("http://blocked.localhost:"))),
        "{}",
        wire.dump()
    );
}

/// The browser demo (`examples/browser_demo.rs`) in Chromium, same-site and cross-site: the page
/// passes all five cases. Its screenshots go to `CARGO_TARGET_TMPDIR`, and the same-site one also
/// to `docs/browser_demo.png` with `UPDATE_SCREENSHOT=1`.
#[tokio::test]
async fn browser_demo_passes_same_site_and_cross_site() {
    let Some(browser) = browser() else { return };
    let _turn = BROWSER_TURN.lock().await;
    let demo = browser_demo::start("127.0.0.1", 0, 0)
        .await
        .expect("start the demo");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let same_site = (demo.page_url.clone(), tmp.join("browser_demo.png"));
    let cross_site = (
        format!(
            "{}?api_host=127.0.0.1",
            demo.page_url.replacen("127.0.0.1", "localhost", 1)
        ),
        tmp.join("browser_demo_cross_site.png"),
    );

    for (url, screenshot) in [&same_site, &cross_site] {
        screenshot_page(&browser, url, screenshot).await;
        let results = wait_for(|| demo.take_results())
            .await
            .unwrap_or_else(|| panic!("the demo page {url} did not report its results"));
        let verdicts: Vec<(u64, bool)> = results
            .as_array()
            .expect("a list of cases")
            .iter()
            .map(|case| (case["n"].as_u64().unwrap_or(0), case["pass"] == true))
            .collect();
        assert_eq!(
            verdicts,
            [(1, true), (2, true), (3, true), (4, true), (5, true)],
            "{url}: {results:#}"
        );
    }

    if std::env::var("UPDATE_SCREENSHOT").is_ok_and(|v| v == "1") {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/browser_demo.png");
        std::fs::copy(&same_site.1, &docs).expect("copy the screenshot to docs/");
        eprintln!("wrote {}", docs.display());
    }
}

/// Loads `url` in Chromium and writes a screenshot once the page is idle (Chromium's virtual
/// time waits for pending fetches).
async fn screenshot_page(browser: &Path, url: &str, screenshot: &Path) {
    let _ = std::fs::remove_file(screenshot);
    let profile = Profile::new("demo");
    let mut chromium = profile
        .command(browser)
        .arg(format!("--screenshot={}", screenshot.display()))
        .arg("--window-size=1100,960")
        .arg("--hide-scrollbars")
        .arg("--virtual-time-budget=15000")
        .arg(url)
        .spawn()
        .expect("start Chromium");
    let status = tokio::time::timeout(REPORT_TIMEOUT, chromium.wait()).await;
    let _ = chromium.kill().await;
    match status {
        Ok(Ok(status)) if status.success() => {}
        other => panic!(
            "Chromium did not take the screenshot of {url} ({other:?}); its log ends with:\n{}",
            profile.log_tail()
        ),
    }
    let size = std::fs::metadata(screenshot)
        .expect("Chromium wrote the screenshot")
        .len();
    assert!(
        size > 10_000,
        "a {size}-byte screenshot of {url} is too small"
    );
}

/// Polls `f` every 50 ms for up to 2 s.
async fn wait_for<T>(mut f: impl FnMut() -> Option<T>) -> Option<T> {
    for _ in 0..40 {
        if let Some(value) = f() {
            return Some(value);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    f()
}
