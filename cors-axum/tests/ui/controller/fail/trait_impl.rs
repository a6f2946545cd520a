use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl Default for ItemsController {
    fn default() -> Self {
        ItemsController
    }
}

fn main() {}
