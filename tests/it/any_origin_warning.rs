//! Under the default any-origin policy, a credentialed response is answered `*` (which browsers
//! refuse to expose) and logs one warning per process.

use crate::common;
use crate::support::{self, alone};

use common::{request, send};
use cors_axum::prelude::*;
use support::log::Captured;

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

#[tokio::test]
async fn credentialed_responses_under_any_origin_warn_once() {
    if !alone::in_own_process(
        module_path!(),
        "credentialed_responses_under_any_origin_warn_once",
    ) {
        return;
    }
    // For the whole process: the warning is logged once per process, from whichever thread.
    let captured = Captured::default();
    tracing::subscriber::set_global_default(captured.subscriber("info")).unwrap();

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

    let log = captured.take().join("\n");
    assert_eq!(log.matches("WARN").count(), 1, "{log}");
    assert!(log.contains("any-origin"), "{log}");
    assert!(log.contains("CorsOptions::new().origin"), "{log}");
}
