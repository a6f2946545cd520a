//! Heap allocations of serving the OpenAPI document, counted by a counting allocator: once
//! made, the document costs no more per request than a handler of the same module writing the
//! same bytes. The figures are printed (`--nocapture`).

use std::convert::Infallible;
use std::hint::black_box;
use std::pin::pin;
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use cors_axum::openapi::OpenapiModule;
use cors_axum::prelude::*;
use http::header::{CONTENT_TYPE, HeaderValue};
use http::{Request, StatusCode};
use stats_alloc::Region;
use tower_service::Service;

use crate::alloc::GLOBAL;
use crate::alone;

/// The document's bytes, for the handler that writes them.
static SAME: OnceLock<Bytes> = OnceLock::new();

struct SameController;

#[controller]
impl SameController {
    /// Writes the document's bytes, as the document's route does.
    #[route("GET", "same.json")]
    async fn same() -> Response {
        let body = SAME.get().expect("read before the requests").clone();
        (
            [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
            body,
        )
            .into_response()
    }
}

rest_root_module! {
    struct AppModule {
        imports: [CorsModule, OpenapiModule],
        controllers: [SameController],
    }
}

/// One request through `router`, answered at once.
fn drive(router: &mut Router, request: Request<Body>) -> Response {
    let mut future = pin!(Service::<Request<Body>>::call(router, request));
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(Ok::<_, Infallible>(response)) => response,
        Poll::Ready(Err(never)) => match never {},
        Poll::Pending => panic!("the handlers answer at once"),
    }
}

fn get(path: &str) -> Request<Body> {
    Request::get(path)
        .header("origin", "https://docs.example")
        .body(Body::empty())
        .expect("a valid request")
}

/// Allocations per request of `GET path`, over 100 requests: the fewest of five rounds, as the
/// allocator also counts what the test harness's other threads allocate now and then.
fn allocations(router: &mut Router, path: &str) -> f64 {
    const N: usize = 100;
    let round = |router: &mut Router| {
        let requests: Vec<_> = (0..N).map(|_| get(path)).collect();
        let region = Region::new(GLOBAL);
        for request in requests {
            let response = drive(router, request);
            assert_eq!(response.status(), StatusCode::OK);
            drop(black_box(response));
        }
        region.change().allocations
    };
    let fewest = (0..5).map(|_| round(router)).min().unwrap_or(usize::MAX);
    fewest as f64 / N as f64
}

/// The body of a response whose body is one buffer.
fn body(response: Response) -> Bytes {
    let mut body = pin!(response.into_body());
    let frame =
        axum::body::HttpBody::poll_frame(body.as_mut(), &mut Context::from_waker(Waker::noop()));
    match frame {
        Poll::Ready(Some(Ok(frame))) => frame.into_data().expect("a data frame"),
        _ => panic!("the body is one buffer, ready"),
    }
}

// In a process of its own: the allocator counts every thread.
#[test]
fn serving_the_document_allocates_no_more_than_writing_the_same_bytes() {
    if !alone::in_own_process(
        module_path!(),
        "serving_the_document_allocates_no_more_than_writing_the_same_bytes",
    ) {
        return;
    }
    let mut router = AppModule::router().unwrap().with_state(());
    // The first request makes the document.
    let document = body(drive(&mut router, get("/openapi.json")));
    assert!(document.starts_with(b"{\"openapi\":\"3.1.0\""));
    SAME.set(document.clone()).unwrap();
    assert_eq!(body(drive(&mut router, get("/same.json"))), document);
    let ours = allocations(&mut router, "/openapi.json");
    let same = allocations(&mut router, "/same.json");
    println!(
        "GET /openapi.json: {ours} allocations a request; the same bytes from a handler: {same}"
    );
    assert!(ours <= same, "the document {ours} > the handler {same}");
}
