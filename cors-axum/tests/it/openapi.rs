//! `OpenapiModule`: the document of a module's routes, served by the module, from what the
//! route registry knows and what the handlers' types and `#[utoipa::path(..)]` say.

use crate::common;
use crate::openapi_spec;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Json;
use axum::extract::{FromRequestParts, Path, Query};
use common::{request, send};
use cors_axum::BuildError;
use cors_axum::app::{Guard, GuardDeclaration, RouteTable};
use cors_axum::openapi::OpenapiModule;
use cors_axum::prelude::*;
use http::StatusCode;
use http::request::Parts;
use serde_json::Value;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{Info, OpenApi};
use utoipa::{IntoParams, ToSchema};

#[derive(serde::Deserialize, serde::Serialize, ToSchema)]
struct Item {
    id: u32,
    name: String,
}

#[derive(serde::Deserialize, IntoParams)]
#[allow(dead_code)]
struct Page {
    /// Which page, from 1.
    page: Option<u32>,
}

/// A guard whose scheme is a bearer token.
struct Bearer;

impl<S: Send + Sync> Guard<S> for Bearer {
    type Rejection = StatusCode;

    async fn check(parts: &mut Parts, _: &S) -> Result<(), StatusCode> {
        match parts.headers.get("authorization") {
            Some(value) if value == "Bearer token" => Ok(()),
            _ => Err(StatusCode::UNAUTHORIZED),
        }
    }

    fn declare(guard: &mut GuardDeclaration) {
        guard.security(
            "bearerAuth",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// A guard whose scheme is an API key in a header.
struct Key;

impl<S: Send + Sync> Guard<S> for Key {
    type Rejection = StatusCode;

    async fn check(parts: &mut Parts, _: &S) -> Result<(), StatusCode> {
        match parts.headers.get("x-api-key") {
            Some(_) => Ok(()),
            None => Err(StatusCode::UNAUTHORIZED),
        }
    }

    fn declare(guard: &mut GuardDeclaration) {
        let key = ApiKey::Header(ApiKeyValue::new("x-api-key"));
        guard.security("apiKey", SecurityScheme::ApiKey(key));
    }
}

/// A guard without a scheme: not in the document.
struct Throttle;

impl<S: Send + Sync> FromRequestParts<S> for Throttle {
    type Rejection = StatusCode;

    async fn from_request_parts(_: &mut Parts, _: &S) -> Result<Self, StatusCode> {
        Ok(Throttle)
    }
}

struct ItemsController;

#[controller("items")]
impl ItemsController {
    /// Lists the items.
    ///
    /// Newest first.
    #[route("GET")]
    async fn list(Query(_page): Query<Page>) -> Json<Vec<Item>> {
        Json(Vec::new())
    }

    /// One item.
    #[route("GET", "{id}")]
    #[utoipa::path(responses(
        (status = 200, description = "the item", body = Item),
        (status = 404, description = "no item has this id"),
    ))]
    async fn one(Path(id): Path<u32>) -> Json<Item> {
        Json(Item {
            id,
            name: String::new(),
        })
    }

    #[route("POST", guards = [Key])]
    async fn create(Json(item): Json<Item>) -> Json<Item> {
        Json(item)
    }

    #[route("GET", "{id}/tags/{tag}")]
    async fn tag(Path((id, tag)): Path<(u32, String)>) -> String {
        format!("{id} {tag}")
    }

    #[route("GET", "files/{*rest}")]
    async fn file(Path(rest): Path<String>) -> String {
        rest
    }

    /// What the items API can do.
    #[route("OPTIONS", "capabilities")]
    async fn capabilities() -> &'static str {
        "GET, POST"
    }
}

struct UsersController;

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }
}

feature_module! {
    struct UsersModule { controllers: [UsersController], guards: [Bearer, Throttle] }
}

rest_root_module! {
    struct AppModule {
        imports: [
            CorsModule::with_opts(CorsOptions::new().origin("https://docs.example")),
            OpenapiModule,
            Import::at("/api", UsersModule),
        ],
        controllers: [ItemsController],
    }
}

/// The document `router` serves at `path`, as JSON.
async fn document(router: &axum::Router, path: &str) -> Value {
    let answer = send(router, request("GET", path, &[])).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    serde_json::from_str(&answer.body).expect("the document is JSON")
}

/// The operations of `document`, as `METHOD /path` (OpenAPI's path syntax).
fn operations(document: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("a path item").keys() {
            found.insert(format!("{} {path}", method.to_ascii_uppercase()));
        }
    }
    found
}

/// The routes of `table` but the generated `OPTIONS` ones, as `METHOD /path` in OpenAPI's
/// syntax.
fn listed_routes(table: &RouteTable) -> BTreeSet<String> {
    table
        .iter()
        .filter(|route| !route.is_generated())
        .map(|route| format!("{} {}", route.method(), route.path().replace("{*", "{")))
        .collect()
}

#[tokio::test]
async fn the_document_lists_every_route_of_the_table_but_the_generated_options_routes() {
    let app = AppModule::application().unwrap();
    let table = app.routes().clone();
    let document = document(&app.into_router(), "/openapi.json").await;
    assert_eq!(operations(&document), listed_routes(&table));
    assert!(
        table.iter().any(|r| r.is_generated()),
        "the table has generated routes to leave out"
    );
    assert!(operations(&document).contains("OPTIONS /items/capabilities"));
    assert!(operations(&document).contains("GET /openapi.json"));
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document["info"]["title"], "AppModule");
    openapi_spec::validate(document.to_string().as_bytes());
}

#[tokio::test]
async fn operations_have_unique_ids_controller_tags_and_the_doc_comment() {
    let router = AppModule::router().unwrap();
    let document = document(&router, "/openapi.json").await;
    let list = &document["paths"]["/items"]["get"];
    assert_eq!(list["operationId"], "ItemsController_list");
    assert_eq!(list["tags"], serde_json::json!(["ItemsController"]));
    assert_eq!(list["summary"], "Lists the items.");
    assert_eq!(list["description"], "Newest first.");
    let users = &document["paths"]["/api/users"]["get"];
    assert_eq!(users["operationId"], "UsersController_list");
    assert_eq!(users["tags"], serde_json::json!(["UsersController"]));
    let names: Vec<&Value> = document["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert_eq!(
        names,
        ["UsersController", "ItemsController", "OpenapiModule"],
        "in the order of their first paths: `/api/users`, `/items`, `/openapi.json`"
    );
    let mut ids = BTreeSet::new();
    for item in document["paths"].as_object().unwrap().values() {
        for operation in item.as_object().unwrap().values() {
            let id = operation["operationId"].as_str().unwrap().to_owned();
            assert!(ids.insert(id.clone()), "{id} twice");
        }
    }
}

#[tokio::test]
async fn path_parameters_are_described_from_the_path_and_the_extractor() {
    let router = AppModule::router().unwrap();
    let document = document(&router, "/openapi.json").await;
    let parameters = |path: &str| document["paths"][path]["get"]["parameters"].clone();
    let one = parameters("/items/{id}");
    assert_eq!(one[0]["name"], "id");
    assert_eq!(one[0]["in"], "path");
    assert_eq!(one[0]["required"], true);
    assert_eq!(one[0]["schema"]["type"], "integer", "from `Path<u32>`");
    let tag = parameters("/items/{id}/tags/{tag}");
    let described: Vec<(&Value, &Value)> = tag
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (&p["name"], &p["schema"]["type"]))
        .collect();
    assert_eq!(
        described,
        [
            (&"id".into(), &"integer".into()),
            (&"tag".into(), &"string".into())
        ]
    );
    let file = parameters("/items/files/{rest}");
    assert_eq!(file[0]["name"], "rest", "the wildcard is a path parameter");
}

#[tokio::test]
async fn extractor_and_result_types_are_described_without_annotations() {
    let router = AppModule::router().unwrap();
    let document = document(&router, "/openapi.json").await;
    let list = &document["paths"]["/items"]["get"];
    assert_eq!(list["parameters"][0]["name"], "page");
    assert_eq!(list["parameters"][0]["in"], "query");
    assert_eq!(list["parameters"][0]["description"], "Which page, from 1.");
    let items = &list["responses"]["200"]["content"]["application/json"]["schema"];
    assert_eq!(items["type"], "array");
    assert_eq!(items["items"]["$ref"], "#/components/schemas/Item");
    let create = &document["paths"]["/items"]["post"];
    let body = &create["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!(body["$ref"], "#/components/schemas/Item");
    assert_eq!(create["requestBody"]["required"], true);
    let item = &document["components"]["schemas"]["Item"];
    assert_eq!(item["properties"]["name"]["type"], "string");
    let text = &document["paths"]["/items/files/{rest}"]["get"]["responses"]["200"];
    assert!(text["content"]["text/plain; charset=utf-8"].is_object());
}

#[tokio::test]
async fn response_details_written_on_a_method_are_in_the_document() {
    let router = AppModule::router().unwrap();
    let document = document(&router, "/openapi.json").await;
    let responses = &document["paths"]["/items/{id}"]["get"]["responses"];
    assert_eq!(responses["200"]["description"], "the item");
    assert_eq!(
        responses["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Item"
    );
    assert_eq!(responses["404"]["description"], "no item has this id");
    // The id and summary are still the route's.
    let one = &document["paths"]["/items/{id}"]["get"];
    assert_eq!(one["operationId"], "ItemsController_one");
    assert_eq!(one["summary"], "One item.");
}

#[tokio::test]
async fn guards_that_declare_a_scheme_require_it_and_others_are_left_out() {
    let router = AppModule::router().unwrap();
    let document = document(&router, "/openapi.json").await;
    let paths = &document["paths"];
    assert_eq!(
        paths["/api/users"]["get"]["security"],
        serde_json::json!([{ "bearerAuth": [] }]),
        "the module's guard; `Throttle` declares no scheme"
    );
    assert_eq!(
        paths["/items"]["post"]["security"],
        serde_json::json!([{ "apiKey": [] }]),
        "the route's guard"
    );
    assert!(paths["/items"]["get"].get("security").is_none());
    let schemes = &document["components"]["securitySchemes"];
    assert_eq!(schemes["bearerAuth"]["type"], "http");
    assert_eq!(schemes["bearerAuth"]["scheme"], "bearer");
    assert_eq!(schemes["apiKey"]["in"], "header");
}

#[tokio::test]
async fn the_document_is_a_route_of_the_module_under_its_cors() {
    let app = AppModule::application().unwrap();
    let row = app
        .routes()
        .iter()
        .find(|r| r.path() == "/openapi.json" && !r.is_generated())
        .unwrap();
    assert_eq!(
        (row.module(), row.controller(), row.handler(), row.cors()),
        ("AppModule", "OpenapiModule", "document", Some("AppModule"))
    );
    let router = app.into_router();
    let origin = [("origin", "https://docs.example")];
    let answer = send(&router, request("GET", "/openapi.json", &origin)).await;
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("https://docs.example")
    );
    let preflight = [
        ("origin", "https://docs.example"),
        ("access-control-request-method", "GET"),
    ];
    let answer = send(&router, request("OPTIONS", "/openapi.json", &preflight)).await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("https://docs.example")
    );
    let other = [("origin", "https://evil.example")];
    let answer = send(&router, request("GET", "/openapi.json", &other)).await;
    assert!(!answer.has_any_cors_header());
}

struct NotesBefore;

#[controller("notes")]
impl NotesBefore {
    /// The notes.
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }
}

struct NotesAfter;

#[controller("notes")]
impl NotesAfter {
    /// The notes.
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }

    /// Removes a note.
    #[route("DELETE", "{id}")]
    async fn remove(Path(id): Path<u32>) -> String {
        format!("removed {id}")
    }
}

rest_root_module! {
    struct BeforeModule { imports: [OpenapiModule], controllers: [NotesBefore] }
}

rest_root_module! {
    struct AfterModule { imports: [OpenapiModule], controllers: [NotesAfter] }
}

#[tokio::test]
async fn a_route_added_to_a_controller_appears_with_nothing_else_touched() {
    let before = document(&BeforeModule::router().unwrap(), "/openapi.json").await;
    let mut after = document(&AfterModule::router().unwrap(), "/openapi.json").await;
    let added = after["paths"]
        .as_object_mut()
        .unwrap()
        .remove("/notes/{id}")
        .expect("the new route's path");
    let remove = &added["delete"];
    assert_eq!(remove["operationId"], "NotesAfter_remove");
    assert_eq!(remove["summary"], "Removes a note.");
    assert_eq!(remove["parameters"][0]["name"], "id");
    // Without it, the two documents differ only in the names of their module and controller.
    let after = after
        .to_string()
        .replace("NotesAfter", "NotesBefore")
        .replace("AfterModule", "BeforeModule");
    assert_eq!(after, before.to_string());
}

rest_root_module! {
    struct PlainModule { imports: [CorsModule], controllers: [NotesBefore] }
}

#[tokio::test]
async fn a_module_without_openapi_module_serves_no_document() {
    let app = PlainModule::application().unwrap();
    assert!(
        app.routes()
            .iter()
            .all(|r| r.controller() != "OpenapiModule")
    );
    let answer = send(&app.into_router(), request("GET", "/openapi.json", &[])).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
}

/// Counts the documents made.
struct Made(Arc<AtomicUsize>);

impl utoipa::Modify for Made {
    fn modify(&self, _: &mut OpenApi) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

static MADE: std::sync::LazyLock<Arc<AtomicUsize>> = std::sync::LazyLock::new(Arc::default);

feature_module! {
    struct ApiModule {
        imports: [
            OpenapiModule::with(Info::new("Notes API", "2.1.0"))
                .path("spec.json")
                .modify(Made(MADE.clone())),
            Import::at("/more", UsersModule),
        ],
        controllers: [NotesBefore],
        guards: [Bearer],
    }
}

struct HealthController;

#[controller]
impl HealthController {
    #[route("GET", "health")]
    async fn health() -> &'static str {
        "ok"
    }
}

rest_root_module! {
    struct VersionedModule {
        imports: [Import::at("/v2", ApiModule)],
        controllers: [HealthController],
    }
}

#[tokio::test]
async fn a_document_under_a_prefix_covers_its_module_and_imports_and_is_made_once() {
    let router = VersionedModule::router().unwrap();
    assert_eq!(MADE.load(Ordering::SeqCst), 0, "made on the first request");
    let answer = send(&router, request("GET", "/v2/spec.json", &[])).await;
    assert_eq!(
        answer.status,
        StatusCode::UNAUTHORIZED,
        "behind the module's guard"
    );
    let token = [("authorization", "Bearer token")];
    let mut bodies = Vec::new();
    for _ in 0..3 {
        let answer = send(&router, request("GET", "/v2/spec.json", &token)).await;
        assert_eq!(answer.status, StatusCode::OK);
        bodies.push(answer.body);
    }
    assert_eq!(MADE.load(Ordering::SeqCst), 1);
    assert!(bodies.windows(2).all(|pair| pair[0] == pair[1]));
    let document: Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(document["info"]["title"], "Notes API");
    assert_eq!(document["info"]["version"], "2.1.0");
    let expected: BTreeSet<String> = ["GET /v2/notes", "GET /v2/more/users", "GET /v2/spec.json"]
        .map(str::to_owned)
        .into();
    assert_eq!(operations(&document), expected, "not `/health` of the root");
    assert_eq!(
        document["paths"]["/v2/spec.json"]["get"]["security"],
        serde_json::json!([{ "bearerAuth": [] }]),
        "the document's own route is guarded like the others"
    );
    let answer = send(&router, request("GET", "/openapi.json", &[])).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    openapi_spec::validate(bodies[0].as_bytes());
}

rest_root_module! {
    struct TwiceModule { imports: [OpenapiModule, OpenapiModule] }
}

#[test]
fn openapi_module_twice_in_a_module_is_an_error() {
    let error = TwiceModule::router().unwrap_err();
    assert!(
        matches!(
            error,
            BuildError::OpenapiModuleTwice {
                module: "TwiceModule"
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("more than once"), "{error}");
}

rest_root_module! {
    struct ClashModule {
        imports: [OpenapiModule::with(Info::new("clash", "1")).path("notes")],
        controllers: [NotesBefore],
    }
}

#[test]
fn a_document_path_taken_by_a_route_is_an_error_naming_both() {
    let error = ClashModule::router().unwrap_err().to_string();
    assert!(error.contains("`GET /notes`"), "{error}");
    assert!(
        error.contains("ClashModule::OpenapiModule::document"),
        "{error}"
    );
    assert!(error.contains("ClashModule::NotesBefore::list"), "{error}");
}

#[cfg(feature = "openapi-rapidoc")]
mod page {
    use super::*;

    rest_root_module! {
        struct PageModule {
            imports: [
                CorsModule,
                OpenapiModule::with(Info::new("Notes", "1.0.0")).page("/docs"),
            ],
            controllers: [NotesBefore],
        }
    }

    #[tokio::test]
    async fn the_page_shows_the_document_and_is_a_route_like_it() {
        let app = PageModule::application().unwrap();
        let row = app
            .routes()
            .iter()
            .find(|r| r.path() == "/docs" && !r.is_generated())
            .unwrap();
        assert_eq!((row.controller(), row.handler()), ("OpenapiModule", "page"));
        let router = app.into_router();
        let answer = send(
            &router,
            request("GET", "/docs", &[("origin", "https://a.example")]),
        )
        .await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(
            answer.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        assert!(
            answer.body.contains(r#"spec-url="/openapi.json""#),
            "{}",
            answer.body
        );
        assert_eq!(answer.header("access-control-allow-origin"), Some("*"));
        let document = document(&router, "/openapi.json").await;
        assert!(operations(&document).contains("GET /docs"));
    }
}

#[tokio::test]
async fn the_validator_refuses_a_document_with_an_undefined_path_parameter() {
    let mut document = document(&AppModule::router().unwrap(), "/openapi.json").await;
    if openapi_spec::validate(document.to_string().as_bytes()) == openapi_spec::Validation::Skipped
    {
        return;
    }
    let one = &mut document["paths"]["/items/{id}"]["get"];
    one.as_object_mut().unwrap().remove("parameters");
    let invalid = document.to_string();
    let refused = std::panic::catch_unwind(|| openapi_spec::validate(invalid.as_bytes()));
    assert!(
        refused.is_err(),
        "the validator checks what it is trusted to"
    );
}

// Leaving routes out: `openapi: false` on a module (and the modules it imports),
// `openapi = false` on a controller or a route; the most specific says.

struct KeysController;

#[controller("keys")]
impl KeysController {
    /// Rotates the signing key; do not expose.
    #[route("POST", "rotate")]
    async fn rotate() -> &'static str {
        "rotated"
    }
}

struct CacheController;

#[controller("cache")]
impl CacheController {
    /// Drops the caches; internal.
    #[route("DELETE")]
    async fn clear() -> StatusCode {
        StatusCode::NO_CONTENT
    }
}

// Imported by the internal module: left out with it.
feature_module! {
    struct CacheModule { controllers: [CacheController] }
}

struct StatusController;

#[controller("status")]
impl StatusController {
    /// Whether the service is up.
    #[route("GET")]
    async fn status() -> &'static str {
        "up"
    }
}

// Imported by the internal module, but says it is listed.
feature_module! {
    struct PublicStatusModule { controllers: [StatusController], openapi: true }
}

feature_module! {
    struct InternalModule {
        imports: [
            CorsModule::disabled(),
            CacheModule,
            Import::at("/public", PublicStatusModule),
        ],
        controllers: [KeysController],
        openapi: false,
    }
}

struct AdminController;

#[controller("admin", openapi = false)]
impl AdminController {
    /// Lists the sessions of every user; internal.
    #[route("GET", "sessions")]
    async fn sessions() -> &'static str {
        "[]"
    }

    /// The admin contact, listed although its controller is not.
    #[route("GET", "contact", openapi = true)]
    async fn contact() -> &'static str {
        "admin@example.com"
    }
}

struct ReportsController;

#[controller("reports")]
impl ReportsController {
    /// The reports.
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }

    /// Recomputes every report; internal.
    #[route("POST", "rebuild", openapi = false)]
    async fn rebuild() -> &'static str {
        "rebuilding"
    }
}

rest_root_module! {
    struct ListedModule {
        imports: [CorsModule, OpenapiModule, Import::at("/internal", InternalModule)],
        controllers: [AdminController, ReportsController],
    }
}

#[tokio::test]
async fn modules_controllers_and_routes_with_openapi_false_are_left_out_of_the_document() {
    let app = ListedModule::application().unwrap();
    let served: BTreeSet<String> = listed_routes(app.routes());
    let router = app.into_router();
    let answer = send(&router, request("GET", "/openapi.json", &[])).await;
    assert_eq!(answer.status, StatusCode::OK);
    for internal in [
        "do not expose",
        "Drops the caches",
        "every user",
        "Recomputes",
    ] {
        assert!(
            !answer.body.contains(internal),
            "`{internal}` is served: {}",
            answer.body
        );
    }
    let document: Value = serde_json::from_str(&answer.body).unwrap();
    let expected: BTreeSet<String> = [
        "GET /admin/contact",
        "GET /internal/public/status",
        "GET /openapi.json",
        "GET /reports",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(operations(&document), expected);
    let left_out = [
        "POST /internal/keys/rotate",
        "DELETE /internal/cache",
        "GET /admin/sessions",
        "POST /reports/rebuild",
    ];
    for route in left_out {
        assert!(served.contains(route), "{route} is still served");
    }
    let answer = send(&router, request("POST", "/internal/keys/rotate", &[])).await;
    assert_eq!(
        answer.body, "rotated",
        "left out of the document, not of the router"
    );
    openapi_spec::validate(document.to_string().as_bytes());
}

#[tokio::test]
async fn the_catch_all_is_a_path_parameter_that_says_it_takes_the_rest_of_the_path() {
    let router = AppModule::router().unwrap();
    let document = document(&router, "/openapi.json").await;
    let rest = &document["paths"]["/items/files/{rest}"]["get"]["parameters"][0];
    assert_eq!(rest["name"], "rest");
    assert_eq!(rest["in"], "path");
    let description = rest["description"].as_str().expect("a description");
    assert!(description.contains("one segment or more"), "{description}");
    assert!(description.contains("%2F"), "{description}");
    // What the description promises: a client that follows OpenAPI and one that does not reach
    // the handler with the same value.
    for path in ["/items/files/a%2Fb", "/items/files/a/b"] {
        let answer = send(&router, request("GET", path, &[])).await;
        assert_eq!(
            (answer.status, answer.body.as_str()),
            (StatusCode::OK, "a/b"),
            "{path}"
        );
    }
    let empty = send(&router, request("GET", "/items/files/", &[])).await;
    assert_eq!(empty.status, StatusCode::NOT_FOUND, "one segment or more");
    let one = &document["paths"]["/items/{id}"]["get"]["parameters"][0];
    assert!(
        one.get("description").is_none(),
        "only the catch-all says it"
    );
}

// Responses whose status the handler chooses.

struct OrdersController;

#[controller("orders")]
impl OrdersController {
    /// Creates an order.
    #[route("POST")]
    async fn create(Json(item): Json<Item>) -> (StatusCode, Json<Item>) {
        (StatusCode::CREATED, Json(item))
    }

    /// Imports orders.
    #[route("POST", "import")]
    async fn import(
        Json(items): Json<Vec<Item>>,
    ) -> Result<(StatusCode, Json<Vec<Item>>), StatusCode> {
        Ok((StatusCode::ACCEPTED, Json(items)))
    }

    /// Cancels an order.
    #[route("DELETE", "{id}")]
    async fn cancel(Path(_id): Path<u32>) -> StatusCode {
        StatusCode::NO_CONTENT
    }

    /// Creates an order, its status stated.
    #[route("POST", "stated")]
    #[utoipa::path(responses(
        (status = 201, description = "the order made"),
        (status = 204, description = "nothing to make"),
        (status = 409, description = "an order with this id exists"),
    ))]
    async fn stated(Json(item): Json<Item>) -> (StatusCode, Json<Item>) {
        (StatusCode::CREATED, Json(item))
    }
}

rest_root_module! {
    struct OrdersModule { imports: [OpenapiModule], controllers: [OrdersController] }
}

#[tokio::test]
async fn a_status_chosen_by_the_handler_is_a_default_response_with_the_body_schema() {
    let router = OrdersModule::router().unwrap();
    let document = document(&router, "/openapi.json").await;
    let responses = |method: &str, path: &str| document["paths"][path][method]["responses"].clone();
    let create = responses("post", "/orders");
    assert_eq!(
        create.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["default"],
        "the status is known only when the handler answers"
    );
    assert_eq!(
        create["default"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Item"
    );
    let import = responses("post", "/orders/import");
    let items = &import["default"]["content"]["application/json"]["schema"];
    assert_eq!(items["type"], "array");
    assert_eq!(items["items"]["$ref"], "#/components/schemas/Item");
    let cancel = responses("delete", "/orders/{id}");
    assert!(
        cancel["default"].get("content").is_none(),
        "a bare `StatusCode` has no body: {cancel}"
    );
    assert!(
        cancel["default"]["description"]
            .as_str()
            .unwrap()
            .contains("No body"),
        "{cancel}"
    );
    openapi_spec::validate(document.to_string().as_bytes());
}

#[tokio::test]
async fn a_status_stated_with_utoipa_path_gets_the_body_its_result_type_describes() {
    let router = OrdersModule::router().unwrap();
    let document = document(&router, "/openapi.json").await;
    let responses = &document["paths"]["/orders/stated"]["post"]["responses"];
    assert_eq!(
        responses.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["201", "204", "409"],
        "the statuses written, no `default`"
    );
    assert_eq!(responses["201"]["description"], "the order made");
    assert_eq!(
        responses["201"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Item",
        "the success response gets the body of `(StatusCode, Json<Item>)`"
    );
    assert!(responses["204"].get("content").is_none(), "204 has no body");
    assert!(responses["409"].get("content").is_none(), "not a success");
    let post = http::Request::post("/orders/stated")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(r#"{"id":1,"name":"a"}"#))
        .unwrap();
    assert_eq!(send(&router, post).await.status, StatusCode::CREATED);
}
