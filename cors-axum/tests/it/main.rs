//! The integration tests of `cors-axum`, in one binary (the compile-fail cases of the macros are
//! `tests/ui.rs`): each module a concern, as its name says, sharing [`common`]'s client. What
//! counts allocations or reads the process's memory runs in a process of its own ([`alone`]).

#[path = "../../../tests/it/support/alone.rs"]
mod alone;
mod common;
#[cfg(feature = "openapi")]
#[path = "common/openapi_spec.rs"]
mod openapi_spec;
#[path = "../../benches/seed/mod.rs"]
#[allow(dead_code)]
mod seed;

mod alloc;
mod cors_module;
mod module_system;
#[cfg(feature = "openapi")]
mod openapi;
#[cfg(feature = "openapi")]
mod openapi_alloc;
mod origin_decisions;
mod origin_set;
mod protection;
mod real_app;
mod reload;
mod reload_memory;
mod tenant_origins;
mod wire;
