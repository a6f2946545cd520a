//! CORS options reloaded from their file while the server runs (`CorsReload::watch_file`): a
//! valid edit is applied, an invalid one is refused with a log line and the options in force
//! stay, and no request is granted in between by a policy that neither file gives.

use crate::common;
use crate::support::{self, alone};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::wire::{http1, pipelined, serve};
use cors_axum::cors::CorsReload;
use cors_axum::prelude::*;
use support::log::Captured;

const A: &str = "https://a.example";
const B: &str = "https://b.example";
const EVIL: &str = "https://evil.example";

struct Items;

#[controller]
impl Items {
    #[route("GET", "items")]
    async fn list() -> &'static str {
        "[]\n"
    }
}

rest_root_module! {
    struct App { imports: [CorsModule], controllers: [Items] }
}

/// The origin each of A, B and the evil origin is granted now, over the socket.
async fn granted(addr: std::net::SocketAddr) -> [Option<String>; 3] {
    let requests: Vec<_> = [A, B, EVIL]
        .iter()
        .map(|origin| http1("GET", "/items", &[("origin", origin)], ""))
        .collect();
    let answers = pipelined(addr, &requests).await;
    [0, 1, 2].map(|i| {
        answers[i]
            .header("access-control-allow-origin")
            .map(str::to_owned)
    })
}

/// Waits, at most five seconds, until `done` holds.
async fn until(mut done: impl AsyncFnMut() -> bool) {
    for _ in 0..100 {
        if done().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("not within five seconds");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editing_the_file_under_a_running_server_reloads_it_or_keeps_the_old_policy() {
    if !alone::in_own_process(
        module_path!(),
        "editing_the_file_under_a_running_server_reloads_it_or_keeps_the_old_policy",
    ) {
        return;
    }
    let captured = Captured::default();
    tracing::subscriber::set_global_default(captured.subscriber("cors_axum=info"))
        .expect("the only subscriber of this process");
    let folder = std::env::temp_dir().join(format!("cors-axum-reload-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("cors.json");
    std::fs::write(&file, format!(r#"{{"origin": ["{A}"]}}"#)).unwrap();

    let reload = CorsReload::new();
    let options: CorsOptions =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let router = App::builder()
        .provide(options)
        .cors_reload(&reload)
        .router()
        .unwrap();
    let addr = serve(router).await;
    let _watch = reload
        .watch_file(&file, |text| Ok(serde_json::from_str(text)?))
        .unwrap();
    assert_eq!(granted(addr).await, [Some(A.to_owned()), None, None]);

    // Meanwhile, a client asks again and again: the evil origin is never granted, and once B is,
    // A never is again.
    let stop = Arc::new(AtomicBool::new(false));
    let prober = tokio::spawn({
        let stop = stop.clone();
        async move {
            let (mut probes, mut b_seen) = (0, false);
            while !stop.load(Ordering::Relaxed) {
                let [a, b, evil] = granted(addr).await;
                assert_eq!(evil, None, "the evil origin is never granted");
                b_seen |= b.is_some();
                assert!(!(b_seen && a.is_some()), "A granted after B was");
                assert!(a.is_none() || a.as_deref() == Some(A));
                assert!(b.is_none() || b.as_deref() == Some(B));
                probes += 1;
            }
            probes
        }
    });

    std::fs::write(&file, format!(r#"{{"origin": ["{B}"]}}"#)).unwrap();
    until(async || granted(addr).await == [None, Some(B.to_owned()), None]).await;
    until(async || {
        captured
            .take()
            .iter()
            .any(|l| l.contains("CORS options reloaded from"))
    })
    .await;

    // Invalid options (a path in the origin), then text that is not JSON: refused and logged.
    std::fs::write(&file, format!(r#"{{"origin": ["{A}/path"]}}"#)).unwrap();
    until(async || {
        captured.take().iter().any(|line| {
            line.contains("CORS options not reloaded from")
                && line.contains("the options in force stay")
                && line.contains("origin")
        })
    })
    .await;
    std::fs::write(&file, "{ not json").unwrap();
    until(async || captured.take().iter().any(|l| l.contains("not reloaded"))).await;
    assert_eq!(granted(addr).await, [None, Some(B.to_owned()), None]);

    stop.store(true, Ordering::Relaxed);
    let probes = prober.await.expect("the invariants held");
    assert!(probes > 0);
    std::fs::remove_dir_all(&folder).ok();
}
