//! The integration tests of `cors-audit`, in one binary: the audit against the project's
//! examples and against servers misconfigured on purpose, its limits, its route table.

#[path = "../../../examples/app/api.rs"]
#[allow(dead_code, unreachable_pub)]
mod api;
mod audit;
#[path = "../../../examples/cors.rs"]
#[allow(dead_code, unreachable_pub)]
mod example;
mod limits;
mod routes;
#[path = "../support/run.rs"]
#[allow(dead_code, unreachable_pub)]
mod run;
#[path = "../support/servers.rs"]
#[allow(dead_code, unreachable_pub)]
mod servers;
