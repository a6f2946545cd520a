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

    #[route("GET", "items/{id}")]
    async fn show(&self, id: axum::extract::Path<u32>) -> Response {
        self.ctx.send(id.0.to_string())
    }
}

fn main() {}
