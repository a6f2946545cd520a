// The macros' expansions name everything by absolute path: they work without the prelude.
#![no_implicit_prelude]

use ::axum::extract::Path;
use ::cors_axum::prelude::*;

pub struct PlainController;

#[controller("plain", cors = CorsOptions::new().max_age(60u64))]
impl PlainController {
    #[route("GET", "{id}", providers = [ProviderBuilder::new().use_value(Tag("route"))])]
    async fn get(Path(id): Path<u32>, Inject(Tag(tag)): Inject<Tag>) -> ::std::string::String {
        ::std::format!("{id} {tag}")
    }

    #[route("POST", cors = CorsOptions::new())]
    async fn post(body: ::std::string::String) -> ::std::string::String {
        body
    }
}

#[derive(::core::clone::Clone)]
pub struct Tag(&'static str);

#[controller]
pub struct InjectedController {
    ctx: RequestContext,
    cors: CorsService,
    tag: Inject<Tag>,
}

#[controller]
impl InjectedController {
    #[route("GET", "injected")]
    async fn get(&self) -> Response {
        self.cors.allow_credentials();
        self.ctx.send(self.tag.0.0)
    }

    #[route("PUT", "injected/{id}")]
    async fn put(self, Path(id): Path<u32>) -> Response {
        self.ctx.send(::std::format!("{id}"))
    }
}

feature_module! {
    pub struct PlainModule {
        controllers: [PlainController],
    }
}

rest_root_module! {
    pub struct AppModule {
        imports: [
            Import::at("/api", PlainModule),
            CorsModule::with_opts(CorsOptions::new().origin("https://example.com")),
        ],
        controllers: [InjectedController],
        providers_per_rou: [ProviderBuilder::new().use_value(Tag("module"))],
    }
}

restRootModule! {
    pub struct OtherModule {
        imports: [AppModule],
    }
}

fn main() {
    let routes = AppModule::routes().unwrap();
    // CORS covers the imported module too: an `OPTIONS` route for each of its two paths.
    ::std::assert_eq!(routes.len(), 8);
    ::std::assert_eq!(OtherModule::routes().unwrap().len(), 8);
}
