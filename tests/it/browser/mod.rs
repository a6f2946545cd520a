//! End-to-end CORS in real browsers: headless Chromium, Firefox and WebKit against servers on two
//! loopback origins.
//!
//! CORS is enforced by browsers, so the proof that `CorsModule` works is a browser that lets a page
//! read, or refuses to let it read, the answers to real cross-origin `fetch` calls. Each test (a
//! *scenario*, in one engine) starts:
//!
//! - the **API server** ([`api`]): `ApiModule`, declared with `rest_root_module!` and importing
//!   `CorsModule::with_opts(api_cors())`, inside a middleware that logs every request as the server
//!   received it (`Wire`: method, target, `Origin`, preflight or not, `Cookie`); the handlers that
//!   check cookies also record what they saw;
//! - the **page server** ([`page`]): one HTML page whose script runs the scenario's `fetch` cases
//!   in sequence and POSTs a JSON report of what script could see (response or network error,
//!   status, body, readable headers) to the page server's `/report`, which hands it to the test on
//!   a channel;
//!
//! then launches the browser as a child process on the page's URL ([`engine`]), waits at most
//! [`scenario::REPORT_TIMEOUT`] for the report, kills the browser and asserts on both sides: what
//! the page could read, and what reached the server (preflight counts, cookies sent back).
//!
//! # Engines
//!
//! Every scenario runs in each engine: one test per scenario and engine, named
//! `scenario::chromium`, `scenario::firefox` and `scenario::webkit`.
//!
//! | engine | program | profile | stopped |
//! |---|---|---|---|
//! | Chromium | `chromium --headless` and the flags in `engine.rs` | `--user-data-dir`, its `Default/Preferences` | process group killed |
//! | Firefox | `firefox-esr --headless --no-remote --profile DIR` | `user.js` that keeps it off the network, `cert_override.txt` over HTTPS; `MOZ_REMOTE_SETTINGS_DEVTOOLS=1`, `XDG_CONFIG_HOME` | process group killed |
//! | WebKit | `cog -P headless --webprocess-failure=exit` (WPE WebKit) | `XDG_DATA_HOME`, `XDG_CACHE_HOME`, `XDG_CONFIG_HOME` | process group killed |
//!
//! Each run gets a fresh profile under `CARGO_TARGET_TMPDIR`. Browsers of one engine take turns
//! (a lock per engine), so different engines may run side by side on the test harness's threads.
//! The CORS cases are asserted the same way in every engine: they behave identically. Cookies are
//! where the engines differ, and each engine's table is asserted as it is ([`cookies`]).
//!
//! # Why no DevTools-protocol or WebDriver crate
//!
//! The page is the probe. `fetch` reports exactly what CORS lets script see (a refused response
//! is a `TypeError`, nothing more, by design), and the server's log shows what the browser sent:
//! preflights, actual requests, cookies. A CDP or WebDriver client would add a websocket or HTTP
//! stack, a large dependency tree and coupling to each browser's protocol version, to observe
//! nothing these two points miss. So browsers are started as plain processes. The one exception
//! is WebKit's screenshot of the demo: cog has no screenshot option, so [`webdriver`] speaks the
//! five WebDriver commands it needs to `WPEWebDriver` over a plain TCP connection. The
//! dev-dependencies stay small: `cookie` (explicit attributes for
//! `CorsService::set_cookie_with`), `rcgen`, `tokio-rustls` and `ring` (the HTTPS servers and the
//! certificate's fingerprint), `png` (stitching WebKit's screenshot).
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
//! | `protect_cross_site`, `websocket_disallowed` | `http://blocked.localhost:A` | `http://127.0.0.1:B` | cross-site, not allowed |
//! | `protect_same_site` | `http://evil.app.localhost:A` | `http://app.localhost:B` | same site (`app.localhost`), not allowed |
//! | `protect_allowed`, `websocket_allowed` | `http://localhost:A` | `http://127.0.0.1:B` | cross-site, allowed |
//!
//! The two cross-site scenarios also run with the engine's setting that lets cross-site responses
//! set cookies (`*_3pc_allowed`: Chromium's "Allow third-party cookies", Firefox's
//! `network.cookie.cookieBehavior = 0`, `cog --cookie-store=always`). All four cookie scenarios
//! and these two also run over HTTPS (`https_*`), with a certificate for `127.0.0.1` and
//! `localhost` made by the test ([`tls`]) that each engine is told to accept. All three engines
//! resolve `localhost` and `*.localhost` to loopback by themselves, without DNS. The API allows
//! pages from `127.0.0.1` and `localhost` on any port and either scheme (`api::api_cors`), so the
//! origins need no run-time configuration and the API stays a plain `rest_root_module!`.
//!
//! # Cookies
//!
//! The cookie cases set one cookie per attribute combination (`/cookies/set/{variant}`), then one
//! credentialed request (`/cookies/check`) shows which of them the browser sent back. The
//! expected results are the per-engine tables in [`cookies`], documented in `docs/COOKIES.md`;
//! every cookie scenario prints the column it observed, and on a mismatch the test fails with it.
//! `cookie_table_in_the_docs_is_the_one_asserted` checks that `docs/COOKIES.md` shows those
//! tables.
//! The `set_cookie` round trip (`/session`, then `/session/check`) is asserted in every scenario:
//! the handler sees the cookie wherever the engine keeps `set_cookie`'s defaults, and sees none
//! where the engine's table says it refuses them (WebKit cross-site, except over HTTPS with
//! `--cookie-store=always`).
//!
//! # Protection beyond CORS
//!
//! The protection scenarios ([`protect`]) run against a second API, `ProtectedApiModule`: the
//! same CORS options with `protect_cross_origin(true)`, a `POST /protected` whose handler records
//! each call, and a WebSocket echo at `/ws`. A page submits a form into a hidden frame and sends
//! a `no-cors` `POST` (both sent without a preflight, neither readable by script), or opens a
//! WebSocket; the server's log shows what arrived, with `Sec-Fetch-Site` and the status of the
//! answer, and the handler's record shows whether it ran. What each engine sends is a table in
//! `protect.rs`: WebKit 2.38 sends no `Sec-Fetch-Site`, so its posts are refused on `Origin`.
//!
//! # The demo
//!
//! The demo scenario runs `examples/browser_demo.rs` (included as a module) in each engine,
//! same-site and cross-site, checks the verdicts its page sends back, and takes a screenshot
//! ([`demo`]): Chromium's `--screenshot` with `--virtual-time-budget`, Firefox's `--screenshot`,
//! and WebKit's through `WPEWebDriver`. The demo's page holds its load event until its results
//! are in (a hidden image that the page server answers after them), so a screenshot taken at the
//! load event shows the finished page.
//!
//! # Determinism and time
//!
//! Cases run in sequence; distinct query strings keep one case's preflight from being answered
//! from the cache of another; every wait is bounded, and a browser that exits or hangs fails its
//! test with the end of its output (the page's own waits, for a frame or a WebSocket, end after
//! ten seconds). The whole file takes 60 to 90 seconds on two cores, most of it Firefox's
//! start-up (about three seconds per page, twenty-one times; the other engines run beside it).
//!
//! # Running
//!
//! The browsers are `$CHROMIUM` (or `chromium`, `chromium-browser`, `google-chrome`,
//! `google-chrome-stable` on `PATH`), `$FIREFOX` (or `firefox-esr`, `firefox`) and `$COG` (or
//! `cog`); WebKit's screenshot also needs `WPEWebDriver` (Debian package `wpewebkit-driver`).
//! Without an engine, its tests print why they skipped, except with `CI=true`, where a missing
//! engine fails them. `UPDATE_SCREENSHOT=1` also writes the demo's same-site screenshots to
//! `docs/browser_demo_{chromium,firefox,webkit}.png` (they always go to `CARGO_TARGET_TMPDIR`),
//! reduced to a 128-colour palette with `pngquant` when it is installed.

mod api;
mod cookies;
mod demo;
mod engine;
mod page;
mod protect;
mod scenario;
mod tls;
mod webdriver;

use axum::Router;
use cors_axum::prelude::*;

use crate::browser::api::{ApiModule, is_loopback_page};
use crate::browser::cookies::{Column, check_cookie_findings, column_named, expected};
use crate::browser::engine::{Browser, Engine};
use crate::browser::page::APP_TOKEN;
use crate::browser::scenario::{Scenario, cases, cookie_cases, run_scenario};

#[path = "../../../examples/browser_demo.rs"]
#[allow(dead_code, unreachable_pub)]
mod browser_demo;

use crate::api as app;

/// One test per engine for a scenario, in a module named after it: `name::chromium`,
/// `name::firefox`, `name::webkit`. Each runs `scenario(engine)`, which returns at once (after
/// saying why) when the engine is not installed outside CI.
macro_rules! in_every_engine {
    ($($(#[$doc:meta])* $name:ident => $scenario:path;)*) => {$(
        $(#[$doc])*
        mod $name {
            use crate::browser::engine::Engine;

            #[tokio::test]
            async fn chromium() {
                $scenario(Engine::Chromium).await;
            }

            #[tokio::test]
            async fn firefox() {
                $scenario(Engine::Firefox).await;
            }

            #[tokio::test]
            async fn webkit() {
                $scenario(Engine::WebKit).await;
            }
        }
    )*};
}

in_every_engine! {
    /// Every request kind from an allowed page on the same site: simple, preflighted, refused
    /// preflights, credentials, exposed headers, preflight caching, cookies.
    same_site_requests_cookies_exposed_headers_and_preflight_cache => super::same_site_requests;
    /// Same site on `localhost`: the cookie round trip and the cookie attributes.
    same_site_localhost_cookies => super::same_site_localhost;
    /// Cross-site, page on `localhost`, API on `127.0.0.1`.
    cross_site_from_localhost_page => super::cross_site_from_localhost_page;
    /// Cross-site, page on `127.0.0.1`, API on `localhost`.
    cross_site_from_ip_page => super::cross_site_from_ip_page;
    /// Cross-site both ways, with the engine's setting that lets cross-site responses set cookies.
    cross_site_with_third_party_cookies_allowed => super::cross_site_3pc_allowed;
    /// Same site over HTTPS, on `127.0.0.1` and on `localhost`.
    https_same_site_cookies => super::https_same_site;
    /// Cross-site over HTTPS, both ways.
    https_cross_site_cookies => super::https_cross_site;
    /// Cross-site over HTTPS, both ways, with third-party cookies allowed.
    https_cross_site_with_third_party_cookies_allowed => super::https_cross_site_3pc_allowed;
    /// The example application's bearer-token API and its feature module.
    bearer_token_api_and_feature_module_of_the_example_app => super::example_app_scenario;
    /// A page on an origin that is not allowed.
    origin_not_allowed_is_blocked => super::origin_not_allowed;
    /// A form post and a `no-cors` post from a disallowed cross-site page to a protected route:
    /// both refused with `403`, the handler never runs.
    protected_post_from_a_disallowed_cross_site_origin_is_refused =>
        crate::browser::protect::disallowed_cross_site;
    /// The same from a disallowed page on the same site.
    protected_post_from_a_disallowed_same_site_origin_is_refused =>
        crate::browser::protect::disallowed_same_site;
    /// The same from an allowed cross-site page: the handler runs once per post.
    protected_post_from_an_allowed_origin_reaches_the_handler =>
        crate::browser::protect::allowed_cross_site;
    /// A WebSocket from an allowed page opens and echoes.
    websocket_from_an_allowed_origin_echoes => crate::browser::protect::websocket_allowed;
    /// A WebSocket from a disallowed page fails without opening; its handshake got `403`.
    websocket_from_a_disallowed_origin_is_refused => crate::browser::protect::websocket_disallowed;
    /// The browser demo, same-site and cross-site, with a screenshot.
    browser_demo_passes_same_site_and_cross_site => crate::browser::demo::browser_demo;
}

/// `docs/COOKIES.md` shows the tables the cookie scenarios assert.
#[test]
fn cookie_table_in_the_docs_is_the_one_asserted() {
    let docs = include_str!("../../../docs/COOKIES.md");
    let table = cookies::markdown_table();
    assert!(
        docs.contains(&table),
        "docs/COOKIES.md should have the table that tests/it/browser/cookies.rs asserts:\n{table}"
    );
}

// ---------------------------------------------------------------------------------------------
// The scenarios.
// ---------------------------------------------------------------------------------------------

/// The API of the scenarios.
fn api() -> Router {
    ApiModule::router().expect("the API builds")
}

/// Every request kind from an allowed page on the same site: simple, preflighted, refused
/// preflights, credentials, exposed headers, preflight caching, cookies.
async fn same_site_requests(engine: Engine) {
    let Some(browser) = engine.browser() else {
        return;
    };
    let column = column_named("same_site_ip");
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
    let outcome = run_scenario(browser, &Scenario::from(column), &cases, api()).await;
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
    session_round_trip(engine, &column, &outcome);

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

    check_cookie_findings(engine, &column, &outcome);
}

async fn same_site_localhost(engine: Engine) {
    cookie_scenarios(engine, &["same_site_localhost"]).await;
}

async fn cross_site_from_localhost_page(engine: Engine) {
    cookie_scenarios(engine, &["cross_site_localhost_page"]).await;
}

async fn cross_site_from_ip_page(engine: Engine) {
    cookie_scenarios(engine, &["cross_site_ip_page"]).await;
}

async fn cross_site_3pc_allowed(engine: Engine) {
    cookie_scenarios(
        engine,
        &[
            "cross_site_localhost_page_3pc_allowed",
            "cross_site_ip_page_3pc_allowed",
        ],
    )
    .await;
}

async fn https_same_site(engine: Engine) {
    cookie_scenarios(engine, &["https_same_site_ip", "https_same_site_localhost"]).await;
}

async fn https_cross_site(engine: Engine) {
    cookie_scenarios(
        engine,
        &[
            "https_cross_site_localhost_page",
            "https_cross_site_ip_page",
        ],
    )
    .await;
}

async fn https_cross_site_3pc_allowed(engine: Engine) {
    cookie_scenarios(
        engine,
        &[
            "https_cross_site_localhost_page_3pc_allowed",
            "https_cross_site_ip_page_3pc_allowed",
        ],
    )
    .await;
}

/// Each of the cookie `columns` in turn: simple and preflighted requests, the `set_cookie`
/// round trip and the cookie attributes.
async fn cookie_scenarios(engine: Engine, columns: &[&str]) {
    let Some(browser) = engine.browser() else {
        return;
    };
    for column in columns {
        cookie_scenario(browser, &column_named(column)).await;
    }
}

async fn cookie_scenario(browser: &Browser, column: &Column) {
    let mut cases = cases(&[
        "simple_get",
        "preflight_post",
        "session_start",
        "session_check",
    ]);
    cases.extend(cookie_cases());
    let outcome = run_scenario(browser, &Scenario::from(*column), &cases, api()).await;
    let (report, wire) = (&outcome.report, &outcome.wire);

    report.ok("simple_get", 200, "items");
    report.ok("preflight_post", 200, r#"created {"name":"widget"}"#);
    assert_eq!(wire.preflights("/items?case=post"), 1);

    session_round_trip(browser.engine, column, &outcome);
    check_cookie_findings(browser.engine, column, &outcome);
}

/// `set_cookie` on `/session`, then `/session/check`: the handler sees the cookie where the
/// engine keeps `set_cookie`'s defaults in `column`, and no cookie where its table says it
/// refuses them.
fn session_round_trip(engine: Engine, column: &Column, outcome: &scenario::Outcome) {
    let (report, wire) = (&outcome.report, &outcome.wire);
    report.ok("session_start", 200, "session started");
    let seen = wire.cookies_seen_by("/session/check");
    if expected(engine, column, "default") {
        report.ok("session_check", 200, "cookie: session=abc%20123");
        assert_eq!(
            seen,
            ["session=abc%20123"],
            "{}: the handler did not get the cookie set by `set_cookie`",
            column.name
        );
    } else {
        // The documented refusal: the credentialed response was readable, the cookie dropped.
        report.ok("session_check", 200, "cookie:");
        assert_eq!(
            seen,
            [""],
            "{}: {} kept `set_cookie`'s cookie, unlike its table in docs/COOKIES.md",
            column.name,
            outcome.version
        );
    }
}

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
    app::application(&config, &Default::default())
        .router()
        .expect("the example application builds")
        .with_state(app::AppState::default())
}

/// The example application, cross-site (page on `localhost`, API on `127.0.0.1`): its
/// bearer-token guard runs inside CORS, so the preflight of a request with `Authorization`
/// passes, a request without the token gets a `401` the page can read, and one with it gets
/// through; the users module mounted under `/api/v1` is covered by the root's CORS, and a
/// mistyped path gets a `404` the page can read, preflighted or not. Its session cookie
/// (`set_cookie`) comes back where the engine keeps cross-site cookies over HTTP.
async fn example_app_scenario(engine: Engine) {
    let Some(browser) = engine.browser() else {
        return;
    };
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
    let outcome = run_scenario(browser, &scenario, &cases, example_app()).await;
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
    if expected(
        engine,
        &column_named("cross_site_localhost_page"),
        "default",
    ) {
        report.ok("app_session", 200, "cookie: session=example-session");
    } else {
        // WebKit over plain HTTP: the `Secure` cross-site cookie is dropped (docs/COOKIES.md).
        report.ok("app_session", 200, "cookie:");
    }
}

/// A page on an origin that is not allowed: the browser blocks every response, and sends no
/// actual request after a preflight.
async fn origin_not_allowed(engine: Engine) {
    let Some(browser) = engine.browser() else {
        return;
    };
    let scenario = Scenario::new("origin_not_allowed", "blocked.localhost", "127.0.0.1");
    let cases = cases(&[
        "simple_get",
        "preflight_post",
        "put",
        "delete",
        "session_start",
        "exposed_headers",
    ]);
    let outcome = run_scenario(browser, &scenario, &cases, api()).await;
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
