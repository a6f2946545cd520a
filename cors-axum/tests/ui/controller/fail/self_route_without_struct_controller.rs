use cors_axum::prelude::*;

// Missing: `#[controller]` on the struct, which builds it per request from its fields.
pub struct ItemsController {
    ctx: RequestContext,
}

#[controller]
impl ItemsController {
    #[route("GET", "items")]
    async fn list(&self) -> Response {
        self.ctx.send("[]")
    }
}

fn main() {}
