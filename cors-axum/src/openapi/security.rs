//! [`GuardSecurity`]: the security scheme a guard enforces, for the document.

use utoipa::openapi::security::SecurityScheme;

/// A guard that enforces a security scheme: every route it guards requires the scheme in the
/// OpenAPI document, and the scheme is listed among its components, so that clients such as
/// Swagger UI send the credentials.
///
/// Implemented by the guard type (an extractor listed in `guards: [..]` of a module, controller
/// or route). Guards that do not implement it are left out of the document; so are the guards
/// given at run time to [`ApplicationBuilder::guard`](crate::app::ApplicationBuilder::guard), whose
/// types the macros do not see. Several guards with schemes on one route are all required.
///
/// ```
/// use cors_axum::openapi::GuardSecurity;
/// use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
///
/// /// Requests without `Authorization: Bearer <token>` get `401`.
/// pub struct Bearer;
///
/// impl GuardSecurity for Bearer {
///     const NAME: &'static str = "bearerAuth";
///
///     fn scheme() -> SecurityScheme {
///         SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer))
///     }
/// }
/// ```
pub trait GuardSecurity {
    /// The scheme's name in `components.securitySchemes`, such as `"bearerAuth"`; guards that
    /// enforce the same scheme give the same name.
    const NAME: &'static str;

    /// The scheme.
    fn scheme() -> SecurityScheme;
}
