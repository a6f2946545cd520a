//! The module system in-process: routing, prefixes, feature modules, injection, providers,
//! the route table and every `BuildError`.

use crate::common;

use axum::extract::{FromRequestParts, Path};
use common::{request, send};
use cors_axum::__private::ModuleDefinition;
use cors_axum::BuildError;
use cors_axum::app::Module;
use cors_axum::prelude::*;
use http::StatusCode;

struct ItemsController;

#[controller("items")]
impl ItemsController {
    #[route("GET")]
    async fn list() -> &'static str {
        "all items"
    }

    #[route("GET", "{id}")]
    async fn one(Path(id): Path<u32>) -> String {
        format!("item {id}")
    }

    #[route("DELETE", "{id}")]
    async fn remove(Path(id): Path<u32>) -> (StatusCode, String) {
        (StatusCode::ACCEPTED, format!("deleted {id}"))
    }

    #[route("PUT", "{id}")]
    async fn replace(ctx: RequestContext, body: String) -> Response {
        ctx.send(format!(
            "{} {} {} {}",
            ctx.method(),
            ctx.uri().path(),
            ctx.param("id").unwrap_or("?"),
            body
        ))
    }
}

#[derive(Clone)]
struct Greeting(&'static str);

/// Constructor injection: fields are built per request.
#[controller]
struct GreetController {
    ctx: RequestContext,
    greeting: Inject<Greeting>,
}

#[controller("greet")]
impl GreetController {
    #[route("GET", "{name}")]
    async fn greet(&self) -> String {
        format!(
            "{}, {} ({})",
            self.greeting.0.0,
            self.ctx.param("name").unwrap_or("nobody"),
            self.ctx.query().unwrap_or("")
        )
    }

    #[route("POST", "{name}")]
    async fn echo(&self, body: String) -> String {
        format!("{} says {body}", self.ctx.param("name").unwrap_or("?"))
    }

    #[route("GET", "static")]
    async fn associated(Inject(greeting): Inject<Greeting>) -> &'static str {
        greeting.0
    }
}

struct RouteProvided;

#[controller(path = "provided", providers = [ProviderBuilder::new().use_value(Greeting("controller"))])]
impl RouteProvided {
    #[route("GET", "controller")]
    async fn controller_level(Inject(g): Inject<Greeting>) -> &'static str {
        g.0
    }

    #[route("GET", "route", providers = [ProviderBuilder::new().use_value(Greeting("route"))])]
    async fn route_level(Inject(g): Inject<Greeting>) -> &'static str {
        g.0
    }
}

struct MissingProvider;

#[controller]
impl MissingProvider {
    #[route("GET", "missing")]
    async fn missing(Inject(g): Inject<Greeting>) -> &'static str {
        g.0
    }
}

feature_module! {
    /// Mounted under `/api` by the root.
    struct ItemsModule {
        controllers: [ItemsController],
    }
}

feature_module! {
    struct GreetModule {
        controllers: [GreetController, RouteProvided],
        providers_per_rou: [ProviderBuilder::new().use_value(Greeting("hello"))],
    }
}

rest_root_module! {
    struct RootModule {
        imports: [Import::at("/api", ItemsModule), GreetModule],
    }
}

#[tokio::test]
async fn routes_of_feature_modules_are_mounted_under_their_prefix() {
    let router = RootModule::router().unwrap();
    let answer = send(&router, request("GET", "/api/items", &[])).await;
    assert_eq!(
        (answer.status, answer.body.as_str()),
        (StatusCode::OK, "all items")
    );
    let answer = send(&router, request("GET", "/api/items/7", &[])).await;
    assert_eq!(answer.body, "item 7");
    let answer = send(&router, request("DELETE", "/api/items/7", &[])).await;
    assert_eq!(
        (answer.status, answer.body.as_str()),
        (StatusCode::ACCEPTED, "deleted 7")
    );
    // Not mounted without the prefix.
    let answer = send(&router, request("GET", "/items", &[])).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn request_context_describes_the_request() {
    let router = RootModule::router().unwrap();
    let mut req = request("PUT", "/api/items/42?x=1", &[]);
    *req.body_mut() = axum::body::Body::from("payload");
    let answer = send(&router, req).await;
    assert_eq!(answer.body, "PUT /api/items/42 42 payload");
}

#[tokio::test]
async fn extractor_rejections_are_axum_responses() {
    let router = RootModule::router().unwrap();
    let answer = send(&router, request("GET", "/api/items/not-a-number", &[])).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn wrong_method_on_a_known_path_is_405_with_allow() {
    let router = RootModule::router().unwrap();
    let answer = send(&router, request("POST", "/api/items", &[])).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    let allow = answer.header("allow").unwrap();
    assert!(allow.contains("GET") && allow.contains("HEAD"), "{allow}");
}

#[tokio::test]
async fn head_is_answered_by_get() {
    let router = RootModule::router().unwrap();
    let answer = send(&router, request("HEAD", "/api/items", &[])).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, "");
}

#[tokio::test]
async fn controller_fields_are_injected_per_request() {
    let router = RootModule::router().unwrap();
    let answer = send(&router, request("GET", "/greet/ada?lang=en", &[])).await;
    assert_eq!(answer.body, "hello, ada (lang=en)");
    let mut req = request("POST", "/greet/bob", &[]);
    *req.body_mut() = axum::body::Body::from("hi");
    assert_eq!(send(&router, req).await.body, "bob says hi");
    let answer = send(&router, request("GET", "/greet/static", &[])).await;
    assert_eq!(answer.body, "hello");
}

#[tokio::test]
async fn the_most_specific_provider_wins() {
    let router = RootModule::router().unwrap();
    let answer = send(&router, request("GET", "/provided/controller", &[])).await;
    assert_eq!(answer.body, "controller");
    let answer = send(&router, request("GET", "/provided/route", &[])).await;
    assert_eq!(answer.body, "route");
}

rest_root_module! {
    /// `GreetModule` provides `Greeting` to its own routes only.
    struct MissingProviderModule {
        imports: [GreetModule],
        controllers: [MissingProvider],
    }
}

#[tokio::test]
async fn an_injected_type_without_a_provider_is_an_error_at_build() {
    let err = MissingProviderModule::router().unwrap_err();
    assert!(matches!(err, BuildError::MissingProvider { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "route `GET /missing` (`MissingProviderModule::MissingProvider::missing`) takes \
         `Inject<it::module_system::Greeting>`, but no value of that type is provided for it; provide \
         one with `providers_per_rou: [ProviderBuilder::new().use_value(..)]` in \
         `MissingProviderModule`, with `providers = [..]` on the controller or route, or for the \
         whole application with `.provide(..)` on the application builder"
    );
    // Provided for the whole application, it is found.
    let router = MissingProviderModule::builder()
        .provide(Greeting("from the application"))
        .router()
        .unwrap();
    let answer = send(&router, request("GET", "/missing", &[])).await;
    assert_eq!(answer.body, "from the application");
}

#[test]
fn route_table_lists_every_route_in_a_stable_order() {
    let table = RootModule::routes().unwrap();
    let rows: Vec<String> = table
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {}::{}",
                r.method(),
                r.path(),
                r.module(),
                r.controller(),
                r.handler()
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            "GET /api/items ItemsModule ItemsController::list",
            "GET /api/items/{id} ItemsModule ItemsController::one",
            "PUT /api/items/{id} ItemsModule ItemsController::replace",
            "DELETE /api/items/{id} ItemsModule ItemsController::remove",
            "GET /greet/static GreetModule GreetController::associated",
            "GET /greet/{name} GreetModule GreetController::greet",
            "POST /greet/{name} GreetModule GreetController::echo",
            "GET /provided/controller GreetModule RouteProvided::controller_level",
            "GET /provided/route GreetModule RouteProvided::route_level",
        ]
    );
    assert_eq!(RootModule::routes().unwrap(), table, "the order is stable");
    let printed = table.to_string();
    assert!(printed.starts_with("METHOD"), "{printed}");
    assert!(printed.contains("/api/items/{id}"), "{printed}");
}

// ---- Build errors -------------------------------------------------------------------------

struct OtherItems;

#[controller("items")]
impl OtherItems {
    #[route("GET")]
    async fn also_list() -> &'static str {
        "other"
    }
}

rest_root_module! {
    struct TwoControllersOnePath {
        controllers: [ItemsController, OtherItems],
    }
}

#[test]
fn the_same_route_in_two_controllers_names_both() {
    let err = TwoControllersOnePath::router().unwrap_err();
    assert!(matches!(err, BuildError::DuplicateRoute { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "route `GET /items` is declared twice: by `TwoControllersOnePath::ItemsController::list` \
         and by `TwoControllersOnePath::OtherItems::also_list`"
    );
}

feature_module! {
    struct OtherItemsModule { controllers: [OtherItems] }
}

feature_module! {
    struct PlainItemsModule { controllers: [ItemsController] }
}

rest_root_module! {
    struct TwoModulesOneRoute {
        imports: [PlainItemsModule, OtherItemsModule],
    }
}

#[test]
fn the_same_route_in_two_modules_names_both() {
    let err = TwoModulesOneRoute::router().unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("route `GET /items` is declared twice"),
        "{text}"
    );
    assert!(
        text.contains("PlainItemsModule::ItemsController::list"),
        "{text}"
    );
    assert!(
        text.contains("OtherItemsModule::OtherItems::also_list"),
        "{text}"
    );
}

struct ByName;

#[controller("items")]
impl ByName {
    #[route("POST", "{name}")]
    async fn by_name() -> &'static str {
        "by name"
    }
}

rest_root_module! {
    struct ConflictingParams {
        controllers: [ItemsController, ByName],
    }
}

#[test]
fn conflicting_paths_are_an_error_naming_both_handlers() {
    let err = ConflictingParams::router().unwrap_err();
    assert!(matches!(err, BuildError::PathConflict { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "path `/items/{name}` (`ConflictingParams::ByName::by_name`) conflicts with path \
         `/items/{id}` (`ConflictingParams::ItemsController::one`): the router cannot tell which \
         one a request is for; give the parameters of the same segment one name, or make the \
         paths differ in a static segment"
    );
}

rest_root_module! {
    struct ControllerTwice {
        imports: [],
        controllers: [ItemsController],
    }
}

#[test]
fn a_controller_listed_twice_is_an_error() {
    // The macro rejects the same tokens twice; a definition built by hand is checked at build.
    let definition = ModuleDefinition::new::<ControllerTwice>("ControllerTwice")
        .controller::<ItemsController>()
        .controller::<ItemsController>();
    let err =
        cors_axum::Application::build(ByHand(std::sync::Mutex::new(Some(definition)))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "module `ControllerTwice` lists controller `ItemsController` twice in `controllers`"
    );
}

/// A module whose definition is given by hand.
struct ByHand(std::sync::Mutex<Option<ModuleDefinition<()>>>);

impl Module for ByHand {
    fn definition(&self) -> ModuleDefinition<()> {
        self.0.lock().unwrap().take().expect("built once")
    }
}

rest_root_module! {
    struct SelfImporting {
        imports: [SelfImporting],
    }
}

#[test]
fn a_module_importing_itself_is_an_error() {
    let err = SelfImporting::router().unwrap_err();
    assert!(matches!(err, BuildError::ImportCycle { .. }), "{err:?}");
    assert_eq!(err.to_string(), "module `SelfImporting` imports itself");
}

rest_root_module! {
    struct CycleA { imports: [CycleB] }
}

rest_root_module! {
    struct CycleB { imports: [CycleA] }
}

#[test]
fn an_import_cycle_is_an_error() {
    let err = CycleA::router().unwrap_err();
    assert_eq!(
        err.to_string(),
        "modules import each other in a cycle: CycleA -> CycleB -> CycleA"
    );
}

rest_root_module! {
    struct BadPrefix {
        imports: [Import::at("/v1/:version", PlainItemsModule)],
    }
}

#[test]
fn an_invalid_prefix_is_an_error_not_a_panic() {
    let err = BadPrefix::router().unwrap_err();
    assert!(matches!(err, BuildError::InvalidPath { .. }), "{err:?}");
    assert!(err.to_string().contains("`{version}`"), "{err}");
}

struct RootGet;

#[controller]
impl RootGet {
    #[route("GET")]
    async fn root() -> &'static str {
        "root"
    }
}

struct RootPost;

#[controller]
impl RootPost {
    #[route("POST")]
    async fn root() -> &'static str {
        "root"
    }
}

feature_module! {
    struct RootGetModule { controllers: [RootGet] }
}

feature_module! {
    struct RootPostModule { controllers: [RootPost] }
}

rest_root_module! {
    struct OnePathTwoModules { imports: [RootGetModule, RootPostModule] }
}

rest_root_module! {
    struct OnePathTwoModulesUnderCors { imports: [CorsModule, RootGetModule, RootPostModule] }
}

feature_module! {
    struct RootPostWithOwnCors {
        imports: [CorsModule::with_opts(CorsOptions::new().origin("https://a.example"))],
        controllers: [RootPost],
    }
}

rest_root_module! {
    struct OnePathTwoCors { imports: [CorsModule, RootGetModule, RootPostWithOwnCors] }
}

#[tokio::test]
async fn modules_with_the_same_cors_and_layers_share_a_path() {
    let app = OnePathTwoModules::application().unwrap();
    let modules: Vec<_> = app
        .routes()
        .iter()
        .map(|r| (r.method().as_str(), r.module()))
        .collect();
    assert_eq!(
        modules,
        [("GET", "RootGetModule"), ("POST", "RootPostModule")]
    );
    let router = app.into_router();
    assert_eq!(send(&router, request("GET", "/", &[])).await.body, "root");
    assert_eq!(send(&router, request("POST", "/", &[])).await.body, "root");

    // Under one `CorsModule`: one generated `OPTIONS` route, whose `Allow` and preflights
    // know the methods of both modules.
    let app = OnePathTwoModulesUnderCors::application().unwrap();
    let options = app
        .routes()
        .iter()
        .filter(|r| r.method() == "OPTIONS")
        .count();
    assert_eq!(options, 1, "{}", app.routes());
    let router = app.into_router();
    let answer = send(&router, request("OPTIONS", "/", &[])).await;
    assert_eq!(answer.header("allow"), Some("OPTIONS, GET, HEAD, POST"));
    let preflight = [
        ("origin", "https://x.example"),
        ("access-control-request-method", "POST"),
    ];
    let answer = send(&router, request("OPTIONS", "/", &preflight)).await;
    assert_eq!(
        answer.header("access-control-allow-methods"),
        Some("OPTIONS, GET, HEAD, POST")
    );
}

#[test]
fn modules_with_different_cors_on_one_path_are_an_error_naming_the_handlers() {
    let err = OnePathTwoCors::router().unwrap_err();
    assert!(
        matches!(err, BuildError::PathInTwoModules { .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "path `/` is served by two modules, by `RootGetModule::RootGet::root` and by \
         `RootPostWithOwnCors::RootPost::root`, and their CORS differs; mount one of the \
         modules under a prefix with `Import::at`, or give both the same CORS and layers"
    );
    assert!(!err.to_string().contains("CorsModule::options"));
}

rest_root_module! {
    struct CorsTwice {
        imports: [CorsModule, CorsModule::with_opts(CorsOptions::new().max_age(5u64))],
        controllers: [RootGet],
    }
}

#[test]
fn importing_cors_module_twice_is_an_error() {
    let err = CorsTwice::router().unwrap_err();
    assert_eq!(
        err.to_string(),
        "module `CorsTwice` imports `CorsModule` more than once"
    );
}

// ---- CORS options where no `CorsModule` applies ---------------------------------------------

rest_root_module! {
    struct OptionsWithoutCors {
        controllers: [RootGet],
        providers_per_rou: [ProviderBuilder::new().use_value(CorsOptions::new().origin("https://only.example"))],
    }
}

struct OwnOptions;

#[controller]
impl OwnOptions {
    #[route("GET", "own", cors = CorsOptions::new().max_age(60u64))]
    async fn own() -> &'static str {
        "own"
    }
}

rest_root_module! {
    struct RouteOptionsWithoutCors { controllers: [OwnOptions] }
}

struct SwitchedOff;

#[controller(cors = false)]
impl SwitchedOff {
    #[route("GET", "off")]
    async fn off() -> &'static str {
        "off"
    }
}

rest_root_module! {
    struct OffWithoutCors { controllers: [SwitchedOff] }
}

#[test]
fn cors_options_that_would_do_nothing_are_an_error_naming_the_module_and_the_fix() {
    let err = OptionsWithoutCors::router().unwrap_err();
    assert!(
        matches!(err, BuildError::CorsOptionsWithoutCors { .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "CORS options in `providers_per_rou` of `OptionsWithoutCors` do nothing: no `CorsModule` \
         covers `OptionsWithoutCors`; import `CorsModule` into `OptionsWithoutCors` or into a \
         module that imports it, or remove the options"
    );
    let err = RouteOptionsWithoutCors::router().unwrap_err();
    assert!(
        err.to_string()
            .starts_with("CORS options in `#[route(..)]` of `OwnOptions::own` do nothing"),
        "{err}"
    );
    let err = OnePathTwoModules::builder()
        .provide(CorsOptions::new().origin("https://only.example"))
        .router()
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("CORS options in `.provide(..)` of the application builder do nothing"),
        "{err}"
    );
}

struct ControllerOptions;

#[controller(cors = CorsOptions::new().origin("https://c.example"))]
impl ControllerOptions {
    #[route("GET", "controller-options")]
    async fn get() -> &'static str {
        "c"
    }
}

rest_root_module! {
    struct ControllerOptionsWithoutCors { controllers: [ControllerOptions] }
}

rest_root_module! {
    struct ModuleSwitchedOffWithoutCors {
        controllers: [RootGet],
        providers_per_rou: [ProviderBuilder::new().use_value(CorsOptions::new().enabled(false))],
    }
}

/// Options where no `CorsModule` applies are checked once, the same way at every level: an
/// error naming where they were given and the fix, or, for `cors = false`, a warning.
#[test]
fn cors_options_without_cors_module_are_checked_the_same_way_at_every_level() {
    let fix = "import `CorsModule` into";
    let err = ControllerOptionsWithoutCors::router().unwrap_err();
    assert!(
        matches!(err, BuildError::CorsOptionsWithoutCors { .. }),
        "{err:?}"
    );
    let shown = err.to_string();
    assert!(
        shown.starts_with(
            "CORS options in `#[controller(..)]` of `ControllerOptions` do nothing: no \
             `CorsModule` covers `ControllerOptionsWithoutCors`"
        ) && shown.contains(fix),
        "{shown}"
    );
    let reload = cors_axum::cors::CorsReload::new();
    let err = OnePathTwoModules::builder()
        .cors_reload(&reload)
        .router()
        .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "CORS options in `.cors_reload(..)` of the application builder do nothing: no \
             `CorsModule` covers `OnePathTwoModules`"
        ),
        "{err}"
    );
    // `cors = false` does nothing either, at the module's level and the application's: said,
    // not refused.
    let routes = ModuleSwitchedOffWithoutCors::routes().unwrap();
    assert_eq!(
        routes.warnings(),
        [
            "`cors = false` in `providers_per_rou` of `ModuleSwitchedOffWithoutCors` does \
             nothing: no `CorsModule` covers `ModuleSwitchedOffWithoutCors`"
        ]
    );
    let routes = OnePathTwoModules::builder()
        .provide(CorsOptions::new().enabled(false))
        .build()
        .unwrap()
        .routes()
        .warnings()
        .to_vec();
    assert_eq!(
        routes,
        [
            "`cors = false` in `.provide(..)` of the application builder does nothing: no \
             `CorsModule` covers `OnePathTwoModules`"
        ]
    );
}

#[test]
fn cors_switched_off_where_no_cors_module_applies_is_a_warning_in_the_route_table() {
    let routes = OffWithoutCors::routes().unwrap();
    assert_eq!(
        routes.warnings(),
        [
            "`cors = false` in `#[controller(..)]` of `SwitchedOff` does nothing: no `CorsModule` \
          covers `OffWithoutCors`"
        ]
    );
    let shown = routes.to_string();
    assert!(
        shown.ends_with(
            "warning: `cors = false` in `#[controller(..)]` of `SwitchedOff` does nothing: no \
             `CorsModule` covers `OffWithoutCors`\n"
        ),
        "{shown}"
    );
}

// ---- `providers_per_route`, the key's other spelling ----------------------------------------

rest_root_module! {
    struct SpelledOut {
        controllers: [MissingProvider],
        providers_per_route: [ProviderBuilder::new().use_value(Greeting("spelled out"))],
    }
}

rest_root_module! {
    struct SpelledOutWithoutGreeting {
        controllers: [MissingProvider],
        providers_per_route: [ProviderBuilder::new().use_value(7u32)],
    }
}

rest_root_module! {
    struct SpelledOutWithoutCors {
        controllers: [RootGet],
        providers_per_route: [ProviderBuilder::new().use_value(CorsOptions::new().max_age(60u64))],
    }
}

#[tokio::test]
async fn providers_per_route_is_the_same_key_and_messages_name_it_as_written() {
    let router = SpelledOut::router().unwrap();
    let answer = send(&router, request("GET", "/missing", &[])).await;
    assert_eq!(answer.body, "spelled out");

    let err = SpelledOutWithoutGreeting::router().unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.contains(
            "provide one with `providers_per_route: [ProviderBuilder::new().use_value(..)]` in \
             `SpelledOutWithoutGreeting`"
        ),
        "{shown}"
    );
    assert!(!shown.contains("providers_per_rou:"), "{shown}");

    let err = SpelledOutWithoutCors::router().unwrap_err();
    assert!(
        err.to_string().starts_with(
            "CORS options in `providers_per_route` of `SpelledOutWithoutCors` do nothing"
        ),
        "{err}"
    );
}

// ---- The route table names the application's options ----------------------------------------

rest_root_module! {
    struct CoveredRoot { imports: [CorsModule], controllers: [RootGet] }
}

rest_root_module! {
    struct CoveredRootWithOwn {
        imports: [CorsModule],
        controllers: [RootGet],
        providers_per_rou: [ProviderBuilder::new().use_value(CorsOptions::new().max_age(60u64))],
    }
}

#[test]
fn the_route_table_says_options_given_to_the_application_builder_come_from_the_application() {
    let cors_column = |table: &cors_axum::app::RouteTable| -> Vec<String> {
        table
            .to_string()
            .lines()
            .skip(1)
            .map(|line| {
                line.split("  ")
                    .filter(|c| !c.is_empty())
                    .nth(3)
                    .unwrap()
                    .trim()
                    .to_owned()
            })
            .collect()
    };
    let app = CoveredRoot::builder()
        .provide(CorsOptions::new().origin("https://app.example.com"))
        .build()
        .unwrap();
    assert_eq!(
        cors_column(app.routes()),
        ["CoveredRoot + application", "CoveredRoot + application"],
        "{}",
        app.routes()
    );
    // `cors()` still names the module whose `CorsModule` covers the route.
    assert!(app.routes().iter().all(|r| r.cors() == Some("CoveredRoot")));

    // Without the application's options, the import's are the most specific.
    let table = CoveredRoot::routes().unwrap();
    assert_eq!(
        cors_column(&table),
        ["CoveredRoot", "CoveredRoot"],
        "{table}"
    );

    // The module's own options are more specific than the application's.
    let app = CoveredRootWithOwn::builder()
        .provide(CorsOptions::new().origin("https://app.example.com"))
        .build()
        .unwrap();
    assert_eq!(
        cors_column(app.routes()),
        ["CoveredRootWithOwn", "CoveredRootWithOwn"],
        "{}",
        app.routes()
    );
}

// ---- What a guard injects is checked when the router is built --------------------------------

#[derive(Clone)]
struct ApiToken(&'static str);

/// The guide's bearer guard: it takes the token the application provides.
struct Bearer;

impl<S: Send + Sync> cors_axum::app::Guard<S> for Bearer {
    type Rejection = StatusCode;

    async fn check(parts: &mut http::request::Parts, state: &S) -> Result<(), StatusCode> {
        let Inject(ApiToken(token)) = Inject::<ApiToken>::from_request_parts(parts, state)
            .await
            .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)?;
        let sent = parts
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok());
        match sent.and_then(|v| v.strip_prefix("Bearer ")) {
            Some(sent) if sent == token => Ok(()),
            _ => Err(StatusCode::UNAUTHORIZED),
        }
    }

    fn declare(guard: &mut cors_axum::app::GuardDeclaration) {
        guard.inject::<ApiToken>();
    }
}

feature_module! {
    struct GuardedModule { controllers: [RootGet], guards: [Bearer] }
}

rest_root_module! {
    struct GuardedApp { imports: [Import::at("/api", GuardedModule)] }
}

struct RouteGuarded;

#[controller]
impl RouteGuarded {
    #[route("GET", "guarded", guards = [Bearer])]
    async fn guarded() -> &'static str {
        "guarded"
    }
}

rest_root_module! {
    struct RouteGuardedApp { controllers: [RouteGuarded] }
}

#[tokio::test]
async fn a_value_a_guard_injects_without_a_provider_is_an_error_at_build() {
    let err = GuardedApp::router().unwrap_err();
    assert!(
        matches!(err, BuildError::MissingGuardProvider { .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "guard `it::module_system::Bearer` takes `Inject<it::module_system::ApiToken>`, but no value of \
         that type is provided for route `GET /api` (`GuardedModule::RootGet::root`), which it \
         guards; provide one for the whole application with `.provide(..)` on the application \
         builder, with `providers_per_rou: [ProviderBuilder::new().use_value(..)]` in \
         `GuardedModule`, or with `providers = [..]` on the controller or route"
    );
    // A guard of a route is checked the same way.
    let err = RouteGuardedApp::router().unwrap_err();
    assert!(
        err.to_string().starts_with(
            "guard `it::module_system::Bearer` takes `Inject<it::module_system::ApiToken>`, but no value \
             of that type is provided for route `GET /guarded` (`RouteGuardedApp::RouteGuarded::guarded`)"
        ),
        "{err}"
    );

    // Provided, the guard gets it.
    let router = GuardedApp::builder()
        .provide(ApiToken("secret"))
        .router()
        .unwrap();
    let answer = send(
        &router,
        request("GET", "/api", &[("authorization", "Bearer secret")]),
    )
    .await;
    assert_eq!(
        (answer.status, answer.body.as_str()),
        (StatusCode::OK, "root")
    );
    let answer = send(&router, request("GET", "/api", &[])).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
}
