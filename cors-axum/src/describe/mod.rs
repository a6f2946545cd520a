//! What a route says about itself for an OpenAPI document, as the macros write it.
//!
//! With the `openapi` feature (which enables the `openapi` feature of `cors-axum-macros`), the
//! macros give each route its documentation (`RouteDef::doc`, which makes its
//! [`RouteDoc`](draft::RouteDoc)), a function that probes the route's argument and result
//! types, and, for `#[utoipa::path(..)]`, a call of `__route_operation!`. Without it they write
//! none of it (`RouteDef::new` gives a route the empty `RouteDoc`): the probes and the functions
//! would find nothing and be thrown away, and cost every application's build as much as its
//! routes' own code. Guards declare their security schemes themselves.

pub(crate) mod draft;
pub(crate) mod from_types;
