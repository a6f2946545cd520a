//! The tenants API: `GET /` for the tenants' front-ends, a `POST /notes` that cross-origin
//! protection guards, a WebSocket echo on `/ws`; CORS from the front-end's own origin, the
//! tenants' origins of an [`OriginSet`] that the database fills, granted on every host, and
//! each tenant's own origins of a [`TenantOrigins`], granted on its host only.

use axum::extract::ws::{Message, WebSocketUpgrade};
use cors_axum::cors::{OriginSet, TenantOrigins};
use cors_axum::prelude::*;
use cors_axum::{BuildError, CorsOptions};

pub(crate) struct TenantsController;

#[controller]
impl TenantsController {
    #[route("GET")]
    async fn index() -> &'static str {
        "hello from the tenants API\n"
    }

    #[route("POST", "notes")]
    async fn note() -> &'static str {
        "noted\n"
    }

    #[route("GET", "ws")]
    #[route("CONNECT", "ws")]
    async fn echo(upgrade: WebSocketUpgrade) -> Response {
        upgrade.on_upgrade(|mut socket| async move {
            while let Some(Ok(message)) = socket.recv().await {
                if matches!(message, Message::Close(_)) || socket.send(message).await.is_err() {
                    break;
                }
            }
        })
    }
}

rest_root_module! {
    pub(crate) struct TenantsApp {
        imports: [CorsModule],
        controllers: [TenantsController],
    }
}

/// The CORS options: the front-end's origin, every origin of `tenants`, and on a tenant's host
/// its origins of `hosts`; cross-site posts refused unless from one of them; WebSocket
/// handshakes checked against the same origins.
pub(crate) fn cors(front_end: &str, tenants: &OriginSet, hosts: &TenantOrigins) -> CorsOptions {
    CorsOptions::new()
        .origin([front_end])
        .origin_set(tenants)
        .tenant_origins(hosts)
        .protect_cross_origin(true)
}

/// The application's router.
pub(crate) fn router(
    front_end: &str,
    tenants: &OriginSet,
    hosts: &TenantOrigins,
) -> Result<axum::Router, BuildError> {
    Ok(TenantsApp::builder()
        .provide(cors(front_end, tenants, hosts))
        .build()?
        .into_router())
}
