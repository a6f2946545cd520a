//! Plan orchestration: each path's plan asked of its module's planner (made once per module),
//! read from where a reload can swap it when the application is reloadable, and the plan of
//! the answer to unknown paths.

use std::collections::BTreeMap;
use std::sync::Arc;

use cors_axum_core::CorsOptions;
use http::Method;
use rustc_hash::FxHashMap;

use super::checks::controller_of;
use super::walk::{Collected, Walk};
use crate::cors::imported::ModuleRecipe;
use crate::cors::plan::PathPlan;
use crate::cors::planner::{ApplicationLevel, ModulePlanner, RouteOptions};
use crate::cors::reload::{ModuleReload, ReloadPath, Reloadable, Remake};
use crate::cors::source::{PlanSource, PlanTable, SharedTable};
use crate::error::BuildError;
use crate::provider::ProviderScope;
use crate::table::{CorsCoverage, RoutePath};

/// Where a path reads its plan, and whether CORS is on for any of its routes (or may be, after
/// a reload).
pub(super) type Planned = (PlanSource, bool);

/// The plans of an application's paths, being made.
pub(super) struct Planning {
    /// The application's options (`.provide(..)` of its builder).
    application: Option<CorsOptions>,
    /// By module index.
    planners: FxHashMap<usize, ModulePlanner>,
    /// Where the application is reloadable.
    reloadable: Option<ReloadablePlans>,
}

impl Planning {
    pub(super) fn new(application: Option<CorsOptions>, reloadable: bool) -> Self {
        Self {
            application,
            planners: FxHashMap::default(),
            reloadable: reloadable.then(ReloadablePlans::default),
        }
    }

    /// The plan of a path, with how each of its routes is covered (none of them where the
    /// list is empty); no plan where no `CorsModule` covers it, or where the plan does nothing
    /// for good (not reloadable).
    pub(super) fn plan<S>(
        &mut self,
        walk: &Walk<S>,
        path: &RoutePath,
        methods: &[Method],
        group: &[&Collected<S>],
    ) -> Result<(Option<Planned>, Vec<CorsCoverage>), BuildError> {
        let index = group[0].module;
        if walk.modules[index].cors.is_none() {
            // Empty: no route of the path is covered, which allocates nothing.
            return Ok((None, Vec::new()));
        }
        let routes: Vec<RouteOptions> = group
            .iter()
            .map(|route| {
                let controller = controller_of(walk, route);
                RouteOptions {
                    method: route.def.method.clone(),
                    controller: controller.controller.name,
                    handler: route.def.handler,
                    controller_options: controller.cors.clone(),
                    route_options: route.cors.clone(),
                }
            })
            .collect();
        let planner = self.planner(walk, index)?;
        let (plan, coverage) = planner.path(path, methods, &routes)?;
        let Some(reloadable) = &mut self.reloadable else {
            let has_cors = plan.has_cors;
            let planned = (!plan.is_inert()).then(|| (PlanSource::Static(plan), has_cors));
            return Ok((planned, coverage));
        };
        let (source, place) = reloadable.place(plan);
        let module = reloadable.module(walk, index);
        module.paths.push(ReloadPath {
            index: place,
            path: path.clone(),
            methods: methods.to_vec(),
            routes,
        });
        // Off now, CORS may be on after a reload.
        Ok((Some((source, true)), coverage))
    }

    /// The coverage of the generated `OPTIONS` route of a path of module `index`, which has a
    /// planner by then.
    pub(super) fn module_coverage(&self, index: usize) -> CorsCoverage {
        self.planners[&index].module_coverage()
    }

    /// Where the answer to unknown paths reads its plan, the root module's; `None` where no
    /// `CorsModule` covers the root, or the plan does nothing for good.
    pub(super) fn unknown_path<S>(
        &mut self,
        walk: &Walk<S>,
    ) -> Result<Option<PlanSource>, BuildError> {
        if walk.modules[0].cors.is_none() {
            return Ok(None);
        }
        let planner = self.planner(walk, 0)?;
        let plan = Arc::new(planner.unknown_path()?);
        let Some(reloadable) = &mut self.reloadable else {
            return Ok((!plan.is_inert()).then_some(PlanSource::Static(plan)));
        };
        let (source, place) = reloadable.place(plan);
        reloadable.module(walk, 0).unknown_path = Some(place);
        Ok(Some(source))
    }

    /// The table of plans a reload swaps, where the application is reloadable.
    pub(super) fn into_reloadable(self) -> Option<Reloadable> {
        let in_force = self.application.unwrap_or_default();
        self.reloadable.map(|plans| plans.finish(in_force))
    }

    /// The planner of module `index`'s paths, made once.
    fn planner<S>(
        &mut self,
        walk: &Walk<S>,
        index: usize,
    ) -> Result<&mut ModulePlanner, BuildError> {
        if !self.planners.contains_key(&index) {
            let (recipe, values) = recipe(walk, index);
            let application = ApplicationLevel {
                options: self.application.as_ref(),
                given_in: "`.provide(..)` of the application builder",
            };
            let planner = ModulePlanner::new(recipe, &application, values)?;
            self.planners.insert(index, planner);
        }
        Ok(self.planners.get_mut(&index).expect("inserted above"))
    }
}

/// What module `index`'s plans are made of, and the values its origin decisions may take: the
/// application's providers and the module's own, as its routes see them.
fn recipe<S>(walk: &Walk<S>, index: usize) -> (Arc<ModuleRecipe>, ProviderScope) {
    let module = &walk.modules[index];
    let recipe = module.cors.clone();
    let recipe = recipe.expect("plans are made for a module under CORS");
    (recipe, module.routes_providers.clone().unwrap_or_default())
}

/// The table of plans of a reloadable application, being built.
#[derive(Default)]
struct ReloadablePlans {
    /// Empty until [`finish`](Self::finish): no request reads it before.
    table: SharedTable,
    plans: Vec<Arc<PathPlan>>,
    /// By module index, in order.
    modules: BTreeMap<usize, ModuleReload>,
}

impl ReloadablePlans {
    /// Puts `plan` in the table: where requests read it, and its place.
    fn place(&mut self, plan: Arc<PathPlan>) -> (PlanSource, usize) {
        let index = self.plans.len();
        self.plans.push(plan);
        let table = self.table.clone();
        (PlanSource::Table { table, index }, index)
    }

    /// What a reload of module `index` of `walk`'s plans needs, made once.
    fn module<S>(&mut self, walk: &Walk<S>, index: usize) -> &mut ModuleReload {
        self.modules.entry(index).or_insert_with(|| {
            let (recipe, values) = recipe(walk, index);
            ModuleReload {
                recipe,
                values,
                paths: Vec::new(),
                unknown_path: None,
            }
        })
    }

    /// The table, filled, with the application's options in force (`in_force`).
    fn finish(self, in_force: CorsOptions) -> Reloadable {
        self.table.store(Arc::new(PlanTable::new(self.plans)));
        Reloadable {
            table: self.table,
            remake: Remake::Application(self.modules.into_values().collect()),
            in_force,
        }
    }
}
