//! Building a router of 10,000 paths with `GET` and `POST` each: the module system against
//! plain axum building the same routes, and, with CORS, `CorsModule` against plain axum with a
//! hand-written `OPTIONS` route per path and one tower-http `CorsLayer`.
//!
//! `cargo bench -p cors-axum --bench router_build`

use std::any::TypeId;
use std::hint::black_box;

use axum::Router;
use axum::routing::{MethodRouter, get, options};
use cors_axum::__private::{
    ControllerRef, ModuleDefinition, Needs, RouteDef, RouteDoc, RouteSetup,
};
use cors_axum::{Application, CorsModule, Module};
use criterion::{Criterion, criterion_group};
use http::Method;

const PATHS: usize = 10_000;

struct BenchController;

struct BenchModule {
    cors: bool,
    routes: &'static [RouteDef<()>],
}

impl Module for BenchModule {
    fn definition(&self) -> ModuleDefinition<()> {
        let definition = ModuleDefinition::new::<BenchModule>("BenchModule").controller_ref(
            ControllerRef::from_parts(
                TypeId::of::<BenchController>(),
                "BenchController",
                self.routes,
            ),
        );
        if self.cors {
            definition.import(CorsModule)
        } else {
            definition
        }
    }
}

async fn handler() -> &'static str {
    "ok"
}

fn get_route(into: MethodRouter, setup: RouteSetup<()>) -> MethodRouter {
    cors_axum::__private::route_into(into, axum::routing::MethodFilter::GET, handler, setup)
}

fn post_route(into: MethodRouter, setup: RouteSetup<()>) -> MethodRouter {
    cors_axum::__private::route_into(into, axum::routing::MethodFilter::POST, handler, setup)
}

fn no_needs(_: &mut Needs) {}

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
            .map(|(method, method_router)| RouteDef {
                method,
                path,
                handler: "handler",
                method_router,
                guards: &[],
                layered: false,
                providers: None,
                needs: no_needs,
                doc: RouteDoc::UNDOCUMENTED,
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
    Application::build(BenchModule { cors, routes }).expect("builds")
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
    group.finish();
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

/// `ROUTER_BUILD_ONCE=setup|plain|modules|tower-http|cors` builds once and exits, for
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
            panic!("ROUTER_BUILD_ONCE={other}: expected setup, plain, modules, tower-http or cors")
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
