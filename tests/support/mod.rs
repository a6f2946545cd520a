//! Helpers of the workspace-level tests.

pub(crate) mod log;
