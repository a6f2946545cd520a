//! The patterns of a real axum application, one section per finding of the "fits a real axum
//! application" issue: authentication inside CORS (guards and layers at every level), CORS
//! across imported modules and the `404` fallback, axum `State` and values known at run time,
//! wiring checked when the router is built, CORS switched off or passed through per route.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::{FromRef, FromRequestParts, Request, State};
use axum::middleware::{self, Next};
use common::{Answer, request, send};
use cors_axum::BuildError;
use cors_axum::prelude::*;
use http::StatusCode;
use http::request::Parts;

const ORIGIN: &str = "https://app.example";
const TOKEN: &str = "Bearer secret";

fn preflight(method: &'static str, headers: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("origin", ORIGIN),
        ("access-control-request-method", method),
        ("access-control-request-headers", headers),
    ]
}

fn cors() -> CorsModuleWithOpts {
    CorsModule::with_opts(CorsOptions::new().origin(ORIGIN))
}

use cors_axum::cors::CorsModuleWithOpts;

/// Asserts the three answers a bearer-token API must give a browser: the preflight passes
/// without credentials, a request without a token gets a `401` the page can read, a request
/// with one gets through.
async fn assert_bearer_api(router: &axum::Router, path: &str) {
    let answer = send(
        router,
        request("OPTIONS", path, &preflight("GET", "authorization")),
    )
    .await;
    assert_eq!(
        answer.status,
        StatusCode::NO_CONTENT,
        "{path}: {:?}",
        answer.headers
    );
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(
        answer.header("access-control-allow-headers"),
        Some("authorization")
    );

    let answer = send(router, request("GET", path, &[("origin", ORIGIN)])).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{path}");
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some(ORIGIN),
        "the 401 is readable by the page"
    );

    let answer = send(
        router,
        request("GET", path, &[("origin", ORIGIN), ("authorization", TOKEN)]),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{path}");
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
}

// ---- 1. Authentication inside CORS ----------------------------------------------------------

/// A guard: an extractor whose rejection answers the request.
struct Bearer;

impl<S: Send + Sync> FromRequestParts<S> for Bearer {
    type Rejection = StatusCode;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, StatusCode> {
        match parts.headers.get("authorization") {
            Some(value) if value == TOKEN => Ok(Bearer),
            _ => Err(StatusCode::UNAUTHORIZED),
        }
    }
}

/// The same check as an axum middleware.
async fn require_bearer(request: Request, next: Next) -> Response {
    match request.headers().get("authorization") {
        Some(value) if value == TOKEN => next.run(request).await,
        _ => StatusCode::UNAUTHORIZED.into_response(),
    }
}

struct Account;

#[controller("account")]
impl Account {
    #[route("GET")]
    async fn me() -> &'static str {
        "me"
    }
}

rest_root_module! {
    struct GuardedModule {
        imports: [cors()],
        controllers: [Account],
        guards: [Bearer],
    }
}

rest_root_module! {
    struct LayeredModule {
        imports: [cors()],
        controllers: [Account],
        layers: [middleware::from_fn(require_bearer)],
    }
}

rest_root_module! {
    struct OpenModule {
        imports: [cors()],
        controllers: [Account],
    }
}

struct GuardedController;

#[controller("guarded", guards = [Bearer])]
impl GuardedController {
    #[route("GET")]
    async fn get() -> &'static str {
        "guarded"
    }
}

struct LayeredRoute;

#[controller]
impl LayeredRoute {
    #[route("GET", "layered", layers = [middleware::from_fn(require_bearer)])]
    async fn get() -> &'static str {
        "layered"
    }

    #[route("GET", "open")]
    async fn open() -> &'static str {
        "open"
    }
}

rest_root_module! {
    struct ControllerAndRouteLevels {
        imports: [cors()],
        controllers: [GuardedController, LayeredRoute],
    }
}

#[tokio::test]
async fn a_module_guard_runs_inside_cors() {
    assert_bearer_api(&GuardedModule::router().unwrap(), "/account").await;
}

#[tokio::test]
async fn a_module_layer_runs_inside_cors() {
    assert_bearer_api(&LayeredModule::router().unwrap(), "/account").await;
}

#[tokio::test]
async fn an_application_layer_and_guard_run_inside_cors() {
    let router = OpenModule::builder()
        .layer(middleware::from_fn(require_bearer))
        .router()
        .unwrap();
    assert_bearer_api(&router, "/account").await;
    let router = OpenModule::builder().guard::<Bearer, _>().router().unwrap();
    assert_bearer_api(&router, "/account").await;
}

#[tokio::test]
async fn controller_guards_and_route_layers_run_inside_cors_for_their_routes_only() {
    let router = ControllerAndRouteLevels::router().unwrap();
    assert_bearer_api(&router, "/guarded").await;
    assert_bearer_api(&router, "/layered").await;
    let answer = send(&router, request("GET", "/open", &[("origin", ORIGIN)])).await;
    assert_eq!(
        (answer.status, answer.body.as_str()),
        (StatusCode::OK, "open")
    );
}

#[tokio::test]
async fn a_layer_added_to_the_built_router_runs_before_cors() {
    // What the documentation warns about: `Router::layer` wraps everything, CORS included, so
    // the preflight meets the authentication first.
    let router = OpenModule::router()
        .unwrap()
        .layer(middleware::from_fn(require_bearer));
    let answer = send(
        &router,
        request("OPTIONS", "/account", &preflight("GET", "authorization")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(!answer.has_any_cors_header());
}

/// Records the order in which layers and guards run.
#[derive(Clone, Default)]
struct Trail(Arc<std::sync::Mutex<Vec<&'static str>>>);

impl Trail {
    fn push(&self, step: &'static str) {
        self.0.lock().unwrap().push(step);
    }
}

struct FirstGuard;
struct SecondGuard;

impl<S: Send + Sync> FromRequestParts<S> for FirstGuard {
    type Rejection = StatusCode;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, StatusCode> {
        parts
            .extensions
            .get::<Trail>()
            .expect("trail")
            .push("module guard");
        Ok(FirstGuard)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for SecondGuard {
    type Rejection = StatusCode;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, StatusCode> {
        parts
            .extensions
            .get::<Trail>()
            .expect("trail")
            .push("route guard");
        Ok(SecondGuard)
    }
}

async fn module_layer(request: Request, next: Next) -> Response {
    request
        .extensions()
        .get::<Trail>()
        .expect("trail")
        .push("module layer");
    next.run(request).await
}

async fn route_layer(request: Request, next: Next) -> Response {
    request
        .extensions()
        .get::<Trail>()
        .expect("trail")
        .push("route layer");
    next.run(request).await
}

struct Ordered;

#[controller]
impl Ordered {
    #[route("GET", "ordered", guards = [SecondGuard], layers = [middleware::from_fn(route_layer)])]
    async fn get(request: Request) -> &'static str {
        request
            .extensions()
            .get::<Trail>()
            .expect("trail")
            .push("handler");
        "ordered"
    }
}

rest_root_module! {
    struct OrderedModule {
        imports: [cors()],
        controllers: [Ordered],
        guards: [FirstGuard],
        layers: [middleware::from_fn(module_layer)],
    }
}

#[tokio::test]
async fn layers_wrap_from_the_outside_in_and_guards_run_last_most_general_first() {
    let trail = Trail::default();
    let router = OrderedModule::router().unwrap();
    let mut req = request("GET", "/ordered", &[("origin", ORIGIN)]);
    req.extensions_mut().insert(trail.clone());
    let answer = send(&router, req).await;
    assert_eq!(answer.body, "ordered");
    assert_eq!(
        *trail.0.lock().unwrap(),
        [
            "module layer",
            "route layer",
            "module guard",
            "route guard",
            "handler"
        ]
    );
}

// ---- 2. CORS across imported modules and the 404 fallback -----------------------------------

struct Users;

#[controller("users")]
impl Users {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }

    #[route("DELETE", "{id}", cors = false)]
    async fn remove() -> &'static str {
        "deleted"
    }
}

feature_module! {
    struct UsersModule { controllers: [Users] }
}

struct Internal;

#[controller("internal")]
impl Internal {
    #[route("GET")]
    async fn get() -> &'static str {
        "internal"
    }
}

feature_module! {
    struct InternalModule { imports: [CorsModule::disabled()], controllers: [Internal] }
}

rest_root_module! {
    struct AppWide {
        imports: [
            cors(),
            Import::at("/api/v1", UsersModule),
            Import::at("/ops", InternalModule),
        ],
    }
}

#[tokio::test]
async fn cors_of_the_root_covers_feature_modules_under_a_prefix() {
    let router = AppWide::router().unwrap();
    let answer = send(
        &router,
        request("GET", "/api/v1/users", &[("origin", ORIGIN)]),
    )
    .await;
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    let answer = send(
        &router,
        request("OPTIONS", "/api/v1/users", &preflight("GET", "x-trace")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(
        answer.header("access-control-allow-methods"),
        Some("OPTIONS, GET, HEAD")
    );
}

#[tokio::test]
async fn unknown_paths_answer_a_404_the_page_can_read() {
    let router = AppWide::router().unwrap();
    let answer = send(
        &router,
        request("GET", "/api/v1/userz", &[("origin", ORIGIN)]),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(answer.vary(), ["origin"]);
    // A preflighted request to a mistyped path gets through its preflight to the readable 404.
    let answer = send(
        &router,
        request(
            "OPTIONS",
            "/api/v1/userz",
            &preflight("PUT", "content-type"),
        ),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    // Without a CorsModule in the root, a 404 is axum's own.
    let answer = send(
        &UsersModule::router().unwrap(),
        request("GET", "/nowhere", &[("origin", ORIGIN)]),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert!(!answer.has_any_cors_header());
}

#[tokio::test]
async fn cors_is_switched_off_per_module_and_per_route() {
    let router = AppWide::router().unwrap();
    let answer = send(
        &router,
        request("GET", "/ops/internal", &[("origin", ORIGIN)]),
    )
    .await;
    assert_eq!(answer.body, "internal");
    assert!(!answer.has_any_cors_header() && answer.vary().is_empty());

    let answer = send(
        &router,
        request("DELETE", "/api/v1/users/7", &[("origin", ORIGIN)]),
    )
    .await;
    assert_eq!(answer.body, "deleted");
    assert!(!answer.has_any_cors_header(), "{:?}", answer.headers);
    let answer = send(
        &router,
        request("OPTIONS", "/api/v1/users/7", &preflight("DELETE", "")),
    )
    .await;
    assert!(!answer.has_any_cors_header(), "the preflight is refused");
}

/// A path whose every route switches CORS off gets no generated `OPTIONS` route.
#[test]
fn the_route_table_shows_where_cors_comes_from() {
    let table = AppWide::routes().unwrap().to_string();
    let lines: Vec<&str> = table.lines().map(str::trim_end).collect();
    assert_eq!(
        lines,
        [
            "METHOD   PATH                MODULE          CORS          HANDLER",
            "OPTIONS  /api/v1/users       UsersModule     AppWide       CorsModule::options",
            "GET      /api/v1/users       UsersModule     AppWide       Users::list",
            "DELETE   /api/v1/users/{id}  UsersModule     off (route)   Users::remove",
            "GET      /ops/internal       InternalModule  off (module)  Internal::get",
        ]
    );
}

// ---- 3. axum State and values known at run time ---------------------------------------------

#[derive(Clone)]
struct AppState {
    db: Db,
    requests: Arc<AtomicUsize>,
}

#[derive(Clone)]
struct Db(&'static str);

impl FromRef<AppState> for Db {
    fn from_ref(state: &AppState) -> Db {
        state.db.clone()
    }
}

#[derive(Clone)]
struct Settings {
    greeting: String,
}

struct Stateful;

#[controller("stateful", state = AppState)]
impl Stateful {
    #[route("GET")]
    async fn whole(State(state): State<AppState>) -> String {
        let n = state.requests.fetch_add(1, Ordering::Relaxed) + 1;
        format!("request {n}")
    }

    #[route("GET", "db")]
    async fn part(State(db): State<Db>, Inject(settings): Inject<Settings>) -> String {
        format!("{} from {}", settings.greeting, db.0)
    }
}

/// A struct controller whose field needs the state.
#[controller(state = AppState)]
struct WithStateField {
    db: State<Db>,
}

#[controller(state = AppState)]
impl WithStateField {
    #[route("GET", "field")]
    async fn get(&self) -> String {
        self.db.0.0.to_owned()
    }
}

feature_module! {
    /// Stateless: usable under any state.
    struct StatelessModule { controllers: [Account] }
}

rest_root_module! {
    struct StatefulModule {
        state: AppState,
        imports: [cors(), StatelessModule],
        controllers: [Stateful, WithStateField],
    }
}

#[tokio::test]
async fn handlers_take_state_and_runtime_values() {
    let state = AppState {
        db: Db("postgres"),
        requests: Arc::default(),
    };
    let greeting = std::env::var("NO_SUCH_VARIABLE").unwrap_or_else(|_| "hello".to_owned());
    let router: axum::Router = StatefulModule::builder()
        .provide(Settings { greeting })
        .router()
        .unwrap()
        .with_state(state);
    assert_eq!(
        send(&router, request("GET", "/stateful", &[])).await.body,
        "request 1"
    );
    assert_eq!(
        send(&router, request("GET", "/stateful", &[])).await.body,
        "request 2"
    );
    let answer = send(
        &router,
        request("GET", "/stateful/db", &[("origin", ORIGIN)]),
    )
    .await;
    assert_eq!(answer.body, "hello from postgres");
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(
        send(&router, request("GET", "/field", &[])).await.body,
        "postgres"
    );
    assert_eq!(
        send(&router, request("GET", "/account", &[])).await.body,
        "me"
    );
}

// ---- 4. Wiring checked when the router is built ---------------------------------------------

struct NeedsCookies;

#[controller]
impl NeedsCookies {
    #[route("POST", "login")]
    async fn login(cors: CorsService) -> &'static str {
        cors.set_cookie("session", "s");
        "logged in"
    }
}

rest_root_module! {
    struct CookiesWithoutCors { controllers: [NeedsCookies] }
}

struct CookiesOffRoute;

#[controller(cors = false)]
impl CookiesOffRoute {
    #[route("POST", "login")]
    async fn login(cors: CorsService) -> &'static str {
        cors.set_cookie("session", "s");
        "logged in"
    }
}

rest_root_module! {
    struct CookiesCorsOff { imports: [CorsModule], controllers: [CookiesOffRoute] }
}

/// A struct controller whose field needs a provider.
#[controller]
struct NeedsDb {
    db: Inject<Db>,
}

#[controller]
impl NeedsDb {
    #[route("GET", "db")]
    async fn get(&self) -> &'static str {
        self.db.0.0
    }
}

rest_root_module! {
    struct FieldWithoutProvider { controllers: [NeedsDb] }
}

#[test]
fn cors_service_without_cors_is_an_error_at_build() {
    let err = CookiesWithoutCors::router().unwrap_err();
    assert!(
        matches!(err, BuildError::CorsServiceWithoutCors { .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "route `POST /login` (`CookiesWithoutCors::NeedsCookies::login`) takes `CorsService`, but \
         CORS is off for it; import `CorsModule` into `CookiesWithoutCors` or into a module that \
         imports it, and do not switch it off for this route"
    );
    let err = CookiesCorsOff::router().unwrap_err();
    assert!(
        matches!(err, BuildError::CorsServiceWithoutCors { .. }),
        "{err:?}"
    );
}

#[test]
fn a_controller_field_without_a_provider_is_an_error_at_build() {
    let err = FieldWithoutProvider::router().unwrap_err();
    let BuildError::MissingProvider {
        route,
        handler,
        type_name,
        ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(route, "GET /db");
    assert_eq!(handler, "FieldWithoutProvider::NeedsDb::get");
    assert_eq!(*type_name, "it::real_app::Db");
    assert!(
        FieldWithoutProvider::builder()
            .provide(Db("sqlite"))
            .router()
            .is_ok()
    );
}

// ---- 6. CORS off and preflights passed through per route ------------------------------------

struct Passthrough;

#[controller("pass")]
impl Passthrough {
    #[route("GET")]
    async fn get() -> &'static str {
        "get"
    }

    #[route("OPTIONS", cors = CorsOptions::new().preflight_passthrough(true))]
    async fn options(request: Request) -> (StatusCode, [(&'static str, &'static str); 1], String) {
        let asked = request
            .headers()
            .get("access-control-request-method")
            .map(|v| v.to_str().unwrap_or("").to_owned())
            .unwrap_or_default();
        (
            StatusCode::OK,
            [("x-handled-by", "user")],
            format!("asked for {asked}"),
        )
    }
}

rest_root_module! {
    struct PassthroughModule { imports: [cors()], controllers: [Passthrough] }
}

#[tokio::test]
async fn a_preflight_is_passed_to_the_users_options_handler_when_asked() {
    let router = PassthroughModule::router().unwrap();
    let answer: Answer = send(
        &router,
        request("OPTIONS", "/pass", &preflight("GET", "x-a")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "the handler's status");
    assert_eq!(answer.body, "asked for GET");
    assert_eq!(answer.header("x-handled-by"), Some("user"));
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(answer.header("access-control-allow-headers"), Some("x-a"));
}
