use cors_axum::prelude::*;

pub struct Handlers;

#[controller]
impl Handlers {
    #[route("POST")]
    async fn body_first(body: String, ctx: RequestContext) -> Response {
        ctx.send(body)
    }
}

fn main() {}
