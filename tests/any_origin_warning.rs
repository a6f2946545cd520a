//! Under the default any-origin policy, a credentialed response is answered `*` (which browsers
//! refuse to expose) and logs one warning per process.

#[path = "../cors-axum/tests/common/mod.rs"]
mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use common::{request, send};
use cors_axum::prelude::*;

struct CookieController;

#[controller]
impl CookieController {
    #[route("GET", "login")]
    async fn login(cors: CorsService) -> &'static str {
        cors.set_cookie("session", "s");
        "logged in"
    }
}

rest_root_module! {
    struct AnyOriginModule {
        imports: [CorsModule],
        controllers: [CookieController],
    }
}

/// Collects what the subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn credentialed_responses_under_any_origin_warn_once() {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();

    let router = AnyOriginModule::router().unwrap();
    for origin in [
        "https://a.example",
        "https://b.example",
        "https://c.example",
    ] {
        let answer = send(&router, request("GET", "/login", &[("origin", origin)])).await;
        // `*` with credentials, which browsers refuse to expose: the origin is not reflected.
        assert_eq!(answer.header("access-control-allow-origin"), Some("*"));
        assert_eq!(
            answer.header("access-control-allow-credentials"),
            Some("true")
        );
    }

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert_eq!(log.matches("WARN").count(), 1, "{log}");
    assert!(log.contains("any-origin"), "{log}");
    assert!(log.contains("CorsOptions::new().origin"), "{log}");
}
