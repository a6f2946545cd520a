//! Binding: the values an origin decision takes (`AllowOrigin::async_predicate_with`) bound
//! from the providers of the module it decides for, when its plans are made.

use cors_axum_core::CorsOptions;

use super::imported::ModuleRecipe;
use super::plan_error::{PlanError, cors_error};
use crate::provider::ProviderScope;

/// `options` with the values their origin decisions take bound from `values`.
pub(super) fn bind(
    options: CorsOptions,
    values: &ProviderScope,
    recipe: &ModuleRecipe,
    given_in: &str,
) -> Result<CorsOptions, PlanError> {
    let module = recipe.module;
    let needed = options.needed_values();
    if needed.is_empty() {
        return Ok(options);
    }
    let missing = needed.iter().find(|(id, _)| !values.provides(*id));
    options
        .with_values(|id| values.value(id))
        .map_err(|source| match missing {
            Some((_, type_name)) => PlanError::MissingValue {
                module,
                providers_key: recipe.providers_key,
                given_in: given_in.to_owned(),
                type_name,
                source: Box::new(source),
            },
            None => cors_error(module, given_in.to_owned(), source),
        })
}
