use cors_axum::prelude::*;

#[controller]
pub struct ItemsController {
    ctx: RequestContext,
}

#[controller]
impl ItemsController {
    #[route("GET", "items")]
    async fn list(&mut self) -> Response {
        self.ctx.send("[]")
    }
}

fn main() {}
