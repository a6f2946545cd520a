//! Building a router of 10,000 paths with `GET` and `POST` each: the module system against
//! plain axum building the same routes, and, with CORS, `CorsModule` against plain axum with a
//! hand-written `OPTIONS` route per path and one tower-http `CorsLayer`. With the `openapi`
//! feature, the same with `OpenapiModule` imported (whose document is made on its first
//! request, measured apart).
//!
//! `cargo bench -p cors-axum --bench router_build [--features openapi]`

use std::hint::black_box;

use axum::Router;
use axum::routing::{MethodFilter, MethodRouter, get, options};
use cors_axum::__private::{
    ControllerRef, ModuleDefinition, Needs, RouteDef, RouteSetup, route_into,
};
use cors_axum::app::Module;
use cors_axum::{Application, CorsModule};
use criterion::{Criterion, criterion_group};
use http::Method;

const PATHS: usize = 10_000;

struct BenchController;

struct BenchModule {
    cors: bool,
    openapi: bool,
    routes: &'static [RouteDef<()>],
}

impl Module for BenchModule {
    fn definition(&self) -> ModuleDefinition<()> {
        let mut definition = ModuleDefinition::new::<BenchModule>("BenchModule").controller_ref(
            ControllerRef::new::<BenchController>("BenchController", self.routes, None),
        );
        if self.cors {
            definition = definition.import(CorsModule);
        }
        #[cfg(feature = "openapi")]
        if self.openapi {
            definition = definition.import(cors_axum::openapi::OpenapiModule);
        }
        #[cfg(not(feature = "openapi"))]
        assert!(!self.openapi, "`OpenapiModule` needs the `openapi` feature");
        definition
    }
}

async fn handler() -> &'static str {
    "ok"
}

fn get_route(into: MethodRouter, setup: RouteSetup<()>) -> MethodRouter {
    route_into(into, MethodFilter::GET, handler, setup)
}

fn post_route(into: MethodRouter, setup: RouteSetup<()>) -> MethodRouter {
    route_into(into, MethodFilter::POST, handler, setup)
}

fn no_needs(_: usize, _: &mut Needs) {}

fn paths() -> Vec<&'static str> {
    (0..PATHS)
        .map(|i| &*Box::leak(format!("/resource{}/item{}", i / 100, i).into_boxed_str()))
        .collect()
}

/// The routes `#[controller]` would declare: `GET` and `POST` on every path.
fn routes(paths: &[&'static str]) -> &'static [RouteDef<()>] {
    let routes: Vec<RouteDef<()>> = paths
        .iter()
        .flat_map(|path| {
            [
                (
                    Method::GET,
                    get_route as fn(MethodRouter, RouteSetup<()>) -> MethodRouter,
                ),
                (Method::POST, post_route),
            ]
            .map(|(method, method_router)| {
                RouteDef::new(method, path, "handler", method_router, no_needs, 0)
            })
        })
        .collect();
    Box::leak(routes.into_boxed_slice())
}

fn plain(paths: &[&'static str]) -> Router {
    let mut router = Router::new();
    for path in paths {
        router = router.route(path, get(handler).post(handler));
    }
    router
}

/// Plain axum with what `CorsModule` gives: an `OPTIONS` route per path, and CORS.
fn plain_with_tower_http(paths: &[&'static str]) -> Router {
    let mut router = Router::new();
    for path in paths {
        router = router.route(
            path,
            get(handler).post(handler).merge(options(|| async { "" })),
        );
    }
    router.layer(
        tower_http::cors::CorsLayer::new()
            .allow_origin(tower_http::cors::Any)
            .allow_methods([Method::GET, Method::POST]),
    )
}

fn modules(routes: &'static [RouteDef<()>], cors: bool) -> Application {
    Application::build(BenchModule {
        cors,
        openapi: false,
        routes,
    })
    .expect("builds")
}

/// The module system with `OpenapiModule` imported (and `CorsModule` if `cors`).
fn with_openapi(routes: &'static [RouteDef<()>], cors: bool) -> Application {
    Application::build(BenchModule {
        cors,
        openapi: true,
        routes,
    })
    .expect("builds")
}

/// The document of the application built with `OpenapiModule`, made by its first request.
#[cfg(feature = "openapi")]
fn first_document(app: Application) -> axum::response::Response {
    use std::future::Future;
    use tower_service::Service;
    let mut router = app.into_router().with_state(());
    let request = http::Request::get("/openapi.json")
        .body(axum::body::Body::empty())
        .expect("a valid request");
    let future = std::pin::pin!(router.call(request));
    match future.poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
        std::task::Poll::Ready(Ok(response)) => response,
        _ => unreachable!("the document is answered at once"),
    }
}

fn router_build(c: &mut Criterion) {
    let paths = paths();
    let routes = routes(&paths);
    let mut group = c.benchmark_group("build 10k paths, GET and POST");
    group.sample_size(20);
    group.bench_function("plain axum", |b| b.iter(|| black_box(plain(&paths))));
    group.bench_function("cors-axum modules", |b| {
        b.iter(|| black_box(modules(routes, false)))
    });
    group.bench_function("plain axum + OPTIONS routes + tower-http CorsLayer", |b| {
        b.iter(|| black_box(plain_with_tower_http(&paths)))
    });
    group.bench_function("cors-axum modules + CorsModule", |b| {
        b.iter(|| black_box(modules(routes, true)))
    });
    if cfg!(feature = "openapi") {
        group.bench_function("cors-axum modules + OpenapiModule", |b| {
            b.iter(|| black_box(with_openapi(routes, false)))
        });
        group.bench_function("cors-axum modules + CorsModule + OpenapiModule", |b| {
            b.iter(|| black_box(with_openapi(routes, true)))
        });
    }
    group.finish();
    #[cfg(feature = "openapi")]
    {
        let mut group = c.benchmark_group("OpenAPI document of 10k paths");
        group.sample_size(10);
        group.bench_function("made by the first request", |b| {
            b.iter_batched(
                || with_openapi(routes, true),
                |app| black_box(first_document(app)),
                criterion::BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

/// What `axum::serve(listener, router)` does for each connection it accepts: the router is
/// prepared again (every route turned into a service), which costs in proportion to the routes.
#[inline(never)]
fn connect_router(router: &Router) -> Router {
    router.clone().with_state(())
}

/// What `axum::serve(listener, router.into_make_service())` does for each connection: a clone
/// of the router prepared once, which shares its routes.
#[inline(never)]
fn connect_make_service(make: &mut axum::routing::IntoMakeService<Router>) -> Router {
    use std::future::Future;
    use tower_service::Service;
    let future = std::pin::pin!(make.call(()));
    match future.poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
        std::task::Poll::Ready(Ok(router)) => router,
        _ => unreachable!("IntoMakeService answers at once"),
    }
}

/// `ROUTER_BUILD_ONCE=setup|plain|modules|tower-http|cors|openapi|cors-openapi` builds once
/// and exits (`document` also makes the document of `cors-openapi`), for
/// instruction counts under `valgrind --tool=callgrind`, which the noise of a shared machine
/// does not move. `connections` builds the `CorsModule` application and accepts 100
/// connections both ways; count `connect_router` and `connect_make_service` with callgrind's
/// `--toggle-collect`.
fn build_once(which: &str) {
    let paths = paths();
    let routes = routes(&paths);
    match which {
        // Only the setup above, to subtract from the others.
        "setup" => {}
        "plain" => drop(black_box(plain(&paths))),
        "tower-http" => drop(black_box(plain_with_tower_http(&paths))),
        "modules" => drop(black_box(modules(routes, false))),
        "cors" => drop(black_box(modules(routes, true))),
        "openapi" => drop(black_box(with_openapi(routes, false))),
        "cors-openapi" => drop(black_box(with_openapi(routes, true))),
        #[cfg(feature = "openapi")]
        "document" => {
            let document = first_document(with_openapi(routes, true));
            let size = axum::body::HttpBody::size_hint(document.body()).exact();
            eprintln!("document: {} bytes", size.unwrap_or_default());
        }
        "connections" => {
            let router = modules(routes, true).into_router();
            for _ in 0..100 {
                drop(black_box(connect_router(&router)));
            }
            let mut make = router.into_make_service();
            for _ in 0..100 {
                drop(black_box(connect_make_service(&mut make)));
            }
        }
        other => {
            panic!(
                "ROUTER_BUILD_ONCE={other}: expected setup, plain, modules, tower-http, cors, \
                 openapi, cors-openapi or document"
            )
        }
    }
}

criterion_group!(benches, router_build);

fn main() {
    if let Ok(which) = std::env::var("ROUTER_BUILD_ONCE") {
        build_once(&which);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
