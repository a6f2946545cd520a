//! Helpers shared by the in-process tests: send one request through a router.

#![allow(dead_code, unreachable_pub)]

pub mod wire;

use axum::Router;
use axum::body::Body;
use http::{Request, Response, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

/// A response with its body read.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: http::HeaderMap,
    pub body: String,
}

impl Answer {
    /// The single value of header `name`, as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("visible ASCII header"))
    }

    /// Whether any `Access-Control-*` header is present.
    pub fn has_any_cors_header(&self) -> bool {
        self.headers
            .keys()
            .any(|name| name.as_str().starts_with("access-control-"))
    }

    /// The comma-separated names of every `Vary` line, lower-cased.
    pub fn vary(&self) -> Vec<String> {
        self.headers
            .get_all("vary")
            .iter()
            .flat_map(|v| v.to_str().unwrap_or("").split(','))
            .map(|s| s.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty())
            .collect()
    }
}

/// Sends `request` through `router` in-process.
pub async fn send(router: &Router, request: Request<Body>) -> Answer {
    let response: Response<Body> = router.clone().oneshot(request).await.expect("infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    Answer {
        status,
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// A request builder for `method` and `uri`, with `headers`.
pub fn request(method: &str, uri: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut builder = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(Body::empty()).expect("valid request")
}

/// A middleware that hands the request on: a layer that does nothing, for routes that must have
/// layers of their own.
pub async fn pass_through(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    next.run(request).await
}
