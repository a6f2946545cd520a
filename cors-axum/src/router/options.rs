//! The CORS options of each level of the merge, taken once out of the providers they are given
//! in (`.provide(..)` of the application builder, `providers_per_rou`, `cors = ..` of a
//! controller or a route) into a typed slot that the walk and the planner read, and checked once:
//! where no `CorsModule` applies, options are an error naming where they were given and the fix,
//! and `cors = false` a warning, since either does nothing.

use cors_axum_core::CorsOptions;

use crate::error::BuildError;
use crate::provider::ProviderBuilder;

/// Where a level's options were given, for messages.
pub(super) enum GivenIn<'a> {
    /// `.provide(..)` of the application builder; `reload` when `.cors_reload(..)` was called.
    Application { reload: bool },
    /// A module's `providers_per_rou` (or `providers_per_route`, as `key` spells it).
    Module {
        module: &'static str,
        key: &'static str,
    },
    /// `#[controller(..)]`.
    Controller { controller: &'a str },
    /// `#[route(..)]`.
    Route {
        controller: &'a str,
        handler: &'static str,
    },
}

impl GivenIn<'_> {
    fn describe(&self) -> String {
        match self {
            GivenIn::Application { reload: true } => {
                "`.cors_reload(..)` of the application builder".to_owned()
            }
            GivenIn::Application { reload: false } => {
                "`.provide(..)` of the application builder".to_owned()
            }
            GivenIn::Module { module, key } => format!("`{key}` of `{module}`"),
            GivenIn::Controller { controller } => format!("`#[controller(..)]` of `{controller}`"),
            GivenIn::Route {
                controller,
                handler,
            } => format!("`#[route(..)]` of `{controller}::{handler}`"),
        }
    }
}

/// The CORS options `providers` hold, taken out of them: they reach the plans through this slot
/// only, and handlers are not given them.
pub(super) fn take(providers: &mut ProviderBuilder) -> Option<CorsOptions> {
    providers.take::<CorsOptions>()
}

/// [`take`] for a controller's or a route's own providers, which are `None` when they hold
/// nothing else.
#[inline]
pub(super) fn take_own(
    providers: Option<ProviderBuilder>,
) -> (Option<Box<CorsOptions>>, Option<ProviderBuilder>) {
    let Some(mut providers) = providers else {
        return (None, None);
    };
    let options = take(&mut providers).map(Box::new);
    (options, (!providers.is_empty()).then_some(providers))
}

/// The one check of a level's options (`given`, with the `.cors_reload(..)` of the application
/// counting as options) in `module`, which a `CorsModule` covers or not (`covered`). Asked
/// of every route: the common answer, nothing to check, is inlined.
#[inline]
pub(super) fn check(
    options: Option<&CorsOptions>,
    given_in: GivenIn<'_>,
    module: &'static str,
    covered: bool,
    warnings: &mut Vec<String>,
) -> Result<(), BuildError> {
    let reload = matches!(given_in, GivenIn::Application { reload: true });
    if covered || (options.is_none() && !reload) {
        return Ok(());
    }
    if reload || options.is_some_and(CorsOptions::is_enabled) {
        return Err(BuildError::CorsOptionsWithoutCors {
            given_in: given_in.describe(),
            module,
        });
    }
    warnings.push(format!(
        "`cors = false` in {} does nothing: no `CorsModule` covers `{module}`",
        given_in.describe()
    ));
    Ok(())
}
