use cors_axum::prelude::*;

#[controller]
pub struct ItemsController<T> {
    ctx: RequestContext,
    value: Inject<T>,
}

fn main() {}
