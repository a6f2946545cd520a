//! Reload registration: where an application is reloadable, its plans gathered, path after
//! path, into the one table a reload swaps, with what each module's plans are made again from.
//! The build returns it; the application hands it to its `CorsReload`.

use std::sync::Arc;

use cors_axum_core::CorsOptions;
use rustc_hash::FxHashMap;

use crate::cors::imported::ModuleRecipe;
use crate::cors::plan::PathPlan;
use crate::cors::reload::{ModuleReload, Reloadable, Remake};
use crate::cors::source::{PlanSource, PlanTable, SharedTable};
use crate::provider::ProviderScope;

/// The table of plans of a reloadable application, being built.
#[derive(Default)]
pub(super) struct ReloadablePlans {
    /// Empty until [`finish`](Self::finish): no request reads it before.
    table: SharedTable,
    plans: Vec<Arc<PathPlan>>,
    /// By module index.
    modules: FxHashMap<usize, ModuleReload>,
}

impl ReloadablePlans {
    /// Puts `plan` in the table: where requests read it, and its place.
    pub(super) fn place(&mut self, plan: Arc<PathPlan>) -> (PlanSource, usize) {
        let index = self.plans.len();
        self.plans.push(plan);
        let table = self.table.clone();
        (PlanSource::Table { table, index }, index)
    }

    /// What a reload of module `index`'s plans needs, made once with `recipe` and the `values`
    /// its origin decisions take.
    pub(super) fn module(
        &mut self,
        index: usize,
        recipe: impl FnOnce() -> (Arc<ModuleRecipe>, ProviderScope),
    ) -> &mut ModuleReload {
        self.modules.entry(index).or_insert_with(|| {
            let (recipe, values) = recipe();
            ModuleReload {
                recipe,
                values,
                paths: Vec::new(),
                unknown_path: None,
            }
        })
    }

    /// The table, filled, with the application's options in force (`in_force`).
    pub(super) fn finish(self, in_force: CorsOptions) -> Reloadable {
        self.table.store(Arc::new(PlanTable::new(self.plans)));
        let mut modules: Vec<_> = self.modules.into_iter().collect();
        modules.sort_by_key(|(index, _)| *index);
        Reloadable {
            table: self.table,
            remake: Remake::Application(modules.into_iter().map(|(_, m)| m).collect()),
            in_force,
        }
    }
}
