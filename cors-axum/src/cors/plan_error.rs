//! Why a module's plans cannot be made ([`PlanError`]): invalid options, and where they were
//! given; said as a [`BuildError`] when the router is built, as a `ReloadError` by a reload.

use cors_axum_core::{CorsConfigError, CorsOptions, CorsPolicy};

use crate::error::BuildError;

/// Checks `options`, as merged up to the level `given_in`, so that an error names the level
/// that made them invalid.
pub(super) fn validate(
    options: &CorsOptions,
    module: &'static str,
    given_in: &str,
) -> Result<(), PlanError> {
    if !options.is_enabled() {
        return Ok(());
    }
    CorsPolicy::from_options(options)
        .map(drop)
        .map_err(|source| cors_error(module, given_in.to_owned(), source))
}

pub(super) fn cors_error(
    module: &'static str,
    given_in: String,
    source: CorsConfigError,
) -> PlanError {
    PlanError::Invalid {
        module,
        route: None,
        given_in,
        source: Box::new(source),
    }
}

/// Why a module's plans cannot be made.
#[derive(Debug)]
pub(crate) enum PlanError {
    /// Invalid options, and where: the route where they are a controller's or a route's, and
    /// the level that made them invalid.
    Invalid {
        module: &'static str,
        route: Option<String>,
        given_in: String,
        source: Box<CorsConfigError>,
    },
    /// An origin decision takes a value that the module's providers do not have; `source`
    /// says so as the engine does.
    MissingValue {
        module: &'static str,
        providers_key: &'static str,
        given_in: String,
        type_name: &'static str,
        source: Box<CorsConfigError>,
    },
}

impl From<PlanError> for BuildError {
    fn from(error: PlanError) -> Self {
        match error {
            PlanError::Invalid {
                module,
                route,
                given_in,
                source,
            } => BuildError::Cors {
                module,
                route,
                given_in,
                source,
            },
            PlanError::MissingValue {
                module,
                providers_key,
                given_in,
                type_name,
                ..
            } => BuildError::MissingCorsValue {
                module,
                providers_key,
                given_in,
                type_name,
            },
        }
    }
}
