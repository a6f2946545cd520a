//! [`RequestContext`]: the request as a handler sees it, and `send`.

use std::convert::Infallible;

use axum::extract::{FromRequestParts, RawPathParams};
use axum::response::{IntoResponse, Response};
use http::request::Parts;
use http::{HeaderMap, Method, Uri, Version};

/// The request's method, URI, headers, path parameters and query, as an extractor.
///
/// Its [`send`](Self::send) turns a body into a `200 OK` response, as in the original
/// framework. It never rejects a request.
///
/// ```
/// use cors_axum::prelude::*;
///
/// pub struct ItemsController;
///
/// #[controller]
/// impl ItemsController {
///     #[route("GET", "items/{id}")]
///     async fn item(ctx: RequestContext) -> Response {
///         let id = ctx.param("id").unwrap_or_default().to_owned();
///         ctx.send(format!("item {id}\n"))
///     }
/// }
/// ```
#[derive(Debug, Clone)]
pub struct RequestContext {
    method: Method,
    uri: Uri,
    version: Version,
    headers: HeaderMap,
    params: Vec<(String, String)>,
}

impl RequestContext {
    /// The request method.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The request URI.
    pub fn uri(&self) -> &Uri {
        &self.uri
    }

    /// The HTTP version.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The request headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The value of path parameter `name` (percent-decoded).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// All path parameters, in path order.
    pub fn params(&self) -> impl Iterator<Item = (&str, &str)> {
        self.params.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The raw query string, without `?`.
    pub fn query(&self) -> Option<&str> {
        self.uri.query()
    }

    /// A `200 OK` response with `body`.
    pub fn send(&self, body: impl IntoResponse) -> Response {
        body.into_response()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for RequestContext {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        // A path that is not valid UTF-8 after decoding has no usable parameters; the context
        // still describes the request rather than rejecting it.
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map(|raw| {
                raw.iter()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Self {
            method: parts.method.clone(),
            uri: parts.uri.clone(),
            version: parts.version,
            headers: parts.headers.clone(),
            params,
        })
    }
}
