//! [`ProvidedValue`]: what the application provides to the options it does not write.

use std::any::Any;
use std::sync::Arc;

/// A value an origin decision takes, provided by the application: see
/// [`AllowOrigin::async_predicate_with`](crate::AllowOrigin::async_predicate_with) and
/// [`CorsOptions::with_values`](crate::CorsOptions::with_values). An
/// [`OriginSet`](crate::OriginSet) named by an options file is one too.
pub type ProvidedValue = Arc<dyn Any + Send + Sync>;
