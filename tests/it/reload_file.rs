//! CORS options reloaded from their file while the server runs (`CorsReload::watch_file`): a
//! valid edit is applied, an invalid one (or one that would widen the policy by leaving an option
//! out) is refused with one log line naming the file and why, the options in force stay, and no
//! request is granted in between by a policy that neither file gives.

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

/// The lines logged after a change: waits, at most five seconds, for the first, then a second
/// more, so that a line logged again would be among them.
async fn logged(captured: &Captured) -> Vec<String> {
    let mut lines = Vec::new();
    until(async || {
        lines.extend(captured.take());
        !lines.is_empty()
    })
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    lines.extend(captured.take());
    lines
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
                // A is asked before B on the connection: one batch may straddle the reload,
                // A granted by the old options and B by the new; a later batch never grants A.
                assert!(!(b_seen && a.is_some()), "A granted after B was");
                b_seen |= b.is_some();
                assert!(a.is_none() || a.as_deref() == Some(A));
                assert!(b.is_none() || b.as_deref() == Some(B));
                probes += 1;
            }
            probes
        }
    });

    std::fs::write(&file, format!(r#"{{"origin": ["{B}"]}}"#)).unwrap();
    until(async || granted(addr).await == [None, Some(B.to_owned()), None]).await;
    let reloaded = format!("CORS options reloaded from `{}`", file.display());
    let lines = logged(&captured).await;
    assert_eq!(lines.len(), 1, "one change, logged once: {lines:?}");
    assert!(
        lines[0].contains(" INFO ") && lines[0].contains(&reloaded),
        "{lines:?}"
    );

    // Invalid options (a path in the origin), a file cut down to `{}` (which would allow any
    // origin), then text that is not JSON: each refused and logged once, naming the file and
    // why, saying once that the options in force stay and nothing of `CorsReload::reload`.
    let refused = format!(
        "CORS options not reloaded from `{}`, the options in force stay: ",
        file.display()
    );
    for (text, why) in [
        (
            format!(r#"{{"origin": ["{A}/path"]}}"#),
            "invalid CORS option `origin`",
        ),
        (
            "{}".to_owned(),
            "they would widen the policy in force: invalid CORS option `origin`: left out",
        ),
        ("{ not json".to_owned(), "key must be a string"),
    ] {
        std::fs::write(&file, &text).unwrap();
        let lines = logged(&captured).await;
        assert_eq!(lines.len(), 1, "logged once: {lines:?}");
        let line = &lines[0];
        assert!(line.contains(" WARN ") && line.contains(&refused), "{line}");
        assert!(line.contains(why), "{line}");
        assert_eq!(
            line.matches("the options in force stay").count(),
            1,
            "{line}"
        );
        assert!(!line.contains("CorsReload::reload"), "{line}");
    }
    assert_eq!(granted(addr).await, [None, Some(B.to_owned()), None]);

    stop.store(true, Ordering::Relaxed);
    let probes = prober.await.expect("the invariants held");
    assert!(probes > 0);
    std::fs::remove_dir_all(&folder).ok();
}
