//! Where a request's origin is found: the policy's list, its [`OriginSet`](crate::OriginSet),
//! or the origins of the request's tenant ([`TenantOrigins`](crate::TenantOrigins)), in that
//! order.

use http::HeaderValue;

use crate::origin::{MAX_ORIGIN_LEN, OriginList, parse};
use crate::origin_set::DynamicOrigins;
use crate::request::CorsRequest;
use crate::tenant_origins::DynamicTenants;

/// Where a request's origin was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found<'s> {
    /// A configured origin, byte for byte: reflect this value, which is prebuilt.
    Exact(&'s HeaderValue),
    /// Another spelling of a configured origin, or an origin a pattern of the list matches.
    Spelled,
    /// An origin of the [`OriginSet`](crate::OriginSet).
    InOriginSet,
    /// An origin of the request's tenant.
    InTenantOrigins,
    No,
}

/// A request's `Origin` that is not `scheme://host[:port]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotAnOrigin;

/// Whether a request's `Origin` value, `input`, is in `list`, in `set` or among the origins of
/// the tenant of `request` in `tenants`, and where; `Err` when it is not an origin. The value
/// is looked up as sent first, and parsed only when none holds it so; the tenant's key is read
/// only when neither the list nor the set holds it as sent.
#[inline]
pub(crate) fn find<'s>(
    list: &'s OriginList,
    set: Option<&DynamicOrigins>,
    tenants: Option<(&DynamicTenants, &CorsRequest<'_>)>,
    input: &[u8],
) -> Result<Found<'s>, NotAnOrigin> {
    if let Some(configured) = list.exact(input) {
        return Ok(Found::Exact(configured));
    }
    let set = set.map(DynamicOrigins::load);
    if set.as_ref().is_some_and(|set| set.exact(input)) {
        return Ok(Found::InOriginSet);
    }
    let tenants = tenants.and_then(|(tenants, request)| tenants.load(request));
    let tenant = tenants.as_ref().and_then(|tenants| tenants.tenant());
    if tenant.is_some_and(|tenant| tenant.exact(input)) {
        return Ok(Found::InTenantOrigins);
    }
    let origin = parse(input).map_err(|_| NotAnOrigin)?;
    if origin.canonical.is_none() {
        let mut buf = [0u8; MAX_ORIGIN_LEN];
        if let Some(normalized) = origin.normalize_into(&mut buf) {
            if list.exact(normalized).is_some() {
                return Ok(Found::Spelled);
            }
            if set.as_ref().is_some_and(|set| set.exact(normalized)) {
                return Ok(Found::InOriginSet);
            }
            if tenant.is_some_and(|tenant| tenant.exact(normalized)) {
                return Ok(Found::InTenantOrigins);
            }
        }
    }
    Ok(if list.pattern_matches(&origin) {
        Found::Spelled
    } else if set.as_ref().is_some_and(|set| set.pattern(&origin)) {
        Found::InOriginSet
    } else if tenant.is_some_and(|tenant| tenant.pattern(&origin)) {
        Found::InTenantOrigins
    } else {
        Found::No
    })
}
