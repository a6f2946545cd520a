//! Helpers of the workspace-level tests.

#![allow(dead_code)]

pub(crate) mod alone;
pub(crate) mod log;
#[cfg(feature = "postgres")]
pub(crate) mod postgres;
