//! The routes of `OpenapiModule` in the importing module: the document, made on its first
//! request and then served from memory, and the page that shows it.
//!
//! They are routes of a controller named `OpenapiModule`, declared like the routes of
//! `#[controller]` (a `RouteDef` of constants and function pointers), and mounted like the
//! others: under the module's CORS, guards and layers. What each serves is given to it as a
//! route-level provider, taken out when its method router is built, so that no request looks
//! it up.

use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use axum::body::Bytes;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter};
use http::Method;
use http::header::{CONTENT_TYPE, HeaderValue};
use utoipa::openapi::Content;
use utoipa::openapi::schema::{ObjectBuilder, Type};

use super::document::DocumentSource;
use super::module::{DEFAULT_PATH, OpenapiModule};
use crate::controller::{ControllerRef, RouteDef};
use crate::describe::draft::{OperationDraft, RouteDoc};
use crate::handler::{RouteSetup, route_into};
use crate::needs::Needs;

/// One document: its source, handed over once the walk has met every route it covers, and
/// its JSON, made on the first request.
#[derive(Default)]
pub(crate) struct DocumentCell {
    source: OnceLock<DocumentSource>,
    json: OnceLock<Bytes>,
}

impl DocumentCell {
    /// Hands the document its source.
    pub(crate) fn describe(&self, source: DocumentSource) {
        if self.source.set(source).is_err() {
            unreachable!("the walk describes each document once");
        }
    }

    /// The document's JSON, made on the first call.
    fn json(&self) -> Bytes {
        self.json
            .get_or_init(|| {
                let source = self
                    .source
                    .get()
                    .expect("the walk describes every document before the router is built");
                Bytes::from(source.to_json())
            })
            .clone()
    }
}

/// The provider of the document's route.
#[derive(Clone)]
pub(crate) struct Document(pub(crate) Arc<DocumentCell>);

/// The provider of the page's route: its HTML.
#[derive(Clone)]
#[cfg_attr(not(feature = "openapi-rapidoc"), allow(dead_code))]
pub(crate) struct Page(Bytes);

impl Page {
    /// The page that shows the document served at `document_path`.
    #[cfg(feature = "openapi-rapidoc")]
    pub(crate) fn for_document(document_path: &str) -> Self {
        let escaped = document_path
            .replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;");
        Page(Bytes::from(utoipa_rapidoc::RapiDoc::new(escaped).to_html()))
    }
}

/// The controller `OpenapiModule` of the importing module, for state `S`.
pub(crate) struct OpenapiRoutes<S>(PhantomData<fn() -> S>);

impl<S: Clone + Send + Sync + 'static> OpenapiRoutes<S> {
    /// The document's route, then the page's.
    const ROUTES: &'static [RouteDef<S>] = &[
        RouteDef {
            method: Method::GET,
            path: DEFAULT_PATH,
            handler: "document",
            method_router: document_router::<S>,
            guards: &[],
            layered: false,
            providers: None,
            needs: needs_nothing,
            index: 0,
            doc: RouteDoc::new(
                "The OpenAPI document of these routes",
                "",
                false,
                describe_document,
            ),
        },
        RouteDef {
            method: Method::GET,
            path: "/docs",
            handler: "page",
            method_router: page_router::<S>,
            guards: &[],
            layered: false,
            providers: None,
            needs: needs_nothing,
            index: 0,
            doc: RouteDoc::new(
                "A page that shows the OpenAPI document",
                "",
                false,
                describe_page,
            ),
        },
    ];

    /// The controller, as a module lists it.
    pub(crate) fn controller() -> ControllerRef<S> {
        ControllerRef::new::<OpenapiModule>("OpenapiModule", Self::ROUTES, None)
    }

    /// The document's route.
    pub(crate) fn document() -> &'static RouteDef<S> {
        &Self::ROUTES[0]
    }

    /// The page's route.
    #[cfg(feature = "openapi-rapidoc")]
    pub(crate) fn page() -> &'static RouteDef<S> {
        &Self::ROUTES[1]
    }
}

fn needs_nothing(_: usize, _: &mut Needs) {}

fn document_router<S>(into: MethodRouter<S>, setup: RouteSetup<S>) -> MethodRouter<S>
where
    S: Clone + Send + Sync + 'static,
{
    let (Document(cell), setup) = take::<Document, S>(setup);
    let serve = move || {
        let json = cell.json();
        async move { respond("application/json", json) }
    };
    route_into(into, MethodFilter::GET, serve, setup)
}

fn page_router<S>(into: MethodRouter<S>, setup: RouteSetup<S>) -> MethodRouter<S>
where
    S: Clone + Send + Sync + 'static,
{
    let (Page(html), setup) = take::<Page, S>(setup);
    let serve = move || {
        let html = html.clone();
        async move { respond("text/html; charset=utf-8", html) }
    };
    route_into(into, MethodFilter::GET, serve, setup)
}

/// What a route serves, taken out of its providers; the route keeps the others, which its
/// module's guards may need.
fn take<T: Clone + Send + Sync + 'static, S>(setup: RouteSetup<S>) -> (T, RouteSetup<S>) {
    let scope = setup
        .scope
        .expect("the walk gives the routes of `OpenapiModule` what they serve as providers");
    let (value, scope) = scope.take::<T>();
    let value = value.expect("the walk gives the routes of `OpenapiModule` what they serve");
    (value, RouteSetup { scope, ..setup })
}

fn respond(content_type: &'static str, body: Bytes) -> Response {
    (
        [(CONTENT_TYPE, HeaderValue::from_static(content_type))],
        body,
    )
        .into_response()
}

fn describe_document(draft: &mut OperationDraft) {
    let schema = ObjectBuilder::new().schema_type(Type::Object);
    let response = utoipa::openapi::Response::builder()
        .description("The document, as JSON")
        .content("application/json", Content::new(Some(schema)))
        .build();
    draft.response = Some(("200", response));
}

fn describe_page(draft: &mut OperationDraft) {
    let schema = ObjectBuilder::new().schema_type(Type::String);
    let response = utoipa::openapi::Response::builder()
        .description("The page, as HTML")
        .content("text/html", Content::new(Some(schema)))
        .build();
    draft.response = Some(("200", response));
}
