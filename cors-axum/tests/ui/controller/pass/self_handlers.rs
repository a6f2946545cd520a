// `&self` and `self` handlers on a controller whose fields are injected per request.
use axum::extract::Path;
use cors_axum::prelude::*;

#[derive(Clone)]
pub struct Greeting(&'static str);

#[controller]
pub struct GreetController {
    ctx: RequestContext,
    cors: CorsService,
    greeting: Inject<Greeting>,
}

#[controller]
impl GreetController {
    #[route("GET", "greet")]
    async fn greet(&self) -> Response {
        self.ctx.send(self.greeting.0.0)
    }

    #[route("GET", "greet/{name}")]
    async fn greet_name(&self, Path(name): Path<String>) -> Response {
        self.cors.set_cookie("name", name.clone());
        self.ctx.send(format!("{} {name}", self.greeting.0.0))
    }

    #[route("POST", "greet")]
    async fn consume(self, body: String) -> String {
        format!("{} {body} {}", self.greeting.0.0, self.ctx.method())
    }

    #[route("PUT", "greet")]
    async fn with_self_type(&self, _other: Inject<Greeting>) -> Response {
        self.ctx.send("ok")
    }
}

/// Tuple and unit structs are controllers too.
#[controller]
pub struct TupleController(RequestContext);

#[controller]
impl TupleController {
    #[route("GET", "tuple")]
    async fn get(&self) -> String {
        self.0.uri().to_string()
    }
}

#[controller]
pub struct UnitController;

#[controller]
impl UnitController {
    #[route("GET", "unit")]
    async fn get(&self) -> &'static str {
        "unit"
    }
}

rest_root_module! {
    pub struct AppModule {
        imports: [CorsModule],
        controllers: [GreetController, TupleController, UnitController],
        providers_per_rou: [ProviderBuilder::new().use_value(Greeting("hello"))],
    }
}

fn main() {
    let routes = AppModule::routes().unwrap();
    let mut seen: Vec<String> = routes
        .iter()
        .map(|r| format!("{} {} {}::{}", r.method(), r.path(), r.controller(), r.handler()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            "GET /greet GreetController::greet",
            "GET /greet/{name} GreetController::greet_name",
            "GET /tuple TupleController::get",
            "GET /unit UnitController::get",
            "OPTIONS /greet CorsModule::options",
            "OPTIONS /greet/{name} CorsModule::options",
            "OPTIONS /tuple CorsModule::options",
            "OPTIONS /unit CorsModule::options",
            "POST /greet GreetController::consume",
            "PUT /greet GreetController::with_self_type",
        ]
    );
}
