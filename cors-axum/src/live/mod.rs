//! What changes a running application's CORS from outside it: an options file watched for
//! changes (`watch`, feeding [`CorsReload`](crate::cors::CorsReload)), and origins followed in
//! PostgreSQL (`postgres`, feeding an [`OriginSet`](crate::cors::OriginSet) and
//! [`TenantOrigins`](crate::cors::TenantOrigins)). The request path never waits on them: it
//! reads the plans and sets they swap.

#[cfg(feature = "postgres")]
#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
pub mod postgres;
#[cfg(feature = "watch")]
pub(crate) mod watch;
