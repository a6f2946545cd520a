//! Building an axum `Router` from a tree of modules.

use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, OnceLock};

use axum::Router;
use http::Method;

use crate::controller::{METHOD_ORDER, RouteRegistration, method_rank};
use crate::error::BuildError;
use crate::module::{
    Module, ModuleDefinition, ModuleHook, ModuleRoutes, PathRoutes, RouteEntry, Step,
};
use crate::provider::{ProviderBuilder, ProviderLayer};
use crate::table::{RouteInfo, RouteTable};

/// A built application: the axum [`Router`] and its [`RouteTable`].
#[derive(Debug)]
pub struct Application {
    router: Router,
    /// In mounting order; sorted when first read, so that `router()` alone never sorts.
    unsorted: RouteTable,
    routes: OnceLock<RouteTable>,
}

impl Application {
    /// Builds the application of `root` from the routes that `#[controller]` registered.
    ///
    /// Every conflict that would make axum panic (the same method and path twice, overlapping
    /// path parameters, invalid paths) and every invalid CORS configuration is returned as a
    /// [`BuildError`] instead.
    pub fn build<M: Module>(root: &M) -> Result<Self, BuildError> {
        Self::build_from(root.definition(), inventory::iter::<RouteRegistration>)
    }

    /// Builds from an explicit set of registrations (benchmarks and tests).
    #[doc(hidden)]
    pub fn build_from<'r>(
        root: ModuleDefinition,
        registrations: impl IntoIterator<Item = &'r RouteRegistration>,
    ) -> Result<Self, BuildError> {
        let mut index: HashMap<TypeId, Vec<&'r RouteRegistration>> = HashMap::new();
        for registration in registrations {
            index
                .entry((registration.controller)())
                .or_default()
                .push(registration);
        }
        let mut builder = Builder {
            index,
            router: Some(Router::new()),
            table: RouteTable::default(),
            owners: None,
            conflicts: matchit::Router::new(),
        };
        builder.visit(root, "", &mut Vec::new())?;
        Ok(Application {
            router: builder.router.unwrap_or_default(),
            unsorted: builder.table,
            routes: OnceLock::new(),
        })
    }

    /// The router, to serve or to combine with other axum routers and layers.
    pub fn into_router(self) -> Router {
        self.router
    }

    /// The route table.
    pub fn routes(&self) -> &RouteTable {
        self.routes
            .get_or_init(|| self.unsorted.clone().into_sorted())
    }

    /// The router and the route table.
    pub fn into_parts(self) -> (Router, RouteTable) {
        let routes = match self.routes.into_inner() {
            Some(sorted) => sorted,
            None => self.unsorted.into_sorted(),
        };
        (self.router, routes)
    }
}

struct Builder<'r> {
    index: HashMap<TypeId, Vec<&'r RouteRegistration>>,
    /// `None` only while a route is being added: `Router::route` takes the router by value.
    router: Option<Router>,
    table: RouteTable,
    /// Where each path's routes start and end in `table`; built only once a second module
    /// mounts routes, since paths are distinct within one module.
    owners: Option<HashMap<Arc<str>, std::ops::Range<usize>>>,
    /// Paths with parameters or wildcards, to find the conflicts axum would panic on.
    conflicts: matchit::Router<()>,
}

impl Builder<'_> {
    /// Builds `module` and its imports; returns the hooks it applies to its importer.
    fn visit(
        &mut self,
        module: ModuleDefinition,
        prefix: &str,
        stack: &mut Vec<(TypeId, &'static str)>,
    ) -> Result<Vec<Arc<dyn ModuleHook>>, BuildError> {
        if let Some(at) = stack.iter().position(|(id, _)| *id == module.type_id) {
            let mut chain: Vec<_> = stack[at..].iter().map(|(_, name)| *name).collect();
            chain.push(module.name);
            return Err(BuildError::ImportCycle { chain });
        }
        stack.push((module.type_id, module.name));

        let mut hooks: Vec<Arc<dyn ModuleHook>> = Vec::new();
        for import in module.imports {
            let child_prefix = join_paths(prefix, &import.prefix)?;
            for hook in self.visit(import.module.definition(), &child_prefix, stack)? {
                if hooks.iter().any(|h| h.name() == hook.name()) {
                    return Err(BuildError::DuplicateHook {
                        module: module.name,
                        hook: hook.name(),
                    });
                }
                hooks.push(hook);
            }
        }

        let mut routes =
            self.collect_routes(module.name, prefix, &module.controllers, module.providers)?;
        for hook in &hooks {
            hook.apply(&mut routes)?;
        }
        self.mount(routes)?;

        stack.pop();
        Ok(module.importer_hooks)
    }

    /// Groups the routes of a module's own controllers by full path.
    fn collect_routes(
        &self,
        module: &'static str,
        prefix: &str,
        controllers: &[crate::controller::ControllerRef],
        providers: ProviderBuilder,
    ) -> Result<ModuleRoutes, BuildError> {
        for (i, controller) in controllers.iter().enumerate() {
            if controllers[..i]
                .iter()
                .any(|c| c.type_id == controller.type_id)
            {
                return Err(BuildError::DuplicateController {
                    module,
                    controller: controller.name,
                });
            }
        }

        let count = controllers
            .iter()
            .filter_map(|c| self.index.get(&c.type_id))
            .map(Vec::len)
            .sum();
        let mut routes: Vec<(Cow<'_, str>, &RouteRegistration)> = Vec::with_capacity(count);
        for controller in controllers {
            for registration in self.index.get(&controller.type_id).into_iter().flatten() {
                if !METHOD_ORDER.contains(&registration.method) {
                    return Err(BuildError::InvalidMethod {
                        method: registration.method.to_owned(),
                        route: format!(
                            "{}::{}",
                            registration.controller_name, registration.handler
                        ),
                    });
                }
                routes.push((join_route_path(prefix, registration.path)?, registration));
            }
        }
        // Group by path without sorting every route: paths keep registration order, which is
        // fixed for a given binary, and the route table is sorted when it is read.
        let mut slots: HashMap<&str, usize> = HashMap::with_capacity(routes.len());
        let mut groups: Vec<(&str, Vec<&RouteRegistration>)> = Vec::with_capacity(routes.len());
        for (path, registration) in &routes {
            match slots.entry(path) {
                Entry::Occupied(slot) => groups[*slot.get()].1.push(registration),
                Entry::Vacant(slot) => {
                    slot.insert(groups.len());
                    groups.push((path, vec![registration]));
                }
            }
        }

        let mut paths = Vec::with_capacity(groups.len());
        for (path, mut group) in groups {
            validate_path(path)?;
            // Registry order is not defined: sort, so that a duplicate is reported the same
            // way every time, naming both routes.
            group.sort_by_key(|r| (method_rank(r.method), r.controller_name, r.handler));
            for pair in group.windows(2) {
                if pair[0].method == pair[1].method {
                    return Err(BuildError::DuplicateRoute {
                        method: pair[0].method.to_owned(),
                        path: path.to_owned(),
                        first: describe(module, pair[0]),
                        second: describe(module, pair[1]),
                    });
                }
            }
            paths.push(build_path(path, group.into_iter(), &providers));
        }

        Ok(ModuleRoutes {
            module,
            providers,
            paths,
        })
    }

    /// Adds a module's routes to the router, after the checks on which axum would panic.
    fn mount(&mut self, module: ModuleRoutes) -> Result<(), BuildError> {
        if module.paths.is_empty() {
            return Ok(());
        }
        if self.owners.is_none() && !self.table.is_empty() {
            self.owners = Some(self.index_paths());
        }
        self.table
            .routes
            .reserve(module.paths.iter().map(|p| p.routes.len()).sum());
        for path in module.paths {
            if let Some(owners) = &mut self.owners {
                if let Some(range) = owners.get(&path.path) {
                    return Err(two_modules(
                        &self.table.routes[range.clone()],
                        module.module,
                        &path,
                    ));
                }
                let start = self.table.len();
                owners.insert(path.path.clone(), start..start + path.routes.len());
            }
            // The router reports conflicts only between paths with parameters or wildcards;
            // equal static paths were found above.
            if path.path.contains('{') {
                self.conflicts
                    .insert(&*path.path, ())
                    .map_err(|e| BuildError::PathConflict {
                        path: path.path.to_string(),
                        reason: e.to_string(),
                    })?;
            }
            self.table
                .routes
                .extend(path.routes.iter().map(|r| RouteInfo {
                    method: r.method.clone(),
                    path: path.path.clone(),
                    module: module.module,
                    controller: r.controller,
                    handler: r.handler,
                }));
            let (path, method_router) = path.into_method_router();
            let router = self.router.take().unwrap_or_default();
            self.router = Some(router.route(&path, method_router));
        }
        Ok(())
    }

    /// The paths mounted so far, with their routes in the table (contiguous per path).
    fn index_paths(&self) -> HashMap<Arc<str>, std::ops::Range<usize>> {
        let mut owners: HashMap<Arc<str>, std::ops::Range<usize>> = HashMap::new();
        for (i, route) in self.table.routes.iter().enumerate() {
            owners
                .entry(route.path.clone())
                .and_modify(|range| range.end = i + 1)
                .or_insert(i..i + 1);
        }
        owners
    }
}

/// The error for a path that a second module serves too: the same route twice (naming both)
/// or one path in two modules.
fn two_modules(first: &[RouteInfo], module: &'static str, path: &PathRoutes) -> BuildError {
    let clash = path.routes.iter().find_map(|later| {
        first
            .iter()
            .find(|earlier| earlier.method == later.method)
            .map(|earlier| (earlier, later))
    });
    match clash {
        Some((earlier, later)) => BuildError::DuplicateRoute {
            method: later.method.to_string(),
            path: path.path.to_string(),
            first: format!(
                "{}::{}::{}",
                earlier.module, earlier.controller, earlier.handler
            ),
            second: format!("{module}::{}", later.describe()),
        },
        None => BuildError::PathInTwoModules {
            path: path.path.to_string(),
            first: first.first().map_or("?", |r| r.module),
            second: module,
        },
    }
}

/// Builds the method router of one path from its (sorted, distinct) registrations.
fn build_path<'r>(
    path: &str,
    registrations: impl ExactSizeIterator<Item = &'r RouteRegistration>,
    module: &ProviderBuilder,
) -> PathRoutes {
    let mut steps = Vec::with_capacity(registrations.len());
    let mut routes = Vec::with_capacity(registrations.len());
    for registration in registrations {
        let controller_providers = registration.controller_providers.map(|f| Arc::new(f()));
        let route_providers = registration.route_providers.map(|f| Arc::new(f()));
        let more_specific: Vec<&ProviderBuilder> = controller_providers
            .iter()
            .chain(route_providers.iter())
            .map(|p| &**p)
            .collect();
        let providers = (!module.is_empty() || more_specific.iter().any(|p| !p.is_empty()))
            .then(|| ProviderLayer(module.overlaid(&more_specific).into_scope()));
        steps.push(Step::Registered(registration.method_router, providers));
        routes.push(RouteEntry {
            method: Method::from_bytes(registration.method.as_bytes()).unwrap_or(Method::GET),
            controller: registration.controller_name,
            handler: registration.handler,
            controller_providers,
            route_providers,
        });
    }
    PathRoutes {
        path: path.into(),
        routes,
        steps,
    }
}

fn describe(module: &str, registration: &RouteRegistration) -> String {
    format!(
        "{module}::{}::{}",
        registration.controller_name, registration.handler
    )
}

/// Joins a prefix and a path: `("/api", "users")` gives `/api/users`; `("", "")` gives `/`.
fn join_paths(prefix: &str, path: &str) -> Result<String, BuildError> {
    join_route_path(prefix, path).map(Cow::into_owned)
}

/// [`join_paths`] that borrows `path` when it is already the joined form (no prefix, one
/// leading `/`, no trailing one), as the macro writes route paths.
fn join_route_path<'p>(prefix: &str, path: &'p str) -> Result<Cow<'p, str>, BuildError> {
    let normal =
        path == "/" || (path.starts_with('/') && !path.ends_with('/') && !path.contains("//"));
    if prefix.trim_matches('/').is_empty() && normal {
        return Ok(Cow::Borrowed(path));
    }
    let mut joined = String::with_capacity(prefix.len() + path.len() + 2);
    for part in [prefix, path] {
        let trimmed = part.trim_matches('/');
        if !trimmed.is_empty() {
            joined.push('/');
            joined.push_str(trimmed);
        }
    }
    if joined.is_empty() {
        joined.push('/');
    }
    if joined.contains("//") {
        return Err(BuildError::InvalidPath {
            path: joined,
            reason: "empty path segment (`//`)".to_owned(),
        });
    }
    Ok(Cow::Owned(joined))
}

/// The checks on which axum would panic, reported as errors.
fn validate_path(path: &str) -> Result<(), BuildError> {
    let invalid = |reason: &str| BuildError::InvalidPath {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    for segment in path.split('/') {
        if let Some(name) = segment.strip_prefix(':') {
            return Err(invalid(&format!(
                "segments must not start with `:`; write the parameter as `{{{name}}}`"
            )));
        }
        if let Some(name) = segment.strip_prefix('*') {
            return Err(invalid(&format!(
                "segments must not start with `*`; write the wildcard as `{{*{name}}}`"
            )));
        }
    }
    if path.contains(['?', '#', ' ']) {
        return Err(invalid("paths cannot contain `?`, `#` or spaces"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_paths_normalises_slashes() {
        assert_eq!(join_paths("", "").unwrap(), "/");
        assert_eq!(join_paths("", "/").unwrap(), "/");
        assert_eq!(join_paths("/api", "users").unwrap(), "/api/users");
        assert_eq!(join_paths("api/", "/users/").unwrap(), "/api/users");
        assert!(join_paths("/a//b", "c").is_err());
        assert!(matches!(
            join_route_path("", "/users"),
            Ok(Cow::Borrowed("/users"))
        ));
    }

    #[test]
    fn static_paths_never_conflict_with_parameter_paths_in_the_router() {
        // `finish` checks only paths with parameters for conflicts; this is what makes that
        // sound: the router accepts every static path beside any parameter or wildcard path.
        let dynamic = [
            "/{id}",
            "/a/{x}",
            "/a/{x}/c",
            "/files/{*rest}",
            "/x{suffix}",
        ];
        let fixed = [
            "/", "/a", "/a/b", "/a/b/c", "/files", "/files/a", "/x", "/xy", "/b/{{c}}",
        ];
        for (first, second) in [(&dynamic[..], &fixed[..]), (&fixed[..], &dynamic[..])] {
            let mut router = matchit::Router::new();
            for path in first.iter().chain(second.iter()) {
                router
                    .insert(*path, ())
                    .unwrap_or_else(|e| panic!("{path}: {e}"));
            }
            assert!(
                router.insert("/a/{y}", ()).is_err(),
                "parameter paths do conflict"
            );
        }
    }

    #[test]
    fn legacy_parameter_syntax_is_an_error_not_a_panic() {
        let err = validate_path("/users/:id").unwrap_err().to_string();
        assert!(err.contains("`{id}`"), "{err}");
        let err = validate_path("/files/*rest").unwrap_err().to_string();
        assert!(err.contains("`{*rest}`"), "{err}");
        assert!(validate_path("/users/{id}").is_ok());
    }
}
