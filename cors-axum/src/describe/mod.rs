//! What a route says about itself for an OpenAPI document, as the macros write it.
//!
//! The macros cannot see the features of this crate, so they write the same code with or
//! without `openapi`: a [`RouteDoc`](draft::RouteDoc) in each route, a function that probes the
//! route's argument, result and guard types, and, for `#[utoipa::path(..)]`, a call of
//! `__route_operation!`. Without the feature, the `RouteDoc` is empty, every probe finds
//! nothing and the macro discards its input: nothing of it is left in the program.

pub(crate) mod draft;
pub(crate) mod from_types;
