//! What a route needs from its module, found at compile time and checked when the router is
//! built: every `Inject<T>` has a provider in scope, and `CorsService` is used only under CORS.
//!
//! `#[controller]` knows the type of every handler argument and controller field. For each it
//! writes `(&&&Probe::<Type>::new()).declare(needs)`, and the same for the controller of a
//! `&self` route: method resolution takes the impl of [`Declare`] with the most references whose
//! bounds the type meets. `&&Probe<T>` for a struct controller ([`FieldNeeds`]: the needs of its
//! fields), `&Probe<Inject<T>>` or `&Probe<CorsService>`, else the do-nothing impl for
//! `Probe<T>`. An `Option<Inject<T>>` is optional by construction and needs nothing. Guards say
//! what they take themselves, in [`Guard::declare`](crate::app::Guard::declare).

use std::any::{TypeId, type_name};
use std::marker::PhantomData;

use crate::cors::CorsService;
use crate::guard::GuardDeclaration;
use crate::provider::Inject;

/// What one route extracts that its module must provide.
#[derive(Debug, Default)]
pub struct Needs {
    pub(crate) injected: Vec<(TypeId, &'static str)>,
    pub(crate) cors_service: bool,
    /// The guards declared here (of a controller and route, or of a module), in the order they
    /// run, by type name: for the log line of a guard that meets no provider.
    pub(crate) guards: Vec<&'static str>,
    /// What those guards declare they take with `Inject<T>`.
    pub(crate) guard_injected: Vec<GuardNeed>,
}

/// A value a guard takes with `Inject<T>`, as it declares it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GuardNeed {
    pub(crate) guard: &'static str,
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
}

impl Needs {
    /// The needs that `declare` writes.
    #[inline]
    pub(crate) fn of(declare: fn(usize, &mut Needs), route: usize) -> Self {
        let mut needs = Needs::default();
        declare(route, &mut needs);
        needs
    }

    /// A guard, and what it declares it takes.
    pub(crate) fn guard(&mut self, declaration: &GuardDeclaration) {
        let guard = declaration.name;
        self.guards.push(guard);
        let injected = declaration
            .injects
            .iter()
            .map(|&(type_id, type_name)| GuardNeed {
                guard,
                type_id,
                type_name,
            });
        self.guard_injected.extend(injected);
    }

    fn inject<T: 'static>(&mut self) {
        let id = TypeId::of::<T>();
        if !self.injected.iter().any(|(known, _)| *known == id) {
            self.injected.push((id, type_name::<T>()));
        }
    }
}

/// A type, probed for what it needs (see the module documentation).
pub struct Probe<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> Probe<T> {
    /// The probe of `T`.
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<T: ?Sized> Default for Probe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Declares what a handler's argument or a `&self` route's controller requires.
pub trait Declare {
    /// Adds the requirement to `needs`.
    fn declare(&self, needs: &mut Needs);
}

impl<T: FieldNeeds> Declare for &&Probe<T> {
    fn declare(&self, needs: &mut Needs) {
        T::declare_fields(needs);
    }
}

impl<T: 'static> Declare for &Probe<Inject<T>> {
    fn declare(&self, needs: &mut Needs) {
        needs.inject::<T>();
    }
}

impl Declare for &Probe<CorsService> {
    fn declare(&self, needs: &mut Needs) {
        needs.cors_service = true;
    }
}

/// Every other type: nothing needed.
impl<T: ?Sized> Declare for Probe<T> {
    fn declare(&self, _: &mut Needs) {}
}

/// The needs of a controller's fields, implemented by `#[controller]` on a struct.
pub trait FieldNeeds {
    /// Adds the needs of every field.
    fn declare_fields(needs: &mut Needs);
}

#[cfg(test)]
// The borrows pick the impl, as in the code `#[controller]` writes.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;

    #[derive(Clone)]
    struct Db;

    struct Fields;

    impl FieldNeeds for Fields {
        fn declare_fields(needs: &mut Needs) {
            needs.inject::<u8>();
        }
    }

    fn declare_all(needs: &mut Needs) {
        (&&&Probe::<Inject<Db>>::new()).declare(needs);
        (&&&Probe::<Option<Inject<String>>>::new()).declare(needs);
        (&&&Probe::<String>::new()).declare(needs);
        (&&&Probe::<CorsService>::new()).declare(needs);
        (&&&Probe::<Inject<Db>>::new()).declare(needs);
    }

    #[test]
    fn probes_find_injected_types_and_cors_service_only() {
        let needs = Needs::of(|_, needs| declare_all(needs), 0);
        assert_eq!(needs.injected.len(), 1, "{needs:?}");
        assert_eq!(needs.injected[0].0, TypeId::of::<Db>());
        assert!(needs.injected[0].1.ends_with("Db"));
        assert!(needs.cors_service);
        assert!(!Needs::of(|_, needs| (&&&Probe::<String>::new()).declare(needs), 0).cors_service);
        let fields = Needs::of(|_, needs| (&&&Probe::<Fields>::new()).declare(needs), 0);
        assert_eq!(fields.injected[0].0, TypeId::of::<u8>());
    }
}
