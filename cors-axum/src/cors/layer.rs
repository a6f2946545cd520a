//! [`CorsLayer`]: CORS as a tower layer, for plain axum routers and around the routes whose own
//! layers CORS must wrap.

use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::response::Response;
use cors_axum_core::{CorsConfigError, CorsOptions};

use super::future::ResponseFuture;
use super::plan::{PathPlan, RoutePlan};
use super::reload::CorsReload;
use super::respond::{Decision, PathCors};
use super::source::PlanSource;

/// CORS for a plain axum `Router` that does not use the module system; `CorsModule` puts the
/// same handling on each path of the modules it covers.
///
/// It shares the engine of [`CorsModule`](crate::CorsModule): preflights are answered without
/// calling the handler, other responses get the CORS headers, and handlers can extract
/// [`CorsService`](crate::CorsService). As the layer cannot know the methods of each route, the
/// default allowed methods are those the preflight asks for; set them with
/// `CorsOptions::methods`.
///
/// Put it outside every layer that may reject a request (authentication, rate limits), that
/// is, add it last: `Router::layer` wraps what is already there, so preflights are then
/// answered before those layers run and their rejections carry the CORS headers.
///
/// ```
/// use axum::{Router, routing::get};
/// use cors_axum::CorsOptions;
/// use cors_axum::cors::CorsLayer;
///
/// let layer = CorsLayer::new(CorsOptions::new().origin("https://example.com")).unwrap();
/// let app: Router = Router::new().route("/", get(|| async { "hi" })).layer(layer);
/// # drop(app);
///
/// let err = CorsLayer::new(CorsOptions::new().origin("https://example.com/")).unwrap_err();
/// assert_eq!(err.field(), "origin");
/// ```
#[derive(Debug, Clone)]
pub struct CorsLayer {
    cors: PathCors,
    /// The options given to [`CorsLayer::new`]: those in force when a reload first replaces
    /// them.
    options: Option<Arc<CorsOptions>>,
}

impl CorsLayer {
    /// Validates `options` and builds the layer.
    pub fn new(options: CorsOptions) -> Result<Self, CorsConfigError> {
        let plan = Arc::new(PathPlan::single(RoutePlan::compile(&options, None)?));
        Ok(Self {
            cors: PathCors::new(PlanSource::Static(plan), None, true),
            options: Some(Arc::new(options)),
        })
    }

    /// The layer with its options replaced by `reload` from then on (see
    /// [`CorsReload`](crate::cors::CorsReload)).
    ///
    /// ```
    /// use cors_axum::cors::CorsReload;
    /// use cors_axum::CorsOptions;
    /// use cors_axum::cors::CorsLayer;
    ///
    /// let reload = CorsReload::new();
    /// let layer = CorsLayer::new(CorsOptions::new().origin("https://a.example"))?
    ///     .reloaded_by(&reload);
    /// reload.reload(CorsOptions::new().origin("https://b.example"))?;
    /// # drop(layer);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reloaded_by(self, reload: &CorsReload) -> Self {
        let in_force = self.options.as_deref().cloned().unwrap_or_default();
        let source = reload.register_layer(self.cors.source(), in_force);
        Self {
            cors: PathCors::new(source, None, true),
            options: self.options,
        }
    }

    /// The layer of one path of a module covered by `CorsModule`.
    pub(crate) fn for_path(cors: PathCors) -> Self {
        Self {
            cors,
            options: None,
        }
    }
}

impl<S> tower_layer::Layer<S> for CorsLayer {
    type Service = Cors<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Cors {
            inner,
            cors: self.cors.clone(),
        }
    }
}

/// The service of [`CorsLayer`]: `S` with CORS.
#[derive(Debug, Clone)]
pub struct Cors<S> {
    inner: S,
    cors: PathCors,
}

impl<S> tower_service::Service<Request> for Cors<S>
where
    S: tower_service::Service<Request, Response = Response> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    #[expect(
        clippy::async_yields_async,
        reason = "a lookup's future yields the next state"
    )]
    fn call(&mut self, mut request: Request) -> Self::Future {
        match self.cors.decide(&mut request, None) {
            Decision::Answer(response) => ResponseFuture::ready(response),
            Decision::HandOn(finish) => ResponseFuture::new(self.inner.call(request), finish),
            Decision::Lookup(lookup) => {
                // The ready service is the one to call, once the origin is decided; a clone
                // stays for the next request.
                let clone = self.inner.clone();
                let mut ready = std::mem::replace(&mut self.inner, clone);
                let cors = self.cors.clone();
                ResponseFuture::lookup(Box::pin(async move {
                    match cors.decide(&mut request, Some(lookup.await)) {
                        Decision::Answer(response) => ResponseFuture::ready(response),
                        Decision::HandOn(finish) => {
                            ResponseFuture::new(ready.call(request), finish)
                        }
                        Decision::Lookup(_) => unreachable!("a request is looked up once"),
                    }
                }))
            }
        }
    }
}
