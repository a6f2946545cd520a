// `#[controller("prefix")]` and `#[controller(path = .., cors = .., providers = [..])]`.
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct Label(&'static str);

pub struct UsersController;

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }

    #[route("GET", "{id}")]
    async fn show() -> &'static str {
        "{}"
    }
}

pub struct AccountsController;

#[controller(path = "accounts", cors = CorsOptions::new().max_age(60u64))]
impl AccountsController {
    #[route("GET")]
    async fn list() -> &'static str {
        "[]"
    }
}

pub struct LabelledController;

#[controller(
    "/labelled/",
    providers = [ProviderBuilder::new().use_value(Label("controller"))],
    cors = CorsOptions::new().origin("https://example.com"),
)]
impl LabelledController {
    #[route("GET")]
    async fn get(Inject(Label(label)): Inject<Label>) -> &'static str {
        label
    }
}

rest_root_module! {
    pub struct AppModule {
        imports: [CorsModule::with_opts(CorsOptions::new())],
        controllers: [UsersController, AccountsController, LabelledController],
    }
}

fn main() {
    let routes = AppModule::routes().unwrap();
    let mut seen: Vec<String> = routes
        .iter()
        .filter(|r| r.method() != "OPTIONS")
        .map(|r| format!("{} {}", r.method(), r.path()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        ["GET /accounts", "GET /labelled", "GET /users", "GET /users/{id}"]
    );
}
