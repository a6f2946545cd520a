use cors_axum::prelude::*;

#[controller("items")]
pub struct ItemsController {
    ctx: RequestContext,
}

fn main() {}
