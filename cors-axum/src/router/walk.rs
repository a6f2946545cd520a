//! The walk over the module tree: every module's scope (guards, layers, providers, CORS) and
//! every route of its controllers, with its full path; and the CORS options of each level of
//! the merge, taken once out of the providers they are given in (`.provide(..)` of the
//! application builder, `providers_per_rou`, `cors = ..` of a controller or a route) into a
//! typed slot that the planner reads, and checked once: where no `CorsModule` applies, options
//! are an error naming where they were given and the fix, and `cors = false` a warning, since
//! either does nothing.

use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use cors_axum_core::CorsOptions;

use super::paths::{join_paths, join_route_path, validate_path};
use crate::controller::{ControllerRef, RouteDef};
use crate::cors::imported::{Imported, ModuleRecipe};
use crate::cors::module::CorsImport;
use crate::describe::draft::Describe;
use crate::error::BuildError;
use crate::guard::Guards;
use crate::module::{ImportKind, Module, ModuleDefinition, PathLayer};
use crate::needs::GuardNeed;
use crate::provider::{ProviderBuilder, ProviderScope};

/// One module, as its routes see it.
pub(super) struct ModuleScope<S: 'static> {
    pub(super) name: &'static str,
    /// The module's own providers (`providers_per_rou`), without its CORS options (in its
    /// recipe, `cors`).
    pub(super) providers: ProviderBuilder,
    /// How the module spells its providers key (`providers_per_rou` or `providers_per_route`),
    /// for messages.
    pub(super) providers_key: &'static str,
    /// The providers of its routes without providers of their own (the application's and its
    /// own, merged), and of its origin decisions; `None` where there are none.
    pub(super) routes_providers: Option<ProviderScope>,
    /// What it passes on to the modules it imports, which is what its own routes see too.
    pub(super) scope: Inherited<S>,
    /// What its CORS is made of; `None` where no `CorsModule` covers it.
    pub(super) cors: Option<Arc<ModuleRecipe>>,
    /// Its controllers, with their providers.
    pub(super) controllers: Vec<ControllerScope<S>>,
}

/// One controller of a module, with what it gives its routes.
pub(super) struct ControllerScope<S: 'static> {
    pub(super) controller: ControllerRef<S>,
    /// Its providers (`providers = [..]`), without its CORS options; `None` where it has none.
    pub(super) providers: Option<ProviderBuilder>,
    /// Its CORS options (`cors = ..`), boxed: most controllers have none.
    pub(super) cors: Option<Box<CorsOptions>>,
}

/// One route, with its full path and where it comes from.
pub(super) struct Collected<S: 'static> {
    pub(super) path: Cow<'static, str>,
    pub(super) def: &'static RouteDef<S>,
    /// Its module, an index of [`Walk::modules`].
    pub(super) module: usize,
    /// Its controller, an index of the module's controllers.
    pub(super) controller: usize,
    /// Its own providers (`providers = [..]`), without its CORS options; `None` where it has
    /// none.
    pub(super) providers: Option<ProviderBuilder>,
    /// Its own CORS options (`cors = ..`), boxed: a route is moved as the routes are grouped
    /// by path, and most have none.
    pub(super) cors: Option<Box<CorsOptions>>,
}

/// What a module passes on to the modules it imports: the guards, layers and the rest of the
/// modules importing it, with its own.
#[derive(Clone)]
pub(super) struct Inherited<S: 'static> {
    pub(super) cors: Option<Arc<Imported>>,
    /// Most general first: the order they run in.
    pub(super) guards: Guards<S>,
    /// What they take with `Inject<T>`, as they declare it.
    pub(super) guard_needs: Vec<GuardNeed>,
    /// Innermost first: the order they are applied in.
    pub(super) layers: Vec<PathLayer<S>>,
    /// What the guards say in an OpenAPI document.
    #[cfg_attr(not(feature = "openapi"), allow(dead_code))]
    pub(super) guard_docs: Vec<Describe>,
    /// Whether the routes are in OpenAPI documents, unless a controller or route says
    /// otherwise: the module's own `openapi: ..`, else that of the module importing it.
    #[cfg_attr(not(feature = "openapi"), allow(dead_code))]
    pub(super) listed_in_openapi: bool,
}

impl<S> Inherited<S> {
    /// What `module` passes on to the modules it imports: its `cors`, and its guards, layers
    /// and the rest with these inherited ones (guards before its own, layers after).
    fn below(&self, cors: Option<Arc<Imported>>, module: &ModuleDefinition<S>) -> Self {
        Inherited {
            cors,
            guards: self.guards.iter().chain(&module.guards).copied().collect(),
            guard_needs: [
                &self.guard_needs[..],
                &module.guard_needs.guard_injected[..],
            ]
            .concat(),
            layers: [&module.layers[..], &self.layers[..]].concat(),
            guard_docs: [&self.guard_docs[..], &module.guard_docs[..]].concat(),
            listed_in_openapi: module.listed_in_openapi.unwrap_or(self.listed_in_openapi),
        }
    }
}

/// Puts `module` on the stack of the modules being walked, or the error of an import cycle
/// naming the modules in it.
fn enter<S>(
    stack: &mut Vec<(TypeId, &'static str)>,
    module: &ModuleDefinition<S>,
) -> Result<(), BuildError> {
    if let Some(at) = stack.iter().position(|(id, _)| *id == module.type_id) {
        let mut chain: Vec<_> = stack[at..].iter().map(|(_, name)| *name).collect();
        chain.push(module.name);
        return Err(BuildError::ImportCycle { chain });
    }
    stack.push((module.type_id, module.name));
    Ok(())
}

/// The modules and routes of an application, in the order the walk met them: the root first.
pub(super) struct Walk<S: 'static> {
    pub(super) modules: Vec<ModuleScope<S>>,
    pub(super) routes: Vec<Collected<S>>,
    /// The application's providers ([`ApplicationBuilder::provide`]), without its CORS options.
    ///
    /// [`ApplicationBuilder::provide`]: crate::app::ApplicationBuilder::provide
    pub(super) application: ProviderBuilder,
    /// The controllers the modules list.
    pub(super) listed: HashSet<TypeId>,
    /// What does nothing but may be meant (`cors = false` where no `CorsModule` applies).
    pub(super) warnings: Vec<String>,
    /// The root module's full type name, whose first segment is its crate.
    pub(super) root_type_name: &'static str,
}

impl<S: Clone + Send + Sync + 'static> Walk<S> {
    /// Walks `root` and the modules it imports, under the application's providers and CORS
    /// options (`cors`; `reload` when a reload may replace them).
    pub(super) fn of(
        root: &dyn Module<S>,
        inherited: &Inherited<S>,
        application: ProviderBuilder,
        cors: Option<&CorsOptions>,
        reload: bool,
    ) -> Result<Self, BuildError> {
        let definition = root.definition();
        let mut walk = Walk {
            modules: Vec::new(),
            routes: Vec::new(),
            application,
            listed: HashSet::new(),
            warnings: Vec::new(),
            root_type_name: definition.type_name,
        };
        walk.visit(definition, "", inherited, &mut Vec::new())?;
        let covered = walk.modules.iter().any(|m| m.cors.is_some());
        let root = walk.modules[0].name;
        if reload && !covered {
            return Err(BuildError::CorsOptionsWithoutCors {
                given_in: "`.cors_reload(..)` of the application builder".to_owned(),
                module: root,
            });
        }
        let given_in = || "`.provide(..)` of the application builder".to_owned();
        walk.check(cors, given_in, root, covered)?;
        Ok(walk)
    }

    /// Records `module` under `prefix`, then the modules it imports.
    fn visit(
        &mut self,
        mut module: ModuleDefinition<S>,
        prefix: &str,
        inherited: &Inherited<S>,
        stack: &mut Vec<(TypeId, &'static str)>,
    ) -> Result<(), BuildError> {
        enter(stack, &module)?;
        let name = module.name;
        let mut own_cors: Option<CorsImport> = None;
        #[cfg(feature = "openapi")]
        let mut own_openapi = None;
        let mut children = Vec::new();
        for import in std::mem::take(&mut module.imports) {
            match import.kind {
                ImportKind::Cors(cors) => {
                    if own_cors.replace(*cors).is_some() {
                        return Err(BuildError::CorsModuleTwice { module: name });
                    }
                }
                #[cfg(feature = "openapi")]
                ImportKind::Openapi(openapi) => {
                    if own_openapi.replace(*openapi).is_some() {
                        return Err(BuildError::OpenapiModuleTwice { module: name });
                    }
                }
                ImportKind::Module(child, _) => children.push((import.prefix, child)),
            }
        }
        let cors = Imported::resolve(name, own_cors, inherited.cors.as_ref())?;
        let scope = inherited.below(cors, &module);
        #[cfg(feature = "openapi")]
        let first = (self.modules.len(), self.routes.len());
        let controllers = std::mem::take(&mut module.controllers);
        let module = ModuleScope {
            name,
            providers: module.providers,
            providers_key: module.providers_key,
            routes_providers: None,
            scope: scope.clone(),
            cors: None,
            controllers: Vec::new(),
        };
        self.add_module(module, controllers, prefix)?;
        // The document's routes are the module's own; the routes it describes are known once
        // the modules it imports are walked (`router/document.rs`).
        #[cfg(feature = "openapi")]
        let document = own_openapi
            .map(|openapi| self.add_openapi(first, prefix, openapi))
            .transpose()?;
        for (child_prefix, child) in children {
            let child_prefix = join_paths(prefix, &child_prefix)?;
            validate_path(&child_prefix)?;
            self.visit(child.definition(), &child_prefix, &scope, stack)?;
        }
        #[cfg(feature = "openapi")]
        if let Some(document) = document {
            self.describe_document(document);
        }
        stack.pop();
        Ok(())
    }

    /// Records `module`, its CORS options taken out of its providers and checked, and the
    /// routes of its `controllers`.
    fn add_module(
        &mut self,
        mut module: ModuleScope<S>,
        controllers: Vec<ControllerRef<S>>,
        prefix: &str,
    ) -> Result<(), BuildError> {
        let (name, providers_key) = (module.name, module.providers_key);
        let covered = module.scope.cors.is_some();
        let provided = module.providers.take::<CorsOptions>();
        let given_in = || format!("`{providers_key}` of `{name}`");
        self.check(provided.as_ref(), given_in, name, covered)?;
        self.routes
            .reserve(controllers.iter().map(|c| c.routes.len()).sum());
        for (i, controller) in controllers.into_iter().enumerate() {
            let known = &module.controllers;
            if known
                .iter()
                .any(|c| c.controller.type_id == controller.type_id)
            {
                return Err(BuildError::DuplicateController {
                    module: name,
                    controller: controller.name,
                });
            }
            self.listed.insert(controller.type_id);
            let (cors, providers) = take_own(controller.providers.map(|f| f()));
            let given_in = || format!("`#[controller(..)]` of `{}`", controller.name);
            self.check(cors.as_deref(), given_in, name, covered)?;
            for def in controller.routes {
                self.add_route(prefix, def, &module, (i, controller.name))?;
            }
            module.controllers.push(ControllerScope {
                controller,
                providers,
                cors,
            });
        }
        module.cors = module.scope.cors.as_ref().map(|imported| {
            Arc::new(ModuleRecipe {
                module: name,
                providers_key,
                imported: imported.clone(),
                provided,
            })
        });
        module.routes_providers = merged(&[Some(&self.application), Some(&module.providers)]);
        self.modules.push(module);
        Ok(())
    }

    /// Records one route of `module`'s `controller` (its index and name) under `prefix`, its
    /// CORS options checked.
    fn add_route(
        &mut self,
        prefix: &str,
        def: &'static RouteDef<S>,
        module: &ModuleScope<S>,
        (controller, controller_name): (usize, &'static str),
    ) -> Result<(), BuildError> {
        let (cors, providers) = take_own(def.providers.map(|f| f()));
        let given_in = || format!("`#[route(..)]` of `{controller_name}::{}`", def.handler);
        let covered = module.scope.cors.is_some();
        self.check(cors.as_deref(), given_in, module.name, covered)?;
        self.routes.push(Collected {
            path: join_route_path(prefix, def.path)?,
            def,
            module: self.modules.len(),
            controller,
            providers,
            cors,
        });
        Ok(())
    }

    /// The one check of a level's options (`options`, given where `given_in` says) in `module`,
    /// which a `CorsModule` covers or not (`covered`). Asked of every route: the common answer,
    /// nothing to check, is inlined.
    #[inline]
    fn check(
        &mut self,
        options: Option<&CorsOptions>,
        given_in: impl FnOnce() -> String,
        module: &'static str,
        covered: bool,
    ) -> Result<(), BuildError> {
        let Some(options) = options.filter(|_| !covered) else {
            return Ok(());
        };
        if options.is_enabled() {
            return Err(BuildError::CorsOptionsWithoutCors {
                given_in: given_in(),
                module,
            });
        }
        self.warnings.push(format!(
            "`cors = false` in {} does nothing: no `CorsModule` covers `{module}`",
            given_in()
        ));
        Ok(())
    }
}

/// The providers of `levels`, most general first, merged; `None` when there are none.
pub(super) fn merged(levels: &[Option<&ProviderBuilder>]) -> Option<ProviderScope> {
    if levels.iter().flatten().all(|p| p.is_empty()) {
        return None;
    }
    let mut scope = ProviderBuilder::new();
    for level in levels.iter().flatten() {
        scope.extend((*level).clone());
    }
    Some(scope.into_scope())
}

/// The CORS options of a controller's or a route's own providers, taken out of them, and the
/// providers left, `None` when they hold nothing else: options reach the plans through this
/// slot only, and handlers are not given them.
fn take_own(
    providers: Option<ProviderBuilder>,
) -> (Option<Box<CorsOptions>>, Option<ProviderBuilder>) {
    let Some(mut providers) = providers else {
        return (None, None);
    };
    let options = providers.take::<CorsOptions>().map(Box::new);
    (options, (!providers.is_empty()).then_some(providers))
}
