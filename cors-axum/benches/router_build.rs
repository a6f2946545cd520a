//! Building a router of 10,000 routes: the module system against plain axum building the same
//! routes, and the same with `CorsModule` imported.
//!
//! `cargo bench -p cors-axum --bench router_build`

use std::hint::black_box;

use axum::Router;
use axum::routing::{MethodRouter, get};
use cors_axum::__private::RouteRegistration;
use cors_axum::{Application, Controller, CorsModule, Module, ModuleDefinition};
use criterion::{Criterion, criterion_group, criterion_main};

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

criterion_group!(benches, router_build);
criterion_main!(benches);
