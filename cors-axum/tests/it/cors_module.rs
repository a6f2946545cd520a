//! `CorsModule` in-process: defaults, configuration levels and their precedence, modules
//! without it, user `OPTIONS` handlers, error responses, bad input and `CorsLayer`.

use crate::common;

use axum::extract::Path;
use common::{Answer, request, send};
use cors_axum::BuildError;
use cors_axum::cors::PreflightStatus;
use cors_axum::prelude::*;
use http::StatusCode;

const ORIGIN: &str = "https://app.example.com";

fn preflight<'a>(origin: &'a str, method: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("origin", origin),
        ("access-control-request-method", method),
    ]
}

// ---- Default CorsModule ---------------------------------------------------------------------

struct Things;

#[controller("things")]
impl Things {
    #[route("GET")]
    async fn list() -> &'static str {
        "things"
    }

    #[route("POST", "{id}")]
    async fn create(Path(id): Path<u32>) -> String {
        format!("created {id}")
    }

    #[route("GET", "cookie")]
    async fn cookie(cors: CorsService) -> &'static str {
        cors.set_cookie("session", "abc");
        "cookie set"
    }

    #[route("GET", "fail")]
    async fn fail() -> Result<&'static str, (StatusCode, &'static str)> {
        Err((StatusCode::INTERNAL_SERVER_ERROR, "handler failed"))
    }
}

rest_root_module! {
    struct DefaultCors {
        imports: [CorsModule],
        controllers: [Things],
    }
}

async fn default_cors(method: &str, uri: &str, headers: &[(&str, &str)]) -> Answer {
    send(
        &DefaultCors::router().unwrap(),
        request(method, uri, headers),
    )
    .await
}

#[tokio::test]
async fn default_module_allows_any_origin_with_a_star() {
    let answer = default_cors("GET", "/things", &[("origin", ORIGIN)]).await;
    assert_eq!(answer.header("access-control-allow-origin"), Some("*"));
    assert_eq!(answer.header("access-control-allow-credentials"), None);
    assert!(
        answer.vary().is_empty(),
        "`*` does not depend on the origin"
    );

    let answer = default_cors("OPTIONS", "/things/3", &preflight("https://x.test", "POST")).await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(answer.header("access-control-allow-origin"), Some("*"));
    assert_eq!(
        answer.header("access-control-allow-methods"),
        Some("OPTIONS, POST")
    );
}

#[tokio::test]
async fn a_cookie_under_any_origin_is_not_shared_with_the_origin() {
    // Credentialed, but `*`: browsers refuse to expose it, so no site reads it by default.
    let answer = default_cors("GET", "/things/cookie", &[("origin", ORIGIN)]).await;
    assert_eq!(answer.header("access-control-allow-origin"), Some("*"));
    assert_eq!(
        answer.header("access-control-allow-credentials"),
        Some("true")
    );
    assert!(
        answer.vary().is_empty(),
        "`*` does not depend on the origin"
    );
    let cookie = answer.header("set-cookie").unwrap();
    assert!(cookie.starts_with("session=abc"), "{cookie}");
    // Cross-site: a cookie browsers keep must be `SameSite=None; Secure`, and `Partitioned`
    // where third-party cookies are blocked (docs/COOKIES.md).
    for attribute in ["SameSite=None", "Secure", "Partitioned"] {
        assert!(cookie.contains(attribute), "{attribute} missing: {cookie}");
    }
}

#[tokio::test]
async fn a_same_host_cookie_is_lax() {
    let answer = default_cors(
        "GET",
        "/things/cookie",
        &[
            ("origin", "http://127.0.0.1:5173"),
            ("host", "127.0.0.1:3000"),
        ],
    )
    .await;
    let cookie = answer.header("set-cookie").unwrap();
    assert!(
        cookie.contains("SameSite=Lax") && !cookie.contains("Secure"),
        "{cookie}"
    );
    assert_eq!(answer.header("access-control-allow-origin"), Some("*"));
}

#[tokio::test]
async fn cors_headers_are_on_errors_rejections_and_405() {
    let failed = default_cors("GET", "/things/fail", &[("origin", ORIGIN)]).await;
    assert_eq!(failed.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(failed.header("access-control-allow-origin"), Some("*"));

    let rejected = default_cors("POST", "/things/not-a-number", &[("origin", ORIGIN)]).await;
    assert_eq!(rejected.status, StatusCode::BAD_REQUEST);
    assert_eq!(rejected.header("access-control-allow-origin"), Some("*"));

    let wrong_method = default_cors("DELETE", "/things", &[("origin", ORIGIN)]).await;
    assert_eq!(wrong_method.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(
        wrong_method.header("access-control-allow-origin"),
        Some("*")
    );
    assert!(wrong_method.header("allow").unwrap().contains("OPTIONS"));
}

// ---- Levels and precedence ------------------------------------------------------------------

struct Levels;

#[controller(path = "levels", cors = CorsOptions::new().max_age(200u64).expose_headers(["x-controller"]))]
impl Levels {
    #[route("GET", "controller")]
    async fn controller_level() -> &'static str {
        "controller"
    }

    #[route("GET", "route", cors = CorsOptions::new().max_age(300u64).origin("https://route.example"))]
    async fn route_level() -> &'static str {
        "route"
    }
}

struct Plain;

#[controller]
impl Plain {
    #[route("GET", "plain")]
    async fn plain() -> &'static str {
        "plain"
    }
}

rest_root_module! {
    struct Leveled {
        imports: [CorsModule::with_opts(
            CorsOptions::new().origin(["https://app.example.com", "https://route.example"]).max_age(50u64),
        )],
        controllers: [Levels, Plain],
        providers_per_rou: [ProviderBuilder::new().use_value(CorsOptions::new().max_age(100u64))],
    }
}

async fn leveled(method: &str, uri: &str, headers: &[(&str, &str)]) -> Answer {
    send(&Leveled::router().unwrap(), request(method, uri, headers)).await
}

#[tokio::test]
async fn module_providers_override_with_opts_field_by_field() {
    let answer = leveled("OPTIONS", "/plain", &preflight(ORIGIN, "GET")).await;
    assert_eq!(answer.header("access-control-max-age"), Some("100"));
    // `origin` came from `with_opts`, untouched by the provider.
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
}

#[tokio::test]
async fn controller_options_override_the_module() {
    let answer = leveled("OPTIONS", "/levels/controller", &preflight(ORIGIN, "GET")).await;
    assert_eq!(answer.header("access-control-max-age"), Some("200"));
    let answer = leveled("GET", "/levels/controller", &[("origin", ORIGIN)]).await;
    assert_eq!(
        answer.header("access-control-expose-headers"),
        Some("x-controller")
    );
}

#[tokio::test]
async fn route_options_override_the_controller() {
    let answer = leveled(
        "OPTIONS",
        "/levels/route",
        &preflight("https://route.example", "GET"),
    )
    .await;
    assert_eq!(answer.header("access-control-max-age"), Some("300"));
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("https://route.example")
    );
    // The route narrowed `origin`: the module's other origin is refused here...
    let answer = leveled("GET", "/levels/route", &[("origin", ORIGIN)]).await;
    assert!(!answer.has_any_cors_header(), "{:?}", answer.headers);
    // ...but the controller's exposed headers still apply to the route's origin.
    let answer = leveled(
        "GET",
        "/levels/route",
        &[("origin", "https://route.example")],
    )
    .await;
    assert_eq!(
        answer.header("access-control-expose-headers"),
        Some("x-controller")
    );
}

// ---- Imported modules, CORS switched off, user OPTIONS handlers ------------------------------

struct Internal;

#[controller("internal")]
impl Internal {
    #[route("GET")]
    async fn get() -> &'static str {
        "internal"
    }
}

feature_module! {
    /// Switches off the CORS it would inherit from the module importing it.
    struct NoCorsFeature { imports: [CorsModule::disabled()], controllers: [Internal] }
}

struct Public;

#[controller("public")]
impl Public {
    #[route("GET")]
    async fn get() -> &'static str {
        "public"
    }
}

feature_module! {
    /// Covered by the CORS of the module importing it.
    struct CoveredFeature { controllers: [Public] }
}

struct CustomOptions;

#[controller("custom")]
impl CustomOptions {
    #[route("GET")]
    async fn get() -> &'static str {
        "custom"
    }

    #[route("OPTIONS")]
    async fn options() -> (StatusCode, [(&'static str, &'static str); 1], &'static str) {
        (StatusCode::OK, [("x-handled-by", "user")], "user options")
    }
}

rest_root_module! {
    struct Mixed {
        imports: [
            CorsModule::with_opts(CorsOptions::new().origin(ORIGIN)),
            NoCorsFeature,
            Import::at("/v1", CoveredFeature),
        ],
        controllers: [CustomOptions],
    }
}

#[tokio::test]
async fn an_imported_module_is_covered_by_the_cors_of_its_importer() {
    let router = Mixed::router().unwrap();
    let answer = send(&router, request("GET", "/v1/public", &[("origin", ORIGIN)])).await;
    assert_eq!(answer.body, "public");
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    let answer = send(
        &router,
        request("OPTIONS", "/v1/public", &preflight(ORIGIN, "GET")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    let table = Mixed::routes().unwrap();
    let public: Vec<String> = table
        .iter()
        .filter(|r| r.path() == "/v1/public")
        .map(|r| format!("{} {} {:?}", r.method(), r.module(), r.cors()))
        .collect();
    assert_eq!(
        public,
        [
            "OPTIONS CoveredFeature Some(\"Mixed\")",
            "GET CoveredFeature Some(\"Mixed\")"
        ]
    );
}

#[tokio::test]
async fn a_module_importing_cors_module_disabled_is_untouched() {
    let router = Mixed::router().unwrap();
    let answer = send(&router, request("GET", "/internal", &[("origin", ORIGIN)])).await;
    assert_eq!(answer.body, "internal");
    assert!(!answer.has_any_cors_header(), "{:?}", answer.headers);
    assert!(answer.vary().is_empty());
    let answer = send(
        &router,
        request("OPTIONS", "/internal", &preflight(ORIGIN, "GET")),
    )
    .await;
    assert_eq!(
        answer.status,
        StatusCode::METHOD_NOT_ALLOWED,
        "no generated OPTIONS route"
    );
    assert!(
        !Mixed::routes()
            .unwrap()
            .iter()
            .any(|r| r.path() == "/internal" && r.method() == http::Method::OPTIONS)
    );
}

#[tokio::test]
async fn a_user_options_handler_is_kept_and_gets_cors_headers() {
    let router = Mixed::router().unwrap();
    let answer = send(
        &router,
        request("OPTIONS", "/custom", &[("origin", ORIGIN)]),
    )
    .await;
    assert_eq!(answer.body, "user options");
    assert_eq!(answer.header("x-handled-by"), Some("user"));
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    let options_routes: Vec<_> = Mixed::routes()
        .unwrap()
        .iter()
        .filter(|r| r.path() == "/custom" && r.method() == http::Method::OPTIONS)
        .map(|r| r.controller())
        .collect();
    assert_eq!(options_routes, ["CustomOptions"]);
    // Preflights never reach handlers.
    let answer = send(
        &router,
        request("OPTIONS", "/custom", &preflight(ORIGIN, "GET")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(answer.body, "");
}

// ---- Invalid options fail at build ----------------------------------------------------------

rest_root_module! {
    struct CredentialsWithStar {
        imports: [CorsModule::with_opts(CorsOptions::new().credentials(true))],
        controllers: [Plain],
    }
}

rest_root_module! {
    struct TrailingSlash {
        imports: [CorsModule],
        controllers: [Levels],
        providers_per_rou: [ProviderBuilder::new().use_value(CorsOptions::new().origin("https://example.com/"))],
    }
}

#[test]
fn invalid_options_fail_at_router_build_naming_where_they_were_given() {
    let err = CredentialsWithStar::router().unwrap_err();
    let BuildError::Cors {
        module,
        route,
        source,
        ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!((*module, route.as_deref()), ("CredentialsWithStar", None));
    assert_eq!(source.field(), "credentials");
    // One line, as a log line prints it with `{e}`, says the option, where, why and the fix.
    let shown = err.to_string();
    assert!(
        shown.starts_with(
            "invalid CORS option `credentials` in `CorsModule::with_opts(..)` imported by \
             `CredentialsWithStar`: `credentials(true)` cannot be combined"
        ),
        "{shown}"
    );
    // The engine's error stays the source, for reporters that walk the chain.
    let source = std::error::Error::source(&err).expect("the engine's error");
    assert!(
        source.to_string().starts_with(
            "invalid CORS option `credentials`: `credentials(true)` cannot be combined"
        ),
        "{source}"
    );

    let err = TrailingSlash::router().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid CORS option `origin` in `providers_per_rou` of `TrailingSlash`: \
         `https://example.com/` has a path or a trailing slash; write it as `https://example.com`"
    );
    let BuildError::Cors { source, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(source.field(), "origin");

    let err = RouteLevelError::router().unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.starts_with(
            "invalid CORS option `expose_headers` in `#[route(..)]` of `BadRoute::bad`, for route \
             `GET /bad` of module `RouteLevelError`: "
        ),
        "{shown}"
    );
    let err = ControllerLevelError::router().unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.starts_with(
            "invalid CORS option `credentials` in `#[controller(..)]` of `BadController`, for route \
             `GET /bad` of module `ControllerLevelError`: "
        ),
        "{shown}"
    );
}

struct BadRoute;

#[controller]
impl BadRoute {
    #[route("GET", "bad", cors = CorsOptions::new().expose_headers(["bad header"]))]
    async fn bad() -> &'static str {
        "bad"
    }
}

rest_root_module! {
    struct RouteLevelError {
        imports: [CorsModule],
        controllers: [BadRoute],
    }
}

struct BadController;

#[controller(cors = CorsOptions::new().credentials(true))]
impl BadController {
    #[route("GET", "bad")]
    async fn bad() -> &'static str {
        "bad"
    }
}

rest_root_module! {
    struct ControllerLevelError {
        imports: [CorsModule],
        controllers: [BadController],
    }
}

// ---- Bad input ------------------------------------------------------------------------------

#[tokio::test]
async fn oversized_and_non_utf8_headers_get_a_clean_answer() {
    let router = Leveled::router().unwrap();
    let huge = format!("x-{}", "a".repeat(10_000));
    let answer = send(
        &router,
        request(
            "OPTIONS",
            "/plain",
            &[
                ("origin", ORIGIN),
                ("access-control-request-method", "GET"),
                ("access-control-request-headers", &huge),
            ],
        ),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert!(!answer.has_any_cors_header(), "refused, cleanly");

    let many = vec!["x-a"; 500].join(",");
    let answer = send(
        &router,
        request(
            "OPTIONS",
            "/plain",
            &[
                ("origin", ORIGIN),
                ("access-control-request-method", "GET"),
                ("access-control-request-headers", &many),
            ],
        ),
    )
    .await;
    assert!(!answer.has_any_cors_header());

    let mut req = request("GET", "/plain", &[]);
    req.headers_mut().insert(
        "origin",
        http::HeaderValue::from_bytes(b"https://app.example.com\xff").unwrap(),
    );
    let answer = send(&router, req).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(!answer.has_any_cors_header());

    let mut req = request("GET", "/plain", &[]);
    req.headers_mut()
        .append("origin", http::HeaderValue::from_static(ORIGIN));
    req.headers_mut()
        .append("origin", http::HeaderValue::from_static(ORIGIN));
    let answer = send(&router, req).await;
    assert!(
        !answer.has_any_cors_header(),
        "two Origin lines are never granted"
    );
}

// ---- CorsLayer on a plain Router ------------------------------------------------------------

#[tokio::test]
async fn cors_layer_works_on_a_plain_router() {
    let layer = CorsLayer::new(
        CorsOptions::new()
            .origin(ORIGIN)
            .preflight_status(PreflightStatus::OK)
            .credentials(true),
    )
    .unwrap();
    let router = axum::Router::new()
        .route(
            "/",
            axum::routing::get(|cors: CorsService| async move {
                cors.set_cookie("k", "v");
                "plain"
            }),
        )
        .layer(layer);
    let answer = send(&router, request("OPTIONS", "/", &preflight(ORIGIN, "PUT"))).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header("access-control-allow-methods"), Some("PUT"));
    assert_eq!(
        answer.header("access-control-allow-credentials"),
        Some("true")
    );
    let answer = send(&router, request("GET", "/", &[("origin", ORIGIN)])).await;
    assert_eq!(answer.body, "plain");
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    assert!(answer.header("set-cookie").is_some());
}

#[tokio::test]
async fn cors_service_without_cors_handling_is_a_clear_500() {
    let router = axum::Router::new().route(
        "/",
        axum::routing::get(|cors: CorsService| async move {
            cors.set_cookie("k", "v");
            "unreachable"
        }),
    );
    let answer = send(&router, request("GET", "/", &[])).await;
    assert_eq!(answer.status, StatusCode::INTERNAL_SERVER_ERROR);
}

// ---- One controller in several routers ------------------------------------------------------

/// Mounted only by the test below, so that its first router is the first mount in the process.
struct Shared;

#[controller("shared")]
impl Shared {
    #[route("GET")]
    async fn read() -> &'static str {
        "shared"
    }
}

rest_root_module! {
    struct SharedModule {
        imports: [CorsModule],
        controllers: [Shared],
    }
}

fn shared_router(origin: &str) -> axum::Router {
    SharedModule::builder()
        .provide(CorsOptions::new().origin(origin.to_owned()))
        .router()
        .unwrap()
}

/// The first router keeps a route's setup in the route's own slot and the later ones beside
/// their handlers: each answers with its own options, whichever was built first, and a
/// dropped router leaves the others as they were.
#[tokio::test]
async fn routers_sharing_a_controller_each_answer_with_their_own_options() {
    const FIRST: &str = "https://first.example.com";
    const SECOND: &str = "https://second.example.com";
    let first = shared_router(FIRST);
    let second = shared_router(SECOND);
    let third = shared_router(FIRST);
    drop(third);
    for (router, own, other) in [(&first, FIRST, SECOND), (&second, SECOND, FIRST)] {
        let allowed = send(router, request("GET", "/shared", &[("origin", own)])).await;
        assert_eq!(allowed.status, StatusCode::OK);
        assert_eq!(allowed.body, "shared");
        assert_eq!(allowed.header("access-control-allow-origin"), Some(own));
        let refused = send(router, request("GET", "/shared", &[("origin", other)])).await;
        assert_eq!(refused.header("access-control-allow-origin"), None, "{own}");
    }
}

/// Mounted only by the test below, so that its first router is the first mount in the process.
struct Bare;

#[controller("bare")]
impl Bare {
    #[route("GET")]
    async fn read() -> &'static str {
        "bare"
    }
}

rest_root_module! {
    struct BareModule {
        controllers: [Bare],
    }
}

rest_root_module! {
    struct BareWithCorsModule {
        imports: [CorsModule],
        controllers: [Bare],
    }
}

/// A first router that adds nothing to a route (no guards, CORS or providers) keeps it in its
/// slot; a later one that adds nothing either answers through that slot, and one that adds CORS
/// still keeps its own setup: each answers as its own options say, the first one dropped.
#[tokio::test]
async fn routers_adding_nothing_share_a_route_and_one_with_cors_keeps_its_own() {
    const ORIGIN: &str = "https://app.example.com";
    let first = BareModule::builder().router().unwrap();
    let with_cors = BareWithCorsModule::builder()
        .provide(CorsOptions::new().origin(ORIGIN.to_owned()))
        .router()
        .unwrap();
    let second = BareModule::builder().router().unwrap();
    drop(first);

    let plain = send(&second, request("GET", "/bare", &[("origin", ORIGIN)])).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(plain.body, "bare");
    assert_eq!(plain.header("access-control-allow-origin"), None);
    let unanswered = send(
        &second,
        request("OPTIONS", "/bare", &preflight(ORIGIN, "GET")),
    )
    .await;
    assert_eq!(unanswered.status, StatusCode::METHOD_NOT_ALLOWED);

    let granted = send(&with_cors, request("GET", "/bare", &[("origin", ORIGIN)])).await;
    assert_eq!(granted.status, StatusCode::OK);
    assert_eq!(granted.body, "bare");
    assert_eq!(granted.header("access-control-allow-origin"), Some(ORIGIN));
    let answered = send(
        &with_cors,
        request("OPTIONS", "/bare", &preflight(ORIGIN, "GET")),
    )
    .await;
    assert_eq!(answered.status, StatusCode::NO_CONTENT);
    assert_eq!(answered.header("access-control-allow-origin"), Some(ORIGIN));
}

// ---- The route that serves a path's generated `OPTIONS` route --------------------------------

/// `#[controller]` compiles the generated `OPTIONS` route of each path into one of its routes:
/// the first of the path's in the builder's order, skipping one with layers of its own.
struct Served;

#[controller("served")]
impl Served {
    #[route("DELETE")]
    async fn remove() -> &'static str {
        "removed"
    }

    #[route("PATCH")]
    async fn patch() -> &'static str {
        "patched"
    }

    #[route("GET", "{id}", layers = [axum::middleware::from_fn(common::pass_through)])]
    async fn read(Path(id): Path<u32>) -> String {
        format!("read {id}")
    }

    #[route("PUT", "{id}")]
    async fn replace(Path(id): Path<u32>) -> String {
        format!("replaced {id}")
    }
}

rest_root_module! {
    struct ServedModule {
        imports: [CorsModule::with_opts(CorsOptions::new().origin("https://app.example.com"))],
        controllers: [Served],
    }
}

/// Asserts that `router` answers a preflight of `uri` for `method` (granted for the allowed
/// origin only) and a plain `OPTIONS` with `allow`.
async fn assert_options_answered(router: &axum::Router, uri: &str, method: &str, allow: &str) {
    const ORIGIN: &str = "https://app.example.com";
    let granted = send(router, request("OPTIONS", uri, &preflight(ORIGIN, method))).await;
    assert_eq!(granted.status, StatusCode::NO_CONTENT, "{uri}");
    assert_eq!(
        granted.header("access-control-allow-origin"),
        Some(ORIGIN),
        "{uri}"
    );
    let refused = send(
        router,
        request("OPTIONS", uri, &preflight("https://evil.example", method)),
    )
    .await;
    assert_eq!(refused.header("access-control-allow-origin"), None, "{uri}");
    let plain = send(router, request("OPTIONS", uri, &[])).await;
    assert_eq!(plain.status, StatusCode::NO_CONTENT, "{uri}");
    assert_eq!(plain.header("allow"), Some(allow), "{uri}");
}

#[tokio::test]
async fn every_path_answers_its_generated_options_whichever_route_serves_it() {
    let router = ServedModule::router().unwrap();
    assert_options_answered(&router, "/served", "PATCH", "OPTIONS, PATCH, DELETE").await;
    assert_options_answered(&router, "/served/7", "PUT", "OPTIONS, GET, HEAD, PUT").await;
    let read = send(&router, request("GET", "/served/7", &[])).await;
    assert_eq!(read.body, "read 7");
    let removed = send(&router, request("DELETE", "/served", &[])).await;
    assert_eq!(removed.body, "removed");
}

/// A route written by hand, without `#[controller]`, as the only route of its path: its path
/// gets the generated `OPTIONS` route all the same.
struct Unexpected;

impl cors_axum::app::Module for Unexpected {
    fn definition(&self) -> cors_axum::__private::ModuleDefinition<()> {
        use axum::routing::MethodRouter;
        use cors_axum::__private::{
            ControllerRef, ModuleDefinition, Needs, RouteDef, RouteSetup, route_into,
        };
        fn get(into: MethodRouter<()>, setup: RouteSetup<()>) -> MethodRouter<()> {
            let filter = axum::routing::MethodFilter::GET;
            route_into(into, filter, || async { "unexpected" }, setup)
        }
        fn needs(_: usize, _: &mut Needs) {}
        static ROUTES: [RouteDef<()>; 1] = [RouteDef::new(
            http::Method::GET,
            "/unexpected",
            "get",
            get,
            needs,
            0,
        )];
        ModuleDefinition::new::<Unexpected>("Unexpected")
            .import(CorsModule::with_opts(
                CorsOptions::new().origin("https://app.example.com"),
            ))
            .controller_ref(ControllerRef::new::<Unexpected>(
                "Unexpected",
                &ROUTES,
                None,
            ))
    }
}

#[tokio::test]
async fn a_route_written_by_hand_gets_the_generated_options() {
    let router = cors_axum::Application::build(Unexpected)
        .unwrap()
        .into_router();
    assert_options_answered(&router, "/unexpected", "GET", "OPTIONS, GET, HEAD").await;
    let got = send(&router, request("GET", "/unexpected", &[])).await;
    assert_eq!(got.body, "unexpected");
}
