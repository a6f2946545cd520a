// Struct controllers without `state = ..`: the state is read from their `State<T>` fields. The
// impl block reads it from its handlers' `State<T>`, or says it when they take none.
use axum::body::Body;
use axum::extract::State;
use axum::http::Request;
use cors_axum::prelude::*;
use http_body_util::BodyExt;
use tower::ServiceExt;

#[derive(Clone)]
pub struct AppState {
    pub prefix: &'static str,
}

/// Built for `AppState`, read from its field; its impl block's handlers take no `State<T>`, so
/// it says the state.
#[controller]
pub struct ItemsController {
    state: State<AppState>,
    ctx: RequestContext,
}

#[controller("items", state = AppState)]
impl ItemsController {
    #[route("GET", "{id}")]
    async fn show(&self) -> Response {
        let id = self.ctx.param("id").unwrap_or_default().to_owned();
        self.ctx.send(format!("{}{id}", self.state.prefix))
    }
}

/// Built for `AppState` from its field, and its handler reads the same state.
#[controller]
pub struct TagsController(axum::extract::State<AppState>);

#[controller("tags")]
impl TagsController {
    #[route("GET")]
    async fn list(&self, State(state): State<AppState>) -> String {
        format!("{}{}", self.0.prefix, state.prefix)
    }
}

/// Built under any state; its impl block's handler reads `AppState`.
#[controller]
pub struct UsersController {
    ctx: RequestContext,
}

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list(&self, State(state): State<AppState>) -> Response {
        self.ctx.send(format!("{}users", state.prefix))
    }
}

rest_root_module! {
    pub struct AppModule {
        state: AppState,
        controllers: [ItemsController, TagsController, UsersController],
    }
}

async fn get(router: &axum::Router, uri: &str) -> String {
    let request = Request::get(uri).body(Body::empty()).unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200, "{uri}");
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[tokio::main]
async fn main() {
    let router: axum::Router = AppModule::router()
        .unwrap()
        .with_state(AppState { prefix: "#" });
    assert_eq!(get(&router, "/items/7").await, "#7");
    assert_eq!(get(&router, "/tags").await, "##");
    assert_eq!(get(&router, "/users").await, "#users");
}
