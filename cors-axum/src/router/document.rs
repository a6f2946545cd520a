//! `OpenapiModule` in the walk: the routes of its document (and page) added to the importing
//! module, mounted like its other routes; then, once the modules it covers are walked, their
//! routes handed to the document.

use std::sync::Arc;

use super::paths::{join_paths, validate_path};
use super::walk::{Collected, ControllerScope, Walk};
use crate::error::BuildError;
use crate::openapi::document::{DocumentSource, DocumentedRoute};
use crate::openapi::module::OpenapiModuleWith;
use crate::openapi::serve::{Document, DocumentCell, OpenapiRoutes};
use crate::provider::ProviderBuilder;

/// A document whose routes are added, waiting for the routes it describes.
pub(super) struct PendingDocument {
    cell: Arc<DocumentCell>,
    settings: OpenapiModuleWith,
    /// The importing module, an index of [`Walk::modules`].
    module: usize,
    /// Its first route, an index of [`Walk::routes`]: the routes it covers follow.
    first_route: usize,
}

impl<S: Clone + Send + Sync + 'static> Walk<S> {
    /// Adds the routes of `OpenapiModule`, imported by the module whose index and first route
    /// are `first`, under `prefix`.
    pub(super) fn add_openapi(
        &mut self,
        (module, first_route): (usize, usize),
        prefix: &str,
        settings: OpenapiModuleWith,
    ) -> Result<PendingDocument, BuildError> {
        let document_path = join_paths(prefix, &settings.path)?;
        validate_path(&document_path)?;
        let cell = Arc::new(DocumentCell::default());
        let controllers = &mut self.modules[module].controllers;
        let controller = controllers.len();
        controllers.push(ControllerScope {
            controller: OpenapiRoutes::<S>::controller(),
            providers: None,
            cors: None,
        });
        let provided = ProviderBuilder::new().use_value(Document(cell.clone()));
        #[cfg(feature = "openapi-rapidoc")]
        if let Some(page) = &settings.page {
            let page_path = join_paths(prefix, page)?;
            validate_path(&page_path)?;
            let html = crate::openapi::serve::Page::for_document(&document_path);
            self.routes.push(Collected {
                path: page_path.into(),
                def: OpenapiRoutes::<S>::page(),
                module,
                controller,
                providers: Some(ProviderBuilder::new().use_value(html)),
                cors: None,
            });
        }
        self.routes.push(Collected {
            path: document_path.into(),
            def: OpenapiRoutes::<S>::document(),
            module,
            controller,
            providers: Some(provided),
            cors: None,
        });
        Ok(PendingDocument {
            cell,
            settings,
            module,
            first_route,
        })
    }

    /// Hands `pending` the routes of the module that imports it and of the modules it imports,
    /// all walked by now, but those left out with `openapi = false` (of the route, else of its
    /// controller, else of its module or the nearest module importing it that says).
    pub(super) fn describe_document(&self, pending: PendingDocument) {
        let PendingDocument {
            cell,
            settings,
            module: first,
            first_route,
        } = pending;
        let modules = &self.modules[first..];
        let routes = self.routes[first_route..]
            .iter()
            .filter(|route| {
                let doc = &route.def.doc;
                doc.listed
                    .unwrap_or(self.modules[route.module].scope.listed_in_openapi)
            })
            .map(|route| {
                let module = route.module - first;
                let controller = &modules[module].controllers[route.controller].controller;
                DocumentedRoute {
                    path: route.path.clone(),
                    method: route.def.method.clone(),
                    module,
                    controller: controller.name,
                    handler: route.def.handler,
                    doc: &route.def.doc,
                    guards: route.def.guards.iter().map(|guard| guard.1).collect(),
                }
            })
            .collect();
        cell.describe(DocumentSource {
            settings,
            module: modules[0].name,
            routes,
            module_guards: modules.iter().map(|m| m.scope.guard_docs.clone()).collect(),
        });
    }
}
