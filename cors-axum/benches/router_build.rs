//! Building a router of 10,000 routes: the module system against plain axum building the same
//! routes, and the same with `CorsModule` imported.
//!
//! `cargo bench -p cors-axum --bench router_build`

use std::hint::black_box;

use axum::Router;
use axum::routing::{MethodRouter, get};
use cors_axum::__private::RouteRegistration;
use cors_axum::{Application, Controller, CorsModule, Module, ModuleDefinition};
use criterion::{Criterion, criterion_group};

const ROUTES: usize = 10_000;

struct BenchController;

impl Controller for BenchController {
    const NAME: &'static str = "BenchController";
}

struct BenchModule {
    cors: bool,
}

impl Module for BenchModule {
    fn definition(&self) -> ModuleDefinition {
        let definition =
            ModuleDefinition::new::<BenchModule>("BenchModule").controller::<BenchController>();
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

fn method_router() -> MethodRouter {
    get(handler)
}

fn paths() -> Vec<&'static str> {
    (0..ROUTES)
        .map(|i| &*Box::leak(format!("/resource{}/item{}", i / 100, i).into_boxed_str()))
        .collect()
}

fn registrations(paths: &[&'static str]) -> Vec<RouteRegistration> {
    paths
        .iter()
        .map(|path| RouteRegistration {
            controller: cors_axum::__private::type_id_of::<BenchController>,
            controller_name: BenchController::NAME,
            method: "GET",
            path,
            handler: "handler",
            method_router,
            controller_providers: None,
            route_providers: None,
        })
        .collect()
}

fn router_build(c: &mut Criterion) {
    let paths = paths();
    let registrations = registrations(&paths);
    let mut group = c.benchmark_group("build 10k routes");
    group.sample_size(20);
    group.bench_function("plain axum", |b| {
        b.iter(|| {
            let mut router: Router = Router::new();
            for path in &paths {
                router = router.route(path, get(handler));
            }
            black_box(router)
        });
    });
    group.bench_function("cors-axum modules", |b| {
        b.iter(|| {
            let app =
                Application::build_from(BenchModule { cors: false }.definition(), &registrations)
                    .expect("builds");
            black_box(app)
        });
    });
    group.bench_function("cors-axum modules + CorsModule", |b| {
        b.iter(|| {
            let app =
                Application::build_from(BenchModule { cors: true }.definition(), &registrations)
                    .expect("builds");
            black_box(app)
        });
    });
    group.finish();
}

/// `ROUTER_BUILD_ONCE=setup|plain|modules|cors` builds once and exits, for instruction counts under
/// `valgrind --tool=callgrind`, which the noise of a shared machine does not move.
fn build_once(which: &str) {
    let paths = paths();
    let registrations = registrations(&paths);
    match which {
        "plain" => {
            let mut router: Router = Router::new();
            for path in &paths {
                router = router.route(path, get(handler));
            }
            drop(black_box(router));
        }
        // Only the setup above, to subtract from the others.
        "setup" => {}
        "modules" | "cors" => {
            let module = BenchModule {
                cors: which == "cors",
            };
            black_box(
                Application::build_from(module.definition(), &registrations).expect("builds"),
            );
        }
        other => panic!("ROUTER_BUILD_ONCE={other}: expected setup, plain, modules or cors"),
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
