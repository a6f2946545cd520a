//! The integration tests of `cors-audit`, in one binary: the audit against the project's
//! examples and against servers misconfigured on purpose, its limits, its route table.

#[path = "../../../examples/app/api.rs"]
#[allow(dead_code, unreachable_pub)]
mod api;
#[path = "../../../examples/cors.rs"]
#[allow(dead_code, unreachable_pub)]
mod example;
#[path = "../support/run.rs"]
mod run;
#[path = "../support/servers.rs"]
mod servers;

mod audit;
mod browser_model;
mod limits;
mod oracle;
mod routes;
