//! [`RequestContext`]: the request as a handler sees it, and `send`.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::{FromRequestParts, RawPathParams};
use axum::response::{IntoResponse, Response};
use http::request::Parts;
use http::{Method, Uri, Version};

/// The request's method, URI, path parameters and query, as an extractor, and
/// [`send`](Self::send), the original framework's way to answer.
///
/// It never rejects a request, and it costs next to nothing: the method and the URI are shared
/// with the request rather than copied, and the path parameters are the ones axum matched (one
/// list, and only on a path that has parameters). It keeps no copy of the headers: take
/// axum's [`HeaderMap`](http::HeaderMap) (or a typed header) as another argument to read them.
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
    /// As axum matched them; `None` without parameters or when one is not valid UTF-8.
    params: Option<Arc<RawPathParams>>,
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

    /// The value of path parameter `name` (percent-decoded).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value)
    }

    /// All path parameters, in path order.
    pub fn params(&self) -> impl Iterator<Item = (&str, &str)> {
        self.params.iter().flat_map(|params| params.iter())
    }

    /// The raw query string, without `?`.
    pub fn query(&self) -> Option<&str> {
        self.uri.query()
    }

    /// `body` as the response: whatever it answers as axum's
    /// [`IntoResponse`](axum::response::IntoResponse) (a string or `Json` is a `200 OK`,
    /// `(StatusCode::CREATED, Json(item))` a `201`). Nothing of the request is copied.
    pub fn send(&self, body: impl IntoResponse) -> Response {
        body.into_response()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for RequestContext {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        // A path without parameters allocates nothing here (an empty list is copied without
        // one); one that is not valid UTF-8 after decoding has no usable parameters, and the
        // context still describes the request rather than rejecting it.
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .ok()
            .filter(|params| params.iter().next().is_some())
            .map(Arc::new);
        Ok(Self {
            method: parts.method.clone(),
            uri: parts.uri.clone(),
            version: parts.version,
            params,
        })
    }
}
