//! Reloading CORS options while the application serves: validated first, atomic for each
//! request, for a module's paths, the `404` answer, and a plain `CorsLayer`.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use axum::Router;
use common::{Answer, request, send};
use cors_axum::CorsLayer;
use cors_axum::cors::CorsReload;
use cors_axum::prelude::*;
use http::StatusCode;

const A: &str = "https://a.example";
const B: &str = "https://b.example";

/// Policy A allows origin A, policy B origin B; each has its own max-age and exposed header,
/// so that an answer shows which policy wrote it.
fn policy(which: char) -> CorsOptions {
    match which {
        'a' => CorsOptions::new()
            .origin(A)
            .max_age(111)
            .expose_headers(["x-from-a"]),
        _ => CorsOptions::new()
            .origin(B)
            .max_age(222)
            .expose_headers(["x-from-b"]),
    }
}

struct Items;

#[controller("items")]
impl Items {
    #[route("GET")]
    async fn list() -> &'static str {
        "items"
    }

    #[route("PUT")]
    async fn put() -> &'static str {
        "put"
    }
}

rest_root_module! {
    struct App { imports: [CorsModule], controllers: [Items] }
}

/// The application with policy A, and the handle that reloads it.
fn reloadable_app() -> (CorsReload, Router) {
    let reload = CorsReload::new();
    let router = App::builder()
        .provide(policy('a'))
        .cors_reload(&reload)
        .router()
        .unwrap();
    (reload, router)
}

fn preflight(origin: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![("origin", origin), ("access-control-request-method", "PUT")]
}

/// Which policy wrote `answer` to a request from `origin`: `Some('a')`, `Some('b')`, or `None`
/// for a refusal; panics on a mix of the two.
fn written_by(answer: &Answer, origin: &str, preflight: bool) -> Option<char> {
    let allow_origin = answer.header("access-control-allow-origin");
    let marker = if preflight {
        answer.header("access-control-max-age").map(|v| match v {
            "111" => 'a',
            "222" => 'b',
            other => panic!("max-age {other}"),
        })
    } else {
        answer
            .header("access-control-expose-headers")
            .map(|v| match v {
                "x-from-a" => 'a',
                "x-from-b" => 'b',
                other => panic!("exposed {other}"),
            })
    };
    match (allow_origin, marker) {
        (None, None) => None,
        (Some(o), Some(m)) => {
            assert_eq!(o, origin);
            let expected = if origin == A { 'a' } else { 'b' };
            assert_eq!(m, expected, "origin {origin} granted by the other policy");
            Some(m)
        }
        other => panic!("a mixed answer: {other:?} {:?}", answer.headers),
    }
}

#[tokio::test]
async fn a_reload_replaces_the_applications_options_everywhere() {
    let (reload, router) = reloadable_app();
    let answer = send(&router, request("OPTIONS", "/items", &preflight(A))).await;
    assert_eq!(written_by(&answer, A, true), Some('a'));
    let answer = send(&router, request("GET", "/nowhere", &[("origin", A)])).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.header("access-control-allow-origin"), Some(A));

    reload.reload(policy('b')).unwrap();
    let answer = send(&router, request("OPTIONS", "/items", &preflight(A))).await;
    assert_eq!(written_by(&answer, A, true), None);
    let answer = send(&router, request("OPTIONS", "/items", &preflight(B))).await;
    assert_eq!(written_by(&answer, B, true), Some('b'));
    let answer = send(&router, request("GET", "/items", &[("origin", B)])).await;
    assert_eq!(written_by(&answer, B, false), Some('b'));
    let answer = send(&router, request("GET", "/nowhere", &[("origin", B)])).await;
    assert_eq!(answer.header("access-control-allow-origin"), Some(B));
}

#[tokio::test]
async fn an_invalid_reload_is_an_error_and_the_old_policy_stays() {
    let (reload, router) = reloadable_app();
    let err = reload
        .reload(CorsOptions::new().origin("https://b.example/path"))
        .unwrap_err();
    assert_eq!(err.config_error().field(), "origin");
    assert_eq!(err.module(), Some("App"));
    assert!(
        err.to_string()
            .starts_with("invalid CORS options in the options given to `CorsReload::reload`"),
        "{err}"
    );
    let err = reload
        .reload(CorsOptions::new().credentials(true))
        .unwrap_err();
    assert_eq!(err.config_error().field(), "credentials", "{err:?}");
    let answer = send(&router, request("OPTIONS", "/items", &preflight(A))).await;
    assert_eq!(written_by(&answer, A, true), Some('a'));
}

#[tokio::test]
async fn a_plain_cors_layer_reloads_too() {
    let reload = CorsReload::new();
    let layer = CorsLayer::new(policy('a')).unwrap().reloaded_by(&reload);
    let router: Router = Router::new()
        .route("/", axum::routing::get(|| async { "root" }))
        .layer(layer);
    let answer = send(&router, request("GET", "/", &[("origin", A)])).await;
    assert_eq!(written_by(&answer, A, false), Some('a'));
    reload.reload(policy('b')).unwrap();
    let answer = send(&router, request("GET", "/", &[("origin", A)])).await;
    assert_eq!(written_by(&answer, A, false), None);
    let answer = send(&router, request("GET", "/", &[("origin", B)])).await;
    assert_eq!(written_by(&answer, B, false), Some('b'));
    assert!(reload.reload(CorsOptions::new().origin("nope")).is_err());
    let answer = send(&router, request("GET", "/", &[("origin", B)])).await;
    assert_eq!(written_by(&answer, B, false), Some('b'));
}

/// Four clients send preflights and requests from both origins while the options switch
/// between the two policies hundreds of times: every answer is wholly one policy's, none is an
/// error, and both policies were seen.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reloads_under_load_give_no_mixed_answers_and_no_errors() {
    let (reload, router) = reloadable_app();
    let running = Arc::new(AtomicBool::new(true));
    let seen = Arc::new([
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    ]);

    let mut clients = Vec::new();
    for client in 0..4 {
        let router = router.clone();
        let running = running.clone();
        let seen = seen.clone();
        clients.push(tokio::spawn(async move {
            let mut sent = 0;
            while running.load(Ordering::Relaxed) || sent < 500 {
                let origin = if (sent + client) % 2 == 0 { A } else { B };
                let preflight_request = sent % 3 != 0;
                let answer = if preflight_request {
                    send(&router, request("OPTIONS", "/items", &preflight(origin))).await
                } else {
                    send(&router, request("GET", "/items", &[("origin", origin)])).await
                };
                assert!(answer.status.is_success(), "{:?}", answer.status);
                let slot = match written_by(&answer, origin, preflight_request) {
                    Some('a') => 0,
                    Some(_) => 1,
                    None => 2,
                };
                seen[slot].fetch_add(1, Ordering::Relaxed);
                sent += 1;
            }
            sent
        }));
    }
    let reloader = {
        let reload = reload.clone();
        tokio::task::spawn_blocking(move || {
            for i in 0..400 {
                let which = if i % 2 == 0 { 'b' } else { 'a' };
                reload.reload(policy(which)).unwrap();
                std::thread::yield_now();
            }
        })
    };
    reloader.await.unwrap();
    running.store(false, Ordering::Relaxed);
    let mut total = 0;
    for client in clients {
        total += client.await.unwrap();
    }
    let [a, b, refused] = seen.each_ref().map(|n| n.load(Ordering::Relaxed));
    eprintln!(
        "{total} answers during 400 reloads: {a} from policy A, {b} from B, {refused} refused"
    );
    assert!(total >= 2000);
    assert!(a > 0 && b > 0 && refused > 0, "{a} {b} {refused}");
}
