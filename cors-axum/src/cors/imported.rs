//! The import merge: the options of the `CorsModule` imports from the root down to a module,
//! merged once per import and shared by the modules it covers, and what one module's plans are
//! made of besides the application's options and the routes' own.

use std::sync::Arc;

use cors_axum_core::CorsOptions;

use super::module::CorsImport;
use super::plan_error::{PlanError, validate};

/// The options of the `CorsModule` imports along the way from the root to a module, merged, and
/// the module nearest to it that imported one. Shared by the modules it covers.
#[derive(Debug)]
pub(crate) struct Imported {
    pub(super) options: CorsOptions,
    /// The module nearest to the covered one that imports `CorsModule`.
    pub(super) from: &'static str,
}

impl Imported {
    /// The imported CORS of `module`, which imports `own` (if any) and inherits `inherited`.
    pub(crate) fn resolve(
        module: &'static str,
        own: Option<CorsImport>,
        inherited: Option<&Arc<Imported>>,
    ) -> Result<Option<Arc<Imported>>, PlanError> {
        let Some(own) = own else {
            return Ok(inherited.cloned());
        };
        let options = match inherited {
            // Importing `CorsModule` switches CORS on again under a module that switched it off.
            Some(inherited) if own.options.is_enabled() => inherited
                .options
                .merge(&CorsOptions::new().enabled(true))
                .merge(&own.options),
            Some(inherited) => inherited.options.merge(&own.options),
            None => own.options,
        };
        let given_in = if own.with_opts {
            format!("`CorsModule::with_opts(..)` imported by `{module}`")
        } else {
            format!("`CorsModule` imported by `{module}`")
        };
        validate(&options, module, &given_in)?;
        Ok(Some(Arc::new(Imported {
            options,
            from: module,
        })))
    }
}

/// What one module's plans are made of, besides the application's options and the routes'
/// own: kept for reloads, which make the plans again from it.
#[derive(Debug)]
pub(crate) struct ModuleRecipe {
    pub(crate) module: &'static str,
    /// How the module spells its providers key, for messages.
    pub(crate) providers_key: &'static str,
    pub(crate) imported: Arc<Imported>,
    /// The module's own options (`providers_per_rou`).
    pub(crate) provided: Option<CorsOptions>,
}

impl ModuleRecipe {
    /// Whether the paths of `self` and `other` get the same plans: the same imports, and no
    /// options of their own. Two modules may then share a path.
    pub(crate) fn same_plans_as(&self, other: &ModuleRecipe) -> bool {
        Arc::ptr_eq(&self.imported, &other.imported)
            && self.provided.is_none()
            && other.provided.is_none()
    }
}
