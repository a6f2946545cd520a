use std::marker::PhantomData;

use cors_axum::prelude::*;

pub struct ItemsController<T>(PhantomData<T>);

#[controller]
impl<T: Send + 'static> ItemsController<T> {
    #[route("GET", "items")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
