// One controller with both associated-function and `&self` handlers.
use axum::extract::Path;
use cors_axum::prelude::*;

#[controller]
pub struct UsersController {
    ctx: RequestContext,
}

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }

    #[route("GET", "{id}")]
    async fn show(&self, Path(id): Path<u64>) -> Response {
        self.ctx.send(format!("user {id}"))
    }

    #[route("DELETE", "{id}")]
    async fn remove(Path(id): Path<u64>) -> String {
        format!("removed {id}")
    }

    /// Not a route: methods without `#[route]` stay ordinary methods.
    #[allow(dead_code)]
    fn helper(&self) -> &RequestContext {
        &self.ctx
    }

    /// Items other than methods are allowed in a controller.
    #[allow(dead_code)]
    const PAGE_SIZE: usize = 20;
}

rest_root_module! {
    pub struct AppModule {
        controllers: [UsersController],
    }
}

fn main() {
    let routes = AppModule::routes().unwrap();
    let mut seen: Vec<String> = routes
        .iter()
        .map(|r| format!("{} {} {}", r.method(), r.path(), r.handler()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        ["DELETE /users/{id} remove", "GET /users list", "GET /users/{id} show"]
    );
}
