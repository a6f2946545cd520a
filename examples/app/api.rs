//! The API of the example application: a root module with CORS for the whole application (and,
//! from its configuration, protection from cross-site form posts) and its OpenAPI document, a
//! public health check, session and WebSocket echo, and a users module under `/api/v1` behind a
//! bearer token.

use std::sync::{Arc, RwLock};

use anyhow::Context as _;
use axum::Json;
use axum::extract::ws::{Message, WebSocketUpgrade};
use axum::extract::{FromRef, FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use cors_axum::CorsOptions;
use cors_axum::app::{ApplicationBuilder, Guard, GuardDeclaration};
use cors_axum::cors::CorsReload;
use cors_axum::openapi::OpenapiModule;
use cors_axum::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::Info;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};

/// The configuration, read from a JSON file at start.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Config {
    /// Where to listen, such as `127.0.0.1:3000`.
    pub(crate) listen: String,
    /// The bearer token the users API requires.
    pub(crate) api_token: String,
    /// CORS for the whole application: origins, credentials, headers, max-age.
    pub(crate) cors: CorsOptions,
}

/// The application state: the users "database".
#[derive(Clone, Default)]
pub(crate) struct AppState {
    pub(crate) users: Users,
}

/// The stored users.
#[derive(Clone, Default)]
pub(crate) struct Users(Arc<RwLock<Vec<User>>>);

impl FromRef<AppState> for Users {
    fn from_ref(state: &AppState) -> Users {
        state.users.clone()
    }
}

/// A user.
#[derive(Clone, Serialize, ToSchema)]
pub(crate) struct User {
    pub(crate) id: usize,
    pub(crate) name: String,
}

/// A user to create.
#[derive(Deserialize, ToSchema)]
pub(crate) struct NewUser {
    pub(crate) name: String,
}

/// The token the users API requires, provided at start from the configuration.
#[derive(Clone)]
pub(crate) struct ApiToken(pub(crate) String);

/// A guard: requests without `Authorization: Bearer <token>` get `401`, which carries the CORS
/// headers like any other answer, so the page can read it.
pub(crate) struct Bearer;

/// `declare`: `Bearer` takes the `ApiToken` provided at start (without it, the router build
/// fails), and in the OpenAPI document the routes it guards require a bearer token, so that a
/// documentation page sends one.
impl<S: Send + Sync> Guard<S> for Bearer {
    type Rejection = (
        StatusCode,
        [(header::HeaderName, &'static str); 1],
        &'static str,
    );

    async fn check(parts: &mut Parts, state: &S) -> Result<(), Self::Rejection> {
        let unauthorized = (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "missing or wrong bearer token\n",
        );
        let Ok(Inject(ApiToken(token))) =
            Inject::<ApiToken>::from_request_parts(parts, state).await
        else {
            return Err(unauthorized);
        };
        let sent = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "));
        match sent {
            Some(sent) if sent == token => Ok(()),
            _ => Err(unauthorized),
        }
    }

    fn declare(guard: &mut GuardDeclaration) {
        let scheme = SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer));
        guard.inject::<ApiToken>().security("bearerAuth", scheme);
    }
}

/// `/api/v1/users`: the users, behind the bearer token.
pub(crate) struct UsersController;

#[controller("users", state = AppState)]
impl UsersController {
    /// Lists the users.
    #[route("GET")]
    async fn list(State(users): State<Users>) -> Json<Vec<User>> {
        Json(users.0.read().expect("not poisoned").clone())
    }

    /// Creates a user.
    ///
    /// Its address is in `Location`.
    #[route("POST")]
    #[utoipa::path(responses(
        (status = 201, description = "the user, created", body = User,
            headers(("location" = String, description = "the user's address"))),
    ))]
    async fn create(
        State(users): State<Users>,
        Json(new): Json<NewUser>,
    ) -> (StatusCode, [(header::HeaderName, String); 1], Json<User>) {
        let mut users = users.0.write().expect("not poisoned");
        let user = User {
            id: users.len() + 1,
            name: new.name,
        };
        users.push(user.clone());
        let location = format!("/api/v1/users/{}", user.id);
        (
            StatusCode::CREATED,
            [(header::LOCATION, location)],
            Json(user),
        )
    }

    /// One user.
    #[route("GET", "{id}")]
    #[utoipa::path(responses(
        (status = 200, description = "the user", body = User),
        (status = 404, description = "no user has this id"),
    ))]
    async fn one(
        State(users): State<Users>,
        Path(id): Path<usize>,
    ) -> Result<Json<User>, StatusCode> {
        let users = users.0.read().expect("not poisoned");
        users
            .iter()
            .find(|user| user.id == id)
            .cloned()
            .map(Json)
            .ok_or(StatusCode::NOT_FOUND)
    }
}

feature_module! {
    /// The users API, imported under `/api/v1`.
    pub(crate) struct UsersModule {
        state: AppState,
        controllers: [UsersController],
        guards: [Bearer],
    }
}

/// `/health` and `/session`: public.
pub(crate) struct PublicController;

#[controller]
impl PublicController {
    /// Answers `ok` while the server runs.
    #[route("GET", "health")]
    async fn health() -> &'static str {
        "ok\n"
    }

    /// Signs in: sets the session cookie on a credentialed response.
    #[route("POST", "session")]
    async fn sign_in(cors: CorsService, ctx: RequestContext) -> Response {
        cors.set_cookie("session", "example-session");
        ctx.send("signed in\n")
    }

    /// Echoes what a WebSocket sends. A handshake from an origin the CORS options do not allow
    /// is refused with `403` before it gets here: browsers apply no CORS to WebSockets. `GET`
    /// serves HTTP/1.1's handshake, `CONNECT` HTTP/2's (RFC 8441), decided alike.
    #[route("GET", "ws")]
    #[route("CONNECT", "ws")]
    async fn echo(upgrade: WebSocketUpgrade) -> Response {
        upgrade.on_upgrade(|mut socket| async move {
            while let Some(Ok(message)) = socket.recv().await {
                let echo = match message {
                    Message::Text(text) => Message::Text(text),
                    Message::Binary(bytes) => Message::Binary(bytes),
                    Message::Close(_) => break,
                    // Pings are answered by axum itself.
                    Message::Ping(_) | Message::Pong(_) => continue,
                };
                if socket.send(echo).await.is_err() {
                    break;
                }
            }
        })
    }

    /// Shows the session cookie the browser sent back.
    #[route("GET", "session")]
    async fn session(headers: HeaderMap) -> String {
        let cookie = headers
            .get(header::COOKIE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("");
        format!("cookie: {cookie}\n")
    }
}

rest_root_module! {
    /// The application: CORS for every module, its OpenAPI document at `/openapi.json` (and a
    /// page that shows it at `/docs`), the public routes, the users API under `/api/v1`.
    pub(crate) struct AppModule {
        state: AppState,
        imports: [
            CorsModule,
            OpenapiModule::with(Info::new("cors-axum example app", env!("CARGO_PKG_VERSION")))
                .page("/docs"),
            Import::at("/api/v1", UsersModule),
        ],
        controllers: [PublicController],
    }
}

/// The application as configured: the CORS options and the token come from the configuration;
/// `reload` replaces the CORS options later ([`reload_cors`]).
pub(crate) fn application(config: &Config, reload: &CorsReload) -> ApplicationBuilder<AppState> {
    AppModule::builder()
        .provide(config.cors.clone())
        .provide(ApiToken(config.api_token.clone()))
        .cors_reload(reload)
}

/// Reads the configuration file at `path`.
pub(crate) fn read_config(path: &str) -> anyhow::Result<Config> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {path}"))
}

/// The CORS options in the text of a configuration file, for `CorsReload::watch_file`.
pub(crate) fn cors_of(text: &str) -> Result<CorsOptions, cors_axum::cors::BoxError> {
    Ok(serde_json::from_str::<Config>(text)?.cors)
}
