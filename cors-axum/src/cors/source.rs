//! Where a request reads its path's plan: the plan itself, compiled once, or its place in the
//! one table of plans that a reload (`CorsReload`) swaps whole, as jub0bs/cors keeps one atomic
//! configuration that `Reconfigure` replaces.

use std::sync::Arc;

use arc_swap::ArcSwap;

use super::plan::PathPlan;

/// The plans of every path a reload replaces together: an application's, or a
/// [`CorsLayer`](crate::cors::CorsLayer)'s one.
#[derive(Debug, Default)]
pub(crate) struct PlanTable {
    /// The plans, by index.
    pub(crate) plans: Vec<Arc<PathPlan>>,
}

impl PlanTable {
    pub(crate) fn new(plans: Vec<Arc<PathPlan>>) -> Self {
        Self { plans }
    }
}

/// The table of plans as requests read it and a reload swaps it: one atomic pointer.
pub(crate) type SharedTable = Arc<ArcSwap<PlanTable>>;

/// Where a path's plan is read from.
#[derive(Debug, Clone)]
pub(crate) enum PlanSource {
    /// Compiled once, for good.
    Static(Arc<PathPlan>),
    /// Plan `index` of a table that a reload swaps whole. Each request loads the table once,
    /// so that it sees the old plans or the new ones, never a mix, on this path or any other.
    Table { table: SharedTable, index: usize },
}
