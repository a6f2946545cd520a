//! The walk over the module tree: every module's scope (guards, layers, providers, CORS) and
//! every route of its controllers, with its full path.

use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use cors_axum_core::CorsOptions;

use super::options::{self, GivenIn};
use super::paths::{join_paths, join_route_path, validate_path};
use crate::controller::{ControllerRef, RouteDef};
use crate::cors::imported::{Imported, ModuleRecipe};
use crate::cors::module::CorsImport;
use crate::describe::draft::Describe;
use crate::error::BuildError;
use crate::guard::{Guards, NamedGuard};
use crate::module::{ImportKind, Module, ModuleDefinition, PathLayer};
use crate::needs::GuardNeed;
use crate::provider::ProviderBuilder;

/// One module, as its routes see it.
pub(super) struct ModuleScope<S: 'static> {
    pub(super) name: &'static str,
    /// The module's own providers (`providers_per_rou`), without its CORS options (in its
    /// recipe, `cors`).
    pub(super) providers: ProviderBuilder,
    /// How the module spells its providers key (`providers_per_rou` or `providers_per_route`),
    /// for messages.
    pub(super) providers_key: &'static str,
    /// The guards of the application, the modules that import it and its own, in the order
    /// they run.
    pub(super) guards: Guards<S>,
    /// What the guards of the modules that import it and its own take with `Inject<T>`.
    pub(super) guard_needs: Vec<GuardNeed>,
    /// The layers of the application, the modules that import it and its own, innermost first.
    pub(super) layers: Vec<PathLayer<S>>,
    /// What the guards of the modules that import it and its own say in an OpenAPI document.
    #[cfg_attr(not(feature = "openapi"), allow(dead_code))]
    pub(super) guard_docs: Vec<Describe>,
    /// Whether its routes are in OpenAPI documents, unless a controller or route says
    /// otherwise: its own `openapi: ..`, else that of the module importing it.
    #[cfg_attr(not(feature = "openapi"), allow(dead_code))]
    pub(super) listed_in_openapi: bool,
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

/// What a module declares for its own routes, as the walk records it.
struct Own<S: 'static> {
    name: &'static str,
    controllers: Vec<ControllerRef<S>>,
    providers: ProviderBuilder,
    providers_key: &'static str,
}

/// Where a route is declared: its module and its controller (an index and a name each), and
/// whether a `CorsModule` covers the module.
struct Owner {
    module: (usize, &'static str),
    controller: (usize, &'static str),
    covered: bool,
}

/// What a module passes on to the modules it imports.
pub(super) struct Inherited<S: 'static> {
    pub(super) cors: Option<Arc<Imported>>,
    /// Most general first: the order they run in.
    pub(super) guards: Vec<NamedGuard<S>>,
    /// What they take with `Inject<T>`, as they declare it.
    pub(super) guard_needs: Vec<GuardNeed>,
    /// Innermost first: the order they are applied in.
    pub(super) layers: Vec<PathLayer<S>>,
    /// What the guards say in an OpenAPI document.
    pub(super) guard_docs: Vec<Describe>,
    /// Whether the routes are in OpenAPI documents.
    pub(super) listed_in_openapi: bool,
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

impl<S> Inherited<S> {
    /// What a module passes on to the modules it imports: `own`, its own guards, layers and
    /// the rest, with these inherited ones (guards before its own, layers after), its CORS and
    /// OpenAPI listing as given.
    fn below(&self, own: Inherited<S>) -> Inherited<S> {
        let mut guards = self.guards.clone();
        guards.extend(own.guards);
        let mut guard_needs = self.guard_needs.clone();
        guard_needs.extend(own.guard_needs);
        let mut layers = own.layers;
        layers.extend(self.layers.iter().cloned());
        let mut guard_docs = self.guard_docs.clone();
        guard_docs.extend(own.guard_docs);
        Inherited {
            cors: own.cors,
            guards,
            guard_needs,
            layers,
            guard_docs,
            listed_in_openapi: own.listed_in_openapi,
        }
    }
}

/// The modules and routes of an application, in the order the walk met them: the root first.
pub(super) struct Walk<S: 'static> {
    pub(super) modules: Vec<ModuleScope<S>>,
    pub(super) routes: Vec<Collected<S>>,
    /// The controllers the modules list.
    pub(super) listed: HashSet<TypeId>,
    /// What does nothing but may be meant (`cors = false` where no `CorsModule` applies).
    pub(super) warnings: Vec<String>,
    /// The root module's full type name, whose first segment is its crate.
    pub(super) root_type_name: &'static str,
}

impl<S: Clone + Send + Sync + 'static> Walk<S> {
    /// Walks `root` and the modules it imports, under the application's CORS options
    /// (`application`; `reload` when a reload may replace them).
    pub(super) fn of(
        root: &dyn Module<S>,
        inherited: &Inherited<S>,
        application: Option<&CorsOptions>,
        reload: bool,
    ) -> Result<Self, BuildError> {
        let definition = root.definition();
        let mut walk = Walk {
            modules: Vec::new(),
            routes: Vec::new(),
            listed: HashSet::new(),
            warnings: Vec::new(),
            root_type_name: definition.type_name,
        };
        walk.visit(definition, "", inherited, &mut Vec::new())?;
        let covered = walk.modules.iter().any(|m| m.cors.is_some());
        let given_in = GivenIn::Application { reload };
        let root = walk.root().name;
        options::check(application, given_in, root, covered, &mut walk.warnings)?;
        Ok(walk)
    }

    /// The root module, met first.
    pub(super) fn root(&self) -> &ModuleScope<S> {
        &self.modules[0]
    }

    /// Records `module` under `prefix`, then the modules it imports.
    fn visit(
        &mut self,
        module: ModuleDefinition<S>,
        prefix: &str,
        inherited: &Inherited<S>,
        stack: &mut Vec<(TypeId, &'static str)>,
    ) -> Result<(), BuildError> {
        enter(stack, &module)?;
        let ModuleDefinition {
            name,
            imports,
            controllers,
            providers,
            providers_key,
            guards,
            guard_needs,
            guard_docs,
            layers,
            listed_in_openapi,
            ..
        } = module;

        let mut own_cors: Option<CorsImport> = None;
        #[cfg(feature = "openapi")]
        let mut own_openapi = None;
        let mut children = Vec::new();
        for import in imports {
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
        let passed_on = inherited.below(Inherited {
            cors,
            guards,
            guard_needs: guard_needs.guard_injected,
            layers,
            guard_docs,
            listed_in_openapi: listed_in_openapi.unwrap_or(inherited.listed_in_openapi),
        });

        #[cfg(feature = "openapi")]
        let first = (self.modules.len(), self.routes.len());
        let own = Own {
            name,
            controllers,
            providers,
            providers_key,
        };
        self.add_module(own, prefix, &passed_on)?;
        // The document's routes are the module's own; the routes it describes are known once
        // the modules it imports are walked (`router/document.rs`).
        #[cfg(feature = "openapi")]
        let document = own_openapi
            .map(|openapi| self.add_openapi(first, prefix, openapi))
            .transpose()?;
        for (child_prefix, child) in children {
            let child_prefix = join_paths(prefix, &child_prefix)?;
            validate_path(&child_prefix)?;
            self.visit(child.definition(), &child_prefix, &passed_on, stack)?;
        }
        #[cfg(feature = "openapi")]
        if let Some(document) = document {
            self.describe_document(document);
        }
        stack.pop();
        Ok(())
    }

    /// Records one module's scope and its controllers' routes.
    fn add_module(
        &mut self,
        own: Own<S>,
        prefix: &str,
        scope: &Inherited<S>,
    ) -> Result<(), BuildError> {
        let Own {
            name,
            controllers,
            mut providers,
            providers_key,
        } = own;
        let index = self.modules.len();
        let covered = scope.cors.is_some();
        let provided = options::take(&mut providers);
        let given_in = GivenIn::Module {
            module: name,
            key: providers_key,
        };
        options::check(
            provided.as_ref(),
            given_in,
            name,
            covered,
            &mut self.warnings,
        )?;
        let mut scopes = Vec::with_capacity(controllers.len());
        self.routes
            .reserve(controllers.iter().map(|c| c.routes.len()).sum());
        for (i, controller) in controllers.into_iter().enumerate() {
            if scopes
                .iter()
                .any(|c: &ControllerScope<S>| c.controller.type_id == controller.type_id)
            {
                return Err(BuildError::DuplicateController {
                    module: name,
                    controller: controller.name,
                });
            }
            self.listed.insert(controller.type_id);
            let (cors, providers) = options::take_own(controller.providers.map(|f| f()));
            let given_in = GivenIn::Controller {
                controller: controller.name,
            };
            options::check(cors.as_deref(), given_in, name, covered, &mut self.warnings)?;
            for def in controller.routes {
                let owner = Owner {
                    module: (index, name),
                    controller: (i, controller.name),
                    covered,
                };
                self.add_route(prefix, def, owner)?;
            }
            scopes.push(ControllerScope {
                controller,
                providers,
                cors,
            });
        }
        let cors = scope.cors.as_ref().map(|imported| {
            Arc::new(ModuleRecipe::new(
                name,
                providers_key,
                imported.clone(),
                provided,
            ))
        });
        self.modules.push(ModuleScope {
            name,
            providers,
            providers_key,
            guards: scope.guards.clone().into(),
            guard_needs: scope.guard_needs.clone(),
            layers: scope.layers.clone(),
            guard_docs: scope.guard_docs.clone(),
            listed_in_openapi: scope.listed_in_openapi,
            cors,
            controllers: scopes,
        });
        Ok(())
    }

    /// Records one route of `owner` under `prefix`, its CORS options checked.
    fn add_route(
        &mut self,
        prefix: &str,
        def: &'static RouteDef<S>,
        owner: Owner,
    ) -> Result<(), BuildError> {
        let (cors, providers) = options::take_own(def.providers.map(|f| f()));
        let given_in = GivenIn::Route {
            controller: owner.controller.1,
            handler: def.handler,
        };
        let (module, module_name) = owner.module;
        options::check(
            cors.as_deref(),
            given_in,
            module_name,
            owner.covered,
            &mut self.warnings,
        )?;
        self.routes.push(Collected {
            path: join_route_path(prefix, def.path)?,
            def,
            module,
            controller: owner.controller.0,
            providers,
            cors,
        });
        Ok(())
    }
}
