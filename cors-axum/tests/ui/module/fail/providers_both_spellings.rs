// `providers_per_route` and `providers_per_rou` are one key: a module gives one of them.
use cors_axum::prelude::*;

rest_root_module! {
    pub struct AppModule {
        providers_per_rou: [ProviderBuilder::new().use_value(1u8)],
        providers_per_route: [ProviderBuilder::new().use_value(2u16)],
    }
}

fn main() {}
