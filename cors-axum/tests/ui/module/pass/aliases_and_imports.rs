// `restRootModule!` and `feature_module!`, and a feature module mounted with `Import::at`.
use cors_axum::prelude::*;

pub struct UsersController;

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }
}

pub struct HealthController;

#[controller]
impl HealthController {
    #[route("GET", "health")]
    async fn health() -> &'static str {
        "ok"
    }
}

feature_module! {
    pub struct UsersModule {
        controllers: [UsersController],
    }
}

restRootModule! {
    pub struct AppModule {
        imports: [Import::at("/api", UsersModule), CorsModule],
        controllers: [HealthController],
    }
}

fn main() {
    let routes = AppModule::routes().unwrap();
    let mut seen: Vec<String> = routes
        .iter()
        .map(|r| format!("{} {} {}", r.method(), r.path(), r.module()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            "GET /api/users UsersModule",
            "GET /health AppModule",
            "OPTIONS /api/users UsersModule",
            "OPTIONS /health AppModule"
        ]
    );
    assert_eq!(UsersModule::routes().unwrap().len(), 1);
}
