//! cors-core's engine against tower-http's `CorsLayer`, configured the same way and driven the
//! same way: a middleware of the same shape (a `Service` with a pin-projected future) around the
//! same trivial inner `service_fn` returning an empty response, called with
//! `ServiceExt::oneshot` and polled once (both complete without waiting).
//!
//! Run with `cargo bench -p cors-axum-core`.

use std::convert::Infallible;
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use cors_axum_core::{
    ActualDecision, CorsOptions, CorsPolicy, CorsRequest, RequestKind, ResponseCredentials,
};
use criterion::{BatchSize, Criterion, criterion_group};
use http::header::{
    ACCESS_CONTROL_REQUEST_HEADERS, ACCESS_CONTROL_REQUEST_METHOD, CONTENT_TYPE, ORIGIN,
};
use http::{HeaderName, HeaderValue, Method, Request, Response};
use tower::{Layer, Service, ServiceExt, service_fn};

const ORIGINS: [&str; 3] = [
    "https://a.example",
    "https://example.com",
    "https://b.example",
];
const X_REQUESTED_WITH: HeaderName = HeaderName::from_static("x-requested-with");
const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

type Body = String;

async fn inner(_request: Request<Body>) -> Result<Response<Body>, Infallible> {
    Ok(Response::new(Body::new()))
}

/// Polls a future that completes without waiting.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the service should complete at once"),
    }
}

fn tower_http_service()
-> impl Service<Request<Body>, Response = Response<Body>, Error = Infallible, Future: Send> + Clone
{
    tower_http::cors::CorsLayer::new()
        .allow_origin(tower_http::cors::AllowOrigin::list(
            ORIGINS.map(HeaderValue::from_static),
        ))
        .allow_methods([Method::GET, Method::POST, Method::PUT])
        .allow_headers([CONTENT_TYPE, X_REQUESTED_WITH])
        .expose_headers([X_REQUEST_ID])
        .max_age(Duration::from_secs(600))
        .layer(service_fn(inner))
}

/// A minimal tower middleware around the engine, shaped like tower-http's `Cors` (a `Service`
/// with a pin-projected future): a preflight is decided and answered in `call`; any other request
/// is decided in `call`, goes to the inner service, and the decision writes the CORS headers into
/// its response.
#[derive(Clone)]
struct CoreCors<S> {
    inner: S,
    policy: Arc<CorsPolicy>,
}

impl<S> Service<Request<Body>> for CoreCors<S>
where
    S: Service<Request<Body>, Response = Response<Body>>,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = CoreCorsFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let cors = CorsRequest::new(request.method(), request.headers());
        if cors.kind() == RequestKind::Preflight {
            let decision = self.policy.preflight(&cors);
            let mut response = Response::new(Body::new());
            *response.status_mut() = decision.status();
            decision.write(response.headers_mut());
            return CoreCorsFuture::Preflight {
                response: Some(response),
            };
        }
        let decision = self.policy.actual(&cors);
        CoreCorsFuture::Actual {
            future: self.inner.call(request),
            decision,
        }
    }
}

pin_project_lite::pin_project! {
    #[project = CoreCorsFutureProj]
    enum CoreCorsFuture<F> {
        Preflight { response: Option<Response<Body>> },
        Actual { #[pin] future: F, decision: ActualDecision },
    }
}

impl<F, E> Future for CoreCorsFuture<F>
where
    F: Future<Output = Result<Response<Body>, E>>,
{
    type Output = Result<Response<Body>, E>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            CoreCorsFutureProj::Preflight { response } => {
                Poll::Ready(Ok(response.take().expect("polled after completion")))
            }
            CoreCorsFutureProj::Actual { future, decision } => {
                let mut response = std::task::ready!(future.poll(cx))?;
                decision.write(response.headers_mut(), ResponseCredentials::Policy);
                Poll::Ready(Ok(response))
            }
        }
    }
}

/// The policy of the cors-core side, configured as `tower_http_service` is.
fn policy() -> CorsPolicy {
    CorsPolicy::from_options(
        &CorsOptions::new()
            .origin(ORIGINS)
            .methods([Method::GET, Method::POST, Method::PUT])
            .allow_headers([CONTENT_TYPE, X_REQUESTED_WITH])
            .expose_headers([X_REQUEST_ID])
            .max_age(Duration::from_secs(600)),
    )
    .expect("valid options")
}

fn cors_core_service()
-> impl Service<Request<Body>, Response = Response<Body>, Error = Infallible, Future: Send> + Clone
{
    let policy = policy();
    CoreCors {
        inner: service_fn(inner),
        policy: Arc::new(policy),
    }
}

fn preflight_request() -> Request<Body> {
    Request::builder()
        .method(Method::OPTIONS)
        .uri("/")
        .header(ORIGIN, HeaderValue::from_static("https://example.com"))
        .header(
            ACCESS_CONTROL_REQUEST_METHOD,
            HeaderValue::from_static("POST"),
        )
        .header(
            ACCESS_CONTROL_REQUEST_HEADERS,
            HeaderValue::from_static("content-type, x-requested-with"),
        )
        .body(Body::new())
        .expect("valid request")
}

fn actual_request() -> Request<Body> {
    Request::builder()
        .method(Method::GET)
        .uri("/")
        .header(ORIGIN, HeaderValue::from_static("https://example.com"))
        .body(Body::new())
        .expect("valid request")
}

fn non_cors_request() -> Request<Body> {
    Request::builder()
        .method(Method::GET)
        .uri("/")
        .body(Body::new())
        .expect("valid request")
}

fn check<S>(service: &S)
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible> + Clone,
{
    let preflight = ready(service.clone().oneshot(preflight_request())).expect("infallible");
    assert_eq!(
        preflight.headers()["access-control-allow-origin"],
        "https://example.com"
    );
    assert!(
        preflight.headers()["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .contains("POST")
    );
    assert_eq!(preflight.headers()["access-control-max-age"], "600");
    let actual = ready(service.clone().oneshot(actual_request())).expect("infallible");
    assert_eq!(
        actual.headers()["access-control-allow-origin"],
        "https://example.com"
    );
    assert_eq!(
        actual.headers()["access-control-expose-headers"],
        "x-request-id"
    );
    let non_cors = ready(service.clone().oneshot(non_cors_request())).expect("infallible");
    assert!(
        non_cors
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
}

type MakeRequest = fn() -> Request<Body>;

const CASES: [(&str, MakeRequest); 3] = [
    ("preflight", preflight_request),
    ("actual", actual_request),
    ("non-cors", non_cors_request),
];

fn bench(c: &mut Criterion) {
    let tower_http = tower_http_service();
    let cors_axum_core = cors_core_service();
    check(&tower_http);
    check(&cors_axum_core);

    for (name, make_request) in CASES {
        let mut group = c.benchmark_group(name);
        group.bench_function("cors-core", |b| {
            b.iter_batched(
                make_request,
                |request| black_box(drive(&cors_axum_core, request)),
                BatchSize::SmallInput,
            );
        });
        group.bench_function("tower-http", |b| {
            b.iter_batched(
                make_request,
                |request| black_box(drive(&tower_http, request)),
                BatchSize::SmallInput,
            );
        });
        group.finish();
    }
}

/// One request through a service, as every benchmark iteration runs it: kept out of line so that
/// `valgrind --tool=callgrind --toggle-collect='cors::drive*'` counts exactly what criterion times.
#[inline(never)]
fn drive<S>(service: &S, request: Request<Body>) -> Response<Body>
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible> + Clone,
{
    ready(service.clone().oneshot(request)).expect("infallible")
}

/// `CORS_BENCH_ONCE=<case>/<side>` (e.g. `preflight/cors-core`): drives 1,000 requests of one
/// case through one side and exits, for counting instructions under callgrind, which is steadier
/// than wall-clock time on a shared machine.
fn once(spec: &str) {
    let (case, side) = spec
        .split_once('/')
        .expect("CORS_BENCH_ONCE is <case>/<side>");
    let (_, make_request) = CASES
        .into_iter()
        .find(|(name, _)| *name == case)
        .expect("case is preflight, actual or non-cors");
    let run = |service: &dyn Fn(Request<Body>) -> Response<Body>| {
        for _ in 0..1_000 {
            drop(black_box(service(make_request())));
        }
    };
    match side {
        "cors-core" => {
            let service = cors_core_service();
            run(&|request| drive(&service, request));
        }
        "tower-http" => {
            let service = tower_http_service();
            run(&|request| drive(&service, request));
        }
        _ => panic!("side is cors-core or tower-http"),
    }
}

/// The engine alone, without any service around it: decide and write into a response
/// `HeaderMap` that keeps its capacity between iterations.
fn engine(c: &mut Criterion) {
    let policy = policy();
    let preflight = preflight_request();
    let actual = actual_request();
    let non_cors = non_cors_request();
    let mut response = http::HeaderMap::with_capacity(16);
    let mut group = c.benchmark_group("engine");
    group.bench_function("preflight", |b| {
        b.iter(|| {
            response.clear();
            let request = CorsRequest::new(preflight.method(), black_box(preflight.headers()));
            black_box(request.kind());
            let decision = policy.preflight(&request);
            black_box(decision.status());
            decision.write(&mut response);
        });
    });
    for (name, request) in [("actual", &actual), ("non-cors", &non_cors)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                response.clear();
                let request = CorsRequest::new(request.method(), black_box(request.headers()));
                black_box(request.kind());
                let decision = policy.actual(&request);
                black_box(
                    decision
                        .write(&mut response, ResponseCredentials::Policy)
                        .is_none(),
                )
            });
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50);
    targets = bench, engine
}

fn main() {
    if let Ok(spec) = std::env::var("CORS_BENCH_ONCE") {
        once(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
