//! The integration tests of `cors-axum-core`, in one binary: each module a concern, as its
//! name says. What counts allocations runs in a process of its own ([`alone`]).

#[path = "../../../tests/it/support/alone.rs"]
mod alone;

mod alloc;
mod behaviour;
mod config_errors;
mod credentials;
mod cross_origin;
mod origin_decisions;
mod origin_set;
mod properties;
mod security;
mod tenant_origins;
mod websocket;
