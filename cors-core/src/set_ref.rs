//! [`SetRef`]: a set that options name, given in code or named in an options file and bound
//! to the application's set of that name when the router is built.

use std::any::TypeId;

use crate::error::CorsConfigError;
use crate::provided::ProvidedValue;

/// A set of origins that options may name: [`OriginSet`](crate::OriginSet) and
/// [`TenantOrigins`](crate::TenantOrigins).
pub(crate) trait NamedSet: Clone + Send + Sync + 'static {
    /// The option that names it.
    const FIELD: &'static str;
    /// What it is, in errors.
    const WHAT: &'static str;
    /// Its type, as errors write its constructor.
    const TYPE: &'static str;

    /// The set's name, as options files write it.
    fn name(&self) -> &str;
}

/// Which set options name: one given in code, or a name from an options file.
#[derive(Clone, Debug)]
pub(crate) enum SetRef<T> {
    Set(T),
    /// Only options files name a set.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    Named(String),
}

#[cfg(feature = "serde")]
impl<'de, T> serde::Deserialize<'de> for SetRef<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(SetRef::Named)
    }
}

impl<T: NamedSet> SetRef<T> {
    /// The set's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            SetRef::Set(set) => set.name(),
            SetRef::Named(name) => name,
        }
    }

    /// The type of the value that binds a named set, and its name.
    pub(crate) fn needed_value(&self) -> Option<(TypeId, &'static str)> {
        matches!(self, SetRef::Named(_)).then(|| (TypeId::of::<T>(), T::TYPE))
    }
}

/// `set` with a named set bound to the set that `values` provides, which must have that name.
pub(crate) fn bind<T: NamedSet>(
    set: &Option<SetRef<T>>,
    values: &dyn Fn(TypeId) -> Option<ProvidedValue>,
) -> Result<Option<SetRef<T>>, CorsConfigError> {
    let Some(SetRef::Named(name)) = set else {
        return Ok(set.clone());
    };
    let provided = values(TypeId::of::<T>()).ok_or_else(|| unbound::<T>(name))?;
    match provided.downcast_ref::<T>() {
        Some(found) if found.name() == name => Ok(Some(SetRef::Set(found.clone()))),
        Some(found) => Err(CorsConfigError::new(
            T::FIELD,
            Some(name),
            format!(
                "the options name the {} `{name}`, and the application provides `{}`",
                T::WHAT,
                found.name()
            ),
        )),
        None => Err(unbound::<T>(name)),
    }
}

/// The error of options that name a set nobody provided.
pub(crate) fn unbound<T: NamedSet>(name: &str) -> CorsConfigError {
    CorsConfigError::new(
        T::FIELD,
        Some(name),
        format!(
            "the options name the {} `{name}`, which was not provided: provide \
             `{}::new(\"{name}\")` to the application (cors-axum: `.provide(..)`), or bind \
             it with `CorsOptions::with_values`",
            T::WHAT,
            T::TYPE,
        ),
    )
}
