//! The workspace's integration tests, in one binary: the examples and the README as users run
//! them, the browser tests, the layout of the sources. What sets the process's global log
//! subscriber runs in a process of its own ([`support::alone`]).

#[path = "../../cors-axum/tests/it/common/mod.rs"]
mod common;
#[path = "../../cors-axum/tests/it/common/openapi_spec.rs"]
mod openapi_spec;
mod support;

#[path = "../../examples/app/api.rs"]
#[allow(dead_code)]
mod api;
#[path = "../../examples/cors.rs"]
#[allow(dead_code, unreachable_pub)]
mod example;

mod any_origin_warning;
mod architecture;
mod browser;
mod cors_example;
mod design_table;
mod diagnostics;
mod example_app;
mod layout;
#[cfg(feature = "postgres")]
mod pg_follow;
mod readme;
mod reload_file;
mod surface;
#[cfg(feature = "postgres")]
mod tenants;
