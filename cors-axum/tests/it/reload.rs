//! Reloading CORS options while the application serves: validated first, atomic for each
//! request, for a module's paths, the `404` answer, and a plain `CorsLayer`; never widened by an
//! option left out; and, with the `watch` feature, from a file changed as deployments change it.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use axum::Router;
use common::{Answer, request, send};
use cors_axum::cors::CorsLayer;
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

/// The generation of the plan that answered a preflight from origin A: its max-age.
async fn generation(router: &Router, path: &str) -> u64 {
    let answer = send(router, request("OPTIONS", path, &preflight(A))).await;
    answer
        .header("access-control-max-age")
        .unwrap_or_else(|| panic!("{path}: no max-age, {:?}", answer.headers))
        .parse()
        .unwrap()
}

/// A reload swaps the plans of every path at once: while reloads number the plans 1, 2, 3..,
/// a client asking one path then another never finds the second older than the first (with a
/// store per path, the second path would lag behind now and then).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_swaps_every_paths_plan_at_once() {
    let reload = CorsReload::new();
    let numbered = |i: u64| CorsOptions::new().origin(A).max_age(i);
    let router = App::builder()
        .provide(numbered(1))
        .cors_reload(&reload)
        .router()
        .unwrap();
    let running = Arc::new(AtomicBool::new(true));
    let client = {
        let (router, running) = (router.clone(), running.clone());
        tokio::spawn(async move {
            let (mut last, mut asked) = (0, 0);
            // Bounded: the reloads end, and then at most 100,000 pairs more.
            while running.load(Ordering::Relaxed) && asked < 100_000 {
                // The module's path and the `404` answer, in turn first.
                let (first, second) = if asked % 2 == 0 {
                    ("/items", "/nowhere")
                } else {
                    ("/nowhere", "/items")
                };
                let a = generation(&router, first).await;
                let b = generation(&router, second).await;
                assert!(a >= last, "{first} went back from {last} to {a}");
                assert!(b >= a, "{first} had plan {a}, then {second} the older {b}");
                (last, asked) = (b, asked + 1);
            }
            (last, asked)
        })
    };
    let reloader = tokio::task::spawn_blocking(move || {
        for i in 2..=2_000 {
            reload.reload(numbered(i)).unwrap();
        }
    });
    reloader.await.unwrap();
    running.store(false, Ordering::Relaxed);
    let (last, asked) = client.await.unwrap();
    eprintln!("{asked} pairs of requests during 2,000 reloads, last plan seen {last}");
    assert!(asked > 0);
    assert_eq!(generation(&router, "/items").await, 2_000);
    assert_eq!(generation(&router, "/nowhere").await, 2_000);
}

const EVIL: &str = "https://evil.example";

/// A cross-site `PUT` (unsafe) from `origin`, as a browser sends it.
fn cross_site_put(origin: &'static str) -> http::Request<axum::body::Body> {
    request(
        "PUT",
        "/items",
        &[("origin", origin), ("sec-fetch-site", "cross-site")],
    )
}

/// The application with origin A and cross-origin protection set in code, and its handle.
fn protected_app() -> (CorsReload, Router) {
    let reload = CorsReload::new();
    let router = App::builder()
        .provide(CorsOptions::new().origin(A).protect_cross_origin(true))
        .cors_reload(&reload)
        .router()
        .unwrap();
    (reload, router)
}

fn from_json(text: &str) -> CorsOptions {
    serde_json::from_str(text).unwrap()
}

/// A reload that leaves out an option set in force, whose default allows more (`{}`: any
/// origin; no `protect_cross_origin`: protection off), is refused, naming the option and how to
/// mean it; said explicitly, the same widening is applied.
#[tokio::test]
async fn a_reload_may_not_widen_the_options_in_force_by_leaving_one_out() {
    let (reload, router) = protected_app();
    let err = reload.reload(from_json("{}")).unwrap_err();
    assert!(err.widens(), "{err}");
    assert_eq!(err.config_error().field(), "origin");
    let cause = err.config_error().to_string();
    assert!(cause.contains("any origin (`*`)"), "{cause}");
    assert!(cause.contains(r#""origin": "*""#), "{cause}");
    assert!(
        cause.contains("`protect_cross_origin` is left out too"),
        "{cause}"
    );
    assert_eq!(
        err.to_string(),
        "the options given to `CorsReload::reload` would widen the options in force by \
         leaving one out; the options in force stay"
    );
    let err = reload
        .reload(from_json(&format!(r#"{{"origin": ["{B}"]}}"#)))
        .unwrap_err();
    assert!(err.widens());
    assert_eq!(err.config_error().field(), "protect_cross_origin");
    assert!(err.config_error().to_string().contains("switched off"));

    // Nothing changed: A only, and the cross-site `PUT` refused.
    let answer = send(&router, request("GET", "/items", &[("origin", A)])).await;
    assert_eq!(answer.header("access-control-allow-origin"), Some(A));
    let answer = send(&router, request("GET", "/items", &[("origin", EVIL)])).await;
    assert_eq!(answer.header("access-control-allow-origin"), None);
    let answer = send(&router, cross_site_put(EVIL)).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);

    // Said explicitly: applied.
    reload
        .reload(from_json(&format!(
            r#"{{"origin": ["{B}"], "protect_cross_origin": false}}"#
        )))
        .unwrap();
    let answer = send(&router, cross_site_put(EVIL)).await;
    assert_eq!(answer.status, StatusCode::OK);
    // `{}` leaves out the origin list now in force: still refused.
    assert!(reload.reload(from_json("{}")).unwrap_err().widens());
    reload.reload(from_json(r#"{"origin": "*"}"#)).unwrap();
    let answer = send(&router, request("GET", "/items", &[("origin", EVIL)])).await;
    assert_eq!(answer.header("access-control-allow-origin"), Some("*"));
}

/// The same for a plain `CorsLayer`: its options given to `CorsLayer::new` are in force.
#[tokio::test]
async fn a_plain_cors_layer_is_not_widened_by_an_option_left_out() {
    let reload = CorsReload::new();
    let layer = CorsLayer::new(
        CorsOptions::new()
            .origin(A)
            .methods(["GET"])
            .allow_headers(["x-a"]),
    )
    .unwrap()
    .reloaded_by(&reload);
    let router: Router = Router::new()
        .route("/", axum::routing::get(|| async { "root" }))
        .layer(layer);
    let err = reload
        .reload(CorsOptions::new().origin(B).methods(["GET"]))
        .unwrap_err();
    assert_eq!(err.config_error().field(), "allow_headers");
    let err = reload
        .reload(CorsOptions::new().origin(B).allow_headers(["x-a"]))
        .unwrap_err();
    assert_eq!(err.config_error().field(), "methods");
    let answer = send(&router, request("GET", "/", &[("origin", A)])).await;
    assert_eq!(answer.header("access-control-allow-origin"), Some(A));
    // Options that allow less are always accepted.
    reload
        .reload(
            CorsOptions::new()
                .origin(B)
                .methods(["GET"])
                .allow_headers(["x-a"]),
        )
        .unwrap();
    let answer = send(&router, request("GET", "/", &[("origin", B)])).await;
    assert_eq!(answer.header("access-control-allow-origin"), Some(B));
}

/// `CorsReload::watch_file` over a served application, the file changed on disk as editors,
/// symlinks, Kubernetes ConfigMaps and releases change it.
#[cfg(feature = "watch")]
mod watched {
    use std::path::{Path, PathBuf};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use cors_axum::cors::engine::BoxError;
    use cors_axum::cors::{CorsReload, FileWatch};
    use cors_axum::prelude::*;

    use super::common::wire::{http1, pipelined, serve};
    use super::{A, App, B, EVIL};

    const C: &str = "https://c.example";

    /// A folder of its own under the system's temporary folder, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let path =
                std::env::temp_dir().join(format!("cors-axum-watch-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Self(path)
        }

        fn join(&self, path: &str) -> PathBuf {
            self.0.join(path)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn options_of(origin: &str) -> String {
        format!(r#"{{"origin": ["{origin}"]}}"#)
    }

    /// Reads options as JSON, counting its calls; panics on a text that says `panic`.
    fn counting_reader(
        reads: &Arc<AtomicUsize>,
    ) -> impl Fn(&str) -> Result<CorsOptions, BoxError> + Send + 'static {
        let reads = reads.clone();
        move |text| {
            reads.fetch_add(1, Ordering::SeqCst);
            assert!(!text.contains("panic"), "the reader panics, as told");
            Ok(serde_json::from_str(text)?)
        }
    }

    /// The application with the options of `file`, served, and the watch of `file`.
    async fn served_watching(
        file: &Path,
        reads: &Arc<AtomicUsize>,
    ) -> (std::net::SocketAddr, FileWatch) {
        let options = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let reload = CorsReload::new();
        let router = App::builder()
            .provide::<CorsOptions>(options)
            .cors_reload(&reload)
            .router()
            .unwrap();
        let addr = serve(router).await;
        let watch = reload.watch_file(file, counting_reader(reads)).unwrap();
        (addr, watch)
    }

    /// Which of A, B, C and the evil origin are granted now, over the socket.
    async fn granted(addr: std::net::SocketAddr) -> Vec<&'static str> {
        let origins = [A, B, C, EVIL];
        let requests: Vec<_> = origins
            .iter()
            .map(|origin| http1("GET", "/items", &[("origin", origin)], ""))
            .collect();
        let answers = pipelined(addr, &requests).await;
        origins
            .into_iter()
            .zip(answers)
            .filter(|(origin, answer)| answer.header("access-control-allow-origin") == Some(origin))
            .map(|(origin, _)| origin)
            .collect()
    }

    /// Waits, at most five seconds, until exactly `origins` are granted.
    async fn until_granted(addr: std::net::SocketAddr, origins: &[&str]) {
        for _ in 0..100 {
            if granted(addr).await == origins {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "{:?} not granted within five seconds; granted: {:?}",
            origins,
            granted(addr).await
        );
    }

    /// Waits, at most five seconds, until the reader was called `n` times.
    async fn until_read(reads: &AtomicUsize, n: usize) {
        for _ in 0..100 {
            if reads.load(Ordering::SeqCst) >= n {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("read {} times, not {n}", reads.load(Ordering::SeqCst));
    }

    /// Long enough for a watch that would react to have reacted (ten times its rest).
    async fn quiet() {
        tokio::time::sleep(Duration::from_secs(1)).await;
    }

    #[cfg(unix)]
    fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
        std::os::unix::fs::symlink(target, link).unwrap();
    }

    /// A ConfigMap volume as the kubelet writes it: `cors.json -> ..data/cors.json`,
    /// `..data -> ..<timestamp>`, updated by writing a new timestamped folder, pointing
    /// `..data_tmp` at it, renaming that over `..data`, and removing the old folder.
    #[cfg(unix)]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn watch_file_sees_a_kubernetes_configmap_update() {
        let volume = Scratch::new("configmap");
        let write_version = |stamp: &str, origin: &str| {
            std::fs::create_dir(volume.join(stamp)).unwrap();
            std::fs::write(volume.join(stamp).join("cors.json"), options_of(origin)).unwrap();
        };
        let swap_to = |stamp: &str| {
            symlink(stamp, volume.join("..data_tmp"));
            std::fs::rename(volume.join("..data_tmp"), volume.join("..data")).unwrap();
        };
        write_version("..2026_11_26_01_00_00.1", A);
        symlink("..2026_11_26_01_00_00.1", volume.join("..data"));
        symlink("..data/cors.json", volume.join("cors.json"));
        let reads = Arc::new(AtomicUsize::new(0));
        let (addr, _watch) = served_watching(&volume.join("cors.json"), &reads).await;
        assert_eq!(granted(addr).await, [A]);

        write_version("..2026_11_26_02_00_00.2", B);
        swap_to("..2026_11_26_02_00_00.2");
        std::fs::remove_dir_all(volume.join("..2026_11_26_01_00_00.1")).unwrap();
        until_granted(addr, &[B]).await;

        // And the next update, through the folder the first one made.
        write_version("..2026_11_26_03_00_00.3", C);
        swap_to("..2026_11_26_03_00_00.3");
        std::fs::remove_dir_all(volume.join("..2026_11_26_02_00_00.2")).unwrap();
        until_granted(addr, &[C]).await;
        quiet().await;
        assert_eq!(reads.load(Ordering::SeqCst), 2, "one read per update");
    }

    /// The watched path is a symlink into another folder: edits there, in place or by a rename,
    /// are seen; so is the symlink pointed elsewhere.
    #[cfg(unix)]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn watch_file_follows_a_symlink_into_another_folder() {
        let scratch = Scratch::new("symlink");
        std::fs::create_dir(scratch.join("app")).unwrap();
        std::fs::create_dir(scratch.join("shared")).unwrap();
        std::fs::create_dir(scratch.join("other")).unwrap();
        std::fs::write(scratch.join("shared/cors.json"), options_of(A)).unwrap();
        symlink("../shared/cors.json", scratch.join("app/cors.json"));
        let reads = Arc::new(AtomicUsize::new(0));
        let (addr, _watch) = served_watching(&scratch.join("app/cors.json"), &reads).await;

        std::fs::write(scratch.join("shared/cors.json"), options_of(B)).unwrap();
        until_granted(addr, &[B]).await;
        std::fs::write(scratch.join("shared/cors.json.new"), options_of(C)).unwrap();
        std::fs::rename(
            scratch.join("shared/cors.json.new"),
            scratch.join("shared/cors.json"),
        )
        .unwrap();
        until_granted(addr, &[C]).await;

        // Pointed into a third folder, by an absolute path, then edited there.
        std::fs::write(scratch.join("other/cors.json"), options_of(A)).unwrap();
        symlink(
            scratch.join("other/cors.json"),
            scratch.join("app/cors.json.new"),
        );
        std::fs::rename(
            scratch.join("app/cors.json.new"),
            scratch.join("app/cors.json"),
        )
        .unwrap();
        until_granted(addr, &[A]).await;
        std::fs::write(scratch.join("other/cors.json"), options_of(B)).unwrap();
        until_granted(addr, &[B]).await;
    }

    /// Waits, at most one second, until exactly `origins` are granted: a swap of a symlink
    /// anywhere in the path is applied within it.
    #[cfg(unix)]
    async fn within_a_second(addr: std::net::SocketAddr, origins: &[&str]) {
        let start = std::time::Instant::now();
        until_granted(addr, origins).await;
        let took = start.elapsed();
        assert!(took < Duration::from_secs(1), "applied after {took:?}");
    }

    /// A symlink in the middle of the path, swapped as a release is (`current -> releases/v2`),
    /// and a ConfigMap's `..data` named in the path itself: each swap applied within a second,
    /// without waiting for the old folder to go.
    #[cfg(unix)]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn watch_file_follows_a_symlink_in_the_middle_of_its_path() {
        let scratch = Scratch::new("middle");
        for (version, origin) in [("v1", A), ("v2", B), ("v3", C)] {
            std::fs::create_dir_all(scratch.join(&format!("releases/{version}"))).unwrap();
            let file = scratch.join(&format!("releases/{version}/cors.json"));
            std::fs::write(file, options_of(origin)).unwrap();
        }
        symlink("releases/v1", scratch.join("current"));
        let swap_to = |version: &str| {
            symlink(format!("releases/{version}"), scratch.join("current.new"));
            std::fs::rename(scratch.join("current.new"), scratch.join("current")).unwrap();
        };
        let reads = Arc::new(AtomicUsize::new(0));
        let (addr, _watch) = served_watching(&scratch.join("current/cors.json"), &reads).await;
        assert_eq!(granted(addr).await, [A]);
        swap_to("v2");
        within_a_second(addr, &[B]).await;
        swap_to("v3");
        within_a_second(addr, &[C]).await;

        let volume = Scratch::new("data-named");
        for (stamp, origin) in [("..1", A), ("..2", B)] {
            std::fs::create_dir(volume.join(stamp)).unwrap();
            std::fs::write(volume.join(stamp).join("cors.json"), options_of(origin)).unwrap();
        }
        symlink("..1", volume.join("..data"));
        let (addr, _watch) = served_watching(&volume.join("..data/cors.json"), &reads).await;
        assert_eq!(granted(addr).await, [A]);
        symlink("..2", volume.join("..data_tmp"));
        std::fs::rename(volume.join("..data_tmp"), volume.join("..data")).unwrap();
        within_a_second(addr, &[B]).await;
    }

    /// The file's folder renamed away and a new one put in its place, as a release does: the
    /// new file is read, and the new folder watched from then on.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn watch_file_sees_its_folder_renamed_away_and_replaced() {
        let scratch = Scratch::new("folder-swap");
        std::fs::create_dir(scratch.join("conf")).unwrap();
        std::fs::write(scratch.join("conf/cors.json"), options_of(A)).unwrap();
        let reads = Arc::new(AtomicUsize::new(0));
        let (addr, _watch) = served_watching(&scratch.join("conf/cors.json"), &reads).await;

        std::fs::rename(scratch.join("conf"), scratch.join("conf.old")).unwrap();
        std::fs::create_dir(scratch.join("conf")).unwrap();
        std::fs::write(scratch.join("conf/cors.json"), options_of(B)).unwrap();
        until_granted(addr, &[B]).await;
        // The old folder no longer counts; the new one does.
        std::fs::write(scratch.join("conf.old/cors.json"), options_of(EVIL)).unwrap();
        std::fs::write(scratch.join("conf/cors.json"), options_of(C)).unwrap();
        until_granted(addr, &[C]).await;

        // Renamed away with nothing in its place for a while, then back.
        std::fs::rename(scratch.join("conf"), scratch.join("conf.older")).unwrap();
        quiet().await;
        std::fs::create_dir(scratch.join("conf")).unwrap();
        std::fs::write(scratch.join("conf/cors.json"), options_of(A)).unwrap();
        until_granted(addr, &[A]).await;
    }

    /// Reading the file (a backup, `cat`) reloads nothing; a change is read once, and an
    /// invalid text once, not again and again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn watch_file_reloads_once_per_change_and_never_on_a_read() {
        let scratch = Scratch::new("reads");
        let file = scratch.join("cors.json");
        std::fs::write(&file, options_of(A)).unwrap();
        let reads = Arc::new(AtomicUsize::new(0));
        let (addr, _watch) = served_watching(&file, &reads).await;
        read_100_times_of(&file, A);
        quiet().await;
        assert_eq!(
            reads.load(Ordering::SeqCst),
            0,
            "reading the file reloads nothing"
        );

        std::fs::write(&file, options_of(B)).unwrap();
        until_granted(addr, &[B]).await;
        quiet().await;
        assert_eq!(reads.load(Ordering::SeqCst), 1, "one change, one read");
        read_100_times_of(&file, B);
        // The same text written again is no change.
        std::fs::write(&file, options_of(B)).unwrap();
        quiet().await;
        assert_eq!(reads.load(Ordering::SeqCst), 1);

        // An invalid origin: read once, refused, and B stays.
        std::fs::write(&file, options_of("https://a.example/path")).unwrap();
        until_read(&reads, 2).await;
        quiet().await;
        assert_eq!(
            reads.load(Ordering::SeqCst),
            2,
            "an invalid text is read once"
        );
        assert_eq!(granted(addr).await, [B]);
    }

    /// Opens and reads `file` 100 times, as a reader would.
    fn read_100_times_of(file: &Path, origin: &str) {
        for _ in 0..100 {
            assert!(std::fs::read_to_string(file).unwrap().contains(origin));
        }
    }

    /// A reader that panics is an invalid file: the options in force stay, the watch goes on,
    /// and the next valid text is applied.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn watch_file_survives_a_panicking_reader() {
        let scratch = Scratch::new("panic");
        let file = scratch.join("cors.json");
        std::fs::write(&file, options_of(A)).unwrap();
        let reads = Arc::new(AtomicUsize::new(0));
        let (addr, _watch) = served_watching(&file, &reads).await;

        std::fs::write(&file, r#"{"origin": ["https://b.example"], "panic": true}"#).unwrap();
        until_read(&reads, 1).await;
        quiet().await;
        assert_eq!(granted(addr).await, [A]);
        std::fs::write(&file, options_of(B)).unwrap();
        until_granted(addr, &[B]).await;
    }

    /// A file cut down to `{}`, or one that leaves `protect_cross_origin` out, is refused:
    /// the policy in force stays, over the socket.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn watch_file_refuses_a_file_that_widens_by_leaving_options_out() {
        let scratch = Scratch::new("widen");
        let file = scratch.join("cors.json");
        std::fs::write(
            &file,
            format!(r#"{{"origin": ["{A}"], "protect_cross_origin": true}}"#),
        )
        .unwrap();
        let reads = Arc::new(AtomicUsize::new(0));
        let (addr, _watch) = served_watching(&file, &reads).await;
        let cross_site_put = || {
            http1(
                "PUT",
                "/items",
                &[("origin", EVIL), ("sec-fetch-site", "cross-site")],
                "",
            )
        };

        std::fs::write(&file, "{}").unwrap();
        until_read(&reads, 1).await;
        std::fs::write(&file, options_of(B)).unwrap();
        until_read(&reads, 2).await;
        quiet().await;
        assert_eq!(granted(addr).await, [A]);
        let answers = pipelined(addr, &[cross_site_put()]).await;
        assert_eq!(answers[0].status, http::StatusCode::FORBIDDEN);

        // Said explicitly, applied.
        std::fs::write(
            &file,
            format!(r#"{{"origin": ["{B}"], "protect_cross_origin": false}}"#),
        )
        .unwrap();
        until_granted(addr, &[B]).await;
        let answers = pipelined(addr, &[cross_site_put()]).await;
        assert_eq!(answers[0].status, http::StatusCode::OK);
    }
}
