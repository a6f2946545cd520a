//! Protection beyond CORS, in browsers: a page on a disallowed origin submits a form and sends a
//! `no-cors` `POST` to a route under `protect_cross_origin(true)`, and opens a WebSocket to a
//! path under CORS.
//!
//! CORS only decides what script may read, and neither a form's navigation nor a `no-cors` fetch
//! lets script read anything, so the browser sends both without asking (no preflight): only the
//! server can refuse them. The proof is on the server's side: the handler records each call
//! ([`Wire::handler_saw`]), and the wire log shows that the requests arrived and got `403`, with
//! the `Sec-Fetch-Site` and `Origin` they came with. Browsers apply no CORS to WebSockets
//! either: the handshake is refused by the server, and script sees a socket that fails before it
//! opens.
//!
//! # What each engine sends
//!
//! Observed on Debian 12's engines, and asserted ([`sec_fetch_site`], [`handshake`]):
//!
//! | engine | form and `no-cors` post, cross-site | the same, same site | WebSocket handshake |
//! |---|---|---|---|
//! | Chromium 156 | `Sec-Fetch-Site: cross-site` | `same-site` | no `Sec-Fetch-Site` |
//! | Firefox 153 ESR | `cross-site` | `same-site` | `cross-site` |
//! | WPE WebKit 2.38 (cog) | no `Sec-Fetch-Site` | none | none |
//!
//! WebKit gained Fetch Metadata after this release (Safari has it from 16.4, 2023); the WPE
//! WebKit 2.38 of Debian 12 sends none, so its posts are refused by the fallback that compares
//! `Origin` with `Host`. Every
//! engine sends `Origin` with the posts and the handshake (which is refused on `Origin` alone,
//! whatever `Sec-Fetch-Site` says). To script, in every engine, the form's frame shows a document
//! of another origin and the `no-cors` fetch an opaque response (status `0`), refused or not; a
//! WebSocket whose handshake got `403` fires `error`, then `close` with code `1006`, not clean,
//! and never `open`.

use std::sync::Arc;

use axum::Extension;
use axum::Router;
use axum::extract::ws::{Message, WebSocketUpgrade};
use cors_axum::prelude::*;

use crate::browser::api::{Received, Wire, api_cors};
use crate::browser::engine::Engine;
use crate::browser::scenario::{Outcome, Scenario, cases, run_scenario};

/// `POST /protected`: records each call, with its query (which case sent it).
pub(crate) struct ProtectedController;

#[controller]
impl ProtectedController {
    #[route("POST", "protected")]
    async fn protected(ctx: RequestContext, Extension(wire): Extension<Arc<Wire>>) -> Response {
        wire.handler_saw("/protected", ctx.query().unwrap_or_default());
        ctx.send("done")
    }

    /// Echoes text and binary messages, as the example application's `/ws` does.
    #[route("GET", "ws")]
    async fn echo(upgrade: WebSocketUpgrade) -> Response {
        upgrade.on_upgrade(|mut socket| async move {
            while let Some(Ok(message)) = socket.recv().await {
                let echo = match message {
                    Message::Text(_) | Message::Binary(_) => message,
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => continue,
                };
                if socket.send(echo).await.is_err() {
                    break;
                }
            }
        })
    }
}

rest_root_module! {
    /// The API of the protection scenarios: the browser tests' CORS options, with cross-origin
    /// protection on.
    pub(crate) struct ProtectedApiModule {
        imports: [CorsModule::with_opts(api_cors().protect_cross_origin(true))],
        controllers: [ProtectedController],
    }
}

fn api() -> Router {
    ProtectedApiModule::router().expect("the protected API builds")
}

/// The `Sec-Fetch-Site` `engine` sends where the page's relation to the API is `relation`
/// (`cross-site`, `same-site`): the table in this module's docs.
fn sec_fetch_site(engine: Engine, relation: &'static str) -> Option<&'static str> {
    match engine {
        Engine::Chromium | Engine::Firefox => Some(relation),
        Engine::WebKit => None,
    }
}

/// The `Sec-Fetch-Site` `engine` sends on a WebSocket handshake from a page that is cross-site
/// to the API.
fn handshake_sec_fetch_site(engine: Engine) -> Option<&'static str> {
    match engine {
        Engine::Firefox => Some("cross-site"),
        Engine::Chromium | Engine::WebKit => None,
    }
}

/// The form post and the `no-cors` fetch, each once, as the API received them: from the
/// scenario's page origin, with what `engine` sends as `Sec-Fetch-Site` for `relation`.
fn posts(
    outcome: &Outcome,
    engine: Engine,
    page_host: &str,
    relation: &'static str,
) -> [Received; 2] {
    let wire = &outcome.wire;
    ["/protected?case=form", "/protected?case=no-cors"].map(|target| {
        let received = wire.received("POST", target);
        let [request] = received.as_slice() else {
            panic!(
                "{}: the browser should have sent {target} once\n{}",
                outcome.version,
                wire.dump()
            );
        };
        assert!(
            request
                .origin
                .as_deref()
                .is_some_and(|o| o.starts_with(&format!("http://{page_host}:"))),
            "{}: {target} without the page's Origin\n{}",
            outcome.version,
            wire.dump()
        );
        assert_eq!(
            request.sec_fetch_site.as_deref(),
            sec_fetch_site(engine, relation),
            "{}: {target}'s Sec-Fetch-Site differs from the table in tests/it/browser/protect.rs\n{}",
            outcome.version,
            wire.dump()
        );
        request.clone()
    })
}

/// What script saw of the form post and the `no-cors` fetch: the frame showed the answer (a
/// document of another origin, unreadable whatever its status), the fetch got an opaque
/// response.
fn assert_script_saw_nothing(outcome: &Outcome) {
    let form = outcome.report.case("protected_form");
    assert_eq!(form["outcome"], "navigated", "{}: {form}", outcome.version);
    let no_cors = outcome.report.case("protected_no_cors");
    assert_eq!(no_cors["outcome"], "ok", "{}: {no_cors}", outcome.version);
    assert_eq!(no_cors["type"], "opaque", "{}: {no_cors}", outcome.version);
    assert_eq!(no_cors["status"], 0, "{}: {no_cors}", outcome.version);
}

/// The form post and the `no-cors` fetch from the page of `scenario`, `relation` to the API:
/// both reach the server, which answers each `status`; the handler sees `handler_saw` (the
/// query of each post it ran for). Script sees nothing of either answer.
async fn posts_answered(
    engine: Engine,
    scenario: Scenario,
    relation: &'static str,
    status: u16,
    handler_saw: &[&str],
) {
    let Some(browser) = engine.browser() else {
        return;
    };
    let outcome = run_scenario(
        browser,
        &scenario,
        &cases(&["protected_form", "protected_no_cors"]),
        api(),
    )
    .await;
    assert_script_saw_nothing(&outcome);
    for request in posts(&outcome, engine, scenario.page_host, relation) {
        assert_eq!(
            request.status,
            Some(status),
            "{}: {} should have been answered {status}\n{}",
            outcome.version,
            request.target,
            outcome.wire.dump()
        );
    }
    assert_eq!(
        outcome.wire.seen_by("/protected"),
        handler_saw,
        "{}: what the handler ran for",
        outcome.version
    );
}

/// Cross-site: page on `blocked.localhost`, API on `127.0.0.1`, the page's origin not allowed:
/// both posts get `403`, and the handler never runs.
pub(crate) async fn disallowed_cross_site(engine: Engine) {
    let scenario = Scenario::new("protect_cross_site", "blocked.localhost", "127.0.0.1");
    posts_answered(engine, scenario, "cross-site", 403, &[]).await;
}

/// Same site: page on `evil.app.localhost`, API on `app.localhost` (one site, `app.localhost`,
/// two origins), the page's origin not allowed: refused as cross-site.
pub(crate) async fn disallowed_same_site(engine: Engine) {
    let scenario = Scenario::new("protect_same_site", "evil.app.localhost", "app.localhost");
    posts_answered(engine, scenario, "same-site", 403, &[]).await;
}

/// The control: the same posts from an allowed page, cross-site (page on `localhost`, API on
/// `127.0.0.1`), reach the handler once each.
pub(crate) async fn allowed_cross_site(engine: Engine) {
    let scenario = Scenario::new("protect_allowed", "localhost", "127.0.0.1");
    posts_answered(
        engine,
        scenario,
        "cross-site",
        200,
        &["case=form", "case=no-cors"],
    )
    .await;
}

/// The WebSocket handshake of a scenario (page cross-site to the API) as the API received it:
/// one, from the page's origin, with what `engine` sends as `Sec-Fetch-Site`.
fn handshake(outcome: &Outcome, engine: Engine, page_host: &str) -> Received {
    let received = outcome.wire.received("GET", "/ws");
    let [request] = received.as_slice() else {
        panic!(
            "{}: the browser should have sent one handshake\n{}",
            outcome.version,
            outcome.wire.dump()
        );
    };
    assert!(
        request
            .origin
            .as_deref()
            .is_some_and(|o| o.starts_with(&format!("http://{page_host}:"))),
        "{}: a handshake without the page's Origin\n{}",
        outcome.version,
        outcome.wire.dump()
    );
    assert_eq!(
        request.sec_fetch_site.as_deref(),
        handshake_sec_fetch_site(engine),
        "{}: the handshake's Sec-Fetch-Site differs from the table in tests/it/browser/protect.rs\n{}",
        outcome.version,
        outcome.wire.dump()
    );
    request.clone()
}

/// A page on an allowed origin, cross-site: its socket opens, and the echo comes back.
pub(crate) async fn websocket_allowed(engine: Engine) {
    let Some(browser) = engine.browser() else {
        return;
    };
    let scenario = Scenario::new("websocket_allowed", "localhost", "127.0.0.1");
    let outcome = run_scenario(browser, &scenario, &cases(&["ws_echo"]), api()).await;
    let echo = outcome.report.case("ws_echo");
    assert_eq!(echo["outcome"], "open", "{}: {echo}", outcome.version);
    assert_eq!(
        echo["echo"], "hello from the page",
        "{}: {echo}",
        outcome.version
    );
    assert_eq!(echo["events"][0], "open", "{}: {echo}", outcome.version);
    let request = handshake(&outcome, engine, scenario.page_host);
    assert_eq!(request.status, Some(101), "{}", outcome.wire.dump());
}

/// A page on a disallowed origin: the handshake gets `403`, and script sees the socket fail
/// without opening.
pub(crate) async fn websocket_disallowed(engine: Engine) {
    let Some(browser) = engine.browser() else {
        return;
    };
    let scenario = Scenario::new("websocket_disallowed", "blocked.localhost", "127.0.0.1");
    let outcome = run_scenario(browser, &scenario, &cases(&["ws_echo"]), api()).await;
    let refused = outcome.report.case("ws_echo");
    assert_eq!(
        refused["outcome"], "refused",
        "{}: {refused}",
        outcome.version
    );
    assert_eq!(
        refused["events"],
        serde_json::json!(["error", "close 1006"]),
        "{}: {refused}",
        outcome.version
    );
    assert_eq!(refused["clean"], false, "{}: {refused}", outcome.version);
    let request = handshake(&outcome, engine, scenario.page_host);
    assert_eq!(request.status, Some(403), "{}", outcome.wire.dump());
}
