use cors_axum::prelude::*;

#[derive(Clone)]
pub struct Db;

#[controller]
pub struct UsersController {
    ctx: RequestContext,
    db: Db,
}

#[controller]
impl UsersController {
    #[route("GET")]
    async fn list(&self) -> Response {
        let _ = &self.db;
        self.ctx.send("[]")
    }
}

fn main() {}
