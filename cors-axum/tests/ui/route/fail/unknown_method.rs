use cors_axum::prelude::*;

pub struct ItemsController;

#[controller]
impl ItemsController {
    #[route("FETCH", "items")]
    async fn list() -> &'static str {
        "[]"
    }
}

// Only the route is reported: the controller is still a controller.
rest_root_module! {
    pub struct AppModule {
        controllers: [ItemsController],
    }
}

fn main() {}
