//! `#[route(..)]`: one route of a controller, and the error when it stands alone.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{Attribute, FnArg, ImplItemFn, ReceiverKind, ReturnType, Type};

use crate::attr::{self, LevelArgs, RouteArgs, StateParams, TokenList, checks_path, private};
use crate::openapi::{RouteDocs, names_impl_trait, output_type};

/// `#[route]` outside a `#[controller]` impl block: the item plus an error saying where it
/// belongs.
pub(crate) fn expand_outside_controller(_args: TokenStream, item: TokenStream) -> TokenStream {
    let span = item
        .clone()
        .into_iter()
        .find_map(|tt| match tt {
            TokenTree::Ident(ident) if ident == "fn" => Some(ident.span()),
            _ => None,
        })
        .unwrap_or_else(Span::call_site);
    let error = syn::Error::new(
        span,
        "`#[route]` belongs on a method of an `impl` block marked `#[controller]`",
    );
    attr::with_error(item, error)
}

/// The paths of `#[route(..)]` and `#[cors_axum::route(..)]`.
pub(crate) const ROUTE_PATHS: &[&[&str]] = &[&["route"], &["cors_axum", "route"]];

/// Whether `attr` is `#[route(..)]` or `#[cors_axum::route(..)]`, matched exactly.
pub(crate) fn is_route_attr(attr: &Attribute) -> bool {
    attr::path_is(attr, ROUTE_PATHS)
}

/// A route found in a controller, checked.
pub(crate) struct Route {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) handler: Ident,
    pub(crate) args: RouteArgs,
    /// The arguments of the method's `#[utoipa::path(..)]`.
    pub(crate) details: Option<TokenStream>,
}

/// What the generated code of a route needs to know about its controller.
pub(crate) struct ControllerContext<'a> {
    pub(crate) self_ty: &'a Type,
    pub(crate) params: &'a StateParams,
    pub(crate) level: &'a LevelArgs,
}

/// The function of a route that adds it to its path's method router.
struct RouterFn {
    tokens: TokenStream,
    name: Ident,
    /// Where an unmet bound of the function is reported.
    span: Span,
    /// Whether the route or its controller has layers of its own.
    layered: bool,
}

impl Route {
    /// Reads one `#[route(..)]` of `method_item` with the controller's path `prefix`.
    pub(crate) fn parse(
        attr: &Attribute,
        method_item: &ImplItemFn,
        prefix: &str,
        details: Option<TokenStream>,
    ) -> syn::Result<Self> {
        let args: RouteArgs = attr.parse_args()?;
        let method = attr::check_method(&args.method)?;
        let path = match &args.path {
            Some(lit) => crate::path::check(&lit.value(), lit.span())?,
            None => "/".to_owned(),
        };
        check_signature(method_item)?;
        Ok(Self {
            method,
            path: crate::path::join(prefix, &path),
            handler: method_item.sig.ident.clone(),
            args,
            details,
        })
    }

    /// The functions of this route (its method router, its needs, its providers, its
    /// description) and its `RouteDef`.
    pub(crate) fn expand(
        &self,
        index: usize,
        item: &ImplItemFn,
        controller: &ControllerContext<'_>,
    ) -> RouteItems {
        let ControllerContext { self_ty, level, .. } = controller;
        let router_name = format_ident!("__cors_route_{}", index);
        let providers_name = format_ident!("__cors_route_providers_{}", index);

        let arguments = arguments(item, self_ty);
        let router = self.router_fn(&router_name, item, &arguments, controller);

        let needs = needs_arm(index, item, &arguments, self_ty);
        let (doc_fn, doc) = self.docs(index, item, &arguments, self_ty, level);

        let (providers_fn, providers_ref) = match self.args.level.providers() {
            Some(builder) => (
                quote!(fn #providers_name() -> ::cors_axum::ProviderBuilder { #builder }),
                quote!(.providers(#providers_name)),
            ),
            None => (TokenStream::new(), TokenStream::new()),
        };
        let def = self.def(controller, &router, index, providers_ref, doc);
        let router_fn = router.tokens;
        RouteItems {
            functions: quote!(#router_fn #providers_fn #doc_fn),
            def,
            needs,
        }
    }

    /// The function that adds the route to its path's method router, with the checks of its
    /// arguments and result.
    fn router_fn(
        &self,
        name: &Ident,
        item: &ImplItemFn,
        arguments: &[(Ident, TokenList)],
        controller: &ControllerContext<'_>,
    ) -> RouterFn {
        let private = private();
        let ControllerContext {
            self_ty,
            params,
            level,
        } = controller;
        let StateParams {
            generics, state, ..
        } = params;
        let receiver = matches!(item.sig.inputs.first(), Some(FnArg::Receiver(_)));
        let Checks { body, bounds, span } =
            checks(arguments, &item.sig.output, self_ty, params, receiver);
        let layers = RouteLayers {
            route: self.args.level.layer_calls(),
            controller: level.layer_calls(),
        };
        // A method's bounds go on the function that adds its wrapper (`__router`); a function's
        // on this one, where they hold while its body is checked, and are checked where it is
        // named, in the `RouteDef`, so that a wrong argument is one error rather than one more
        // from axum's `Handler` bound.
        let (wrapper_bounds, own_bounds) = if receiver {
            (bounds, TokenStream::new())
        } else {
            (TokenStream::new(), bounds)
        };
        let router = self.router_expr(item, arguments, self_ty, params, &layers, &wrapper_bounds);
        let tokens = quote! {
            fn #name #generics (
                __into: __Router<#state>,
                __setup: #private::RouteSetup<#state>,
            ) -> __Router<#state>
            #own_bounds
            {
                #body
                #router
            }
        };
        RouterFn {
            tokens,
            name: name.clone(),
            // Where a bound of the route's function fails: at its type when it has one,
            // otherwise at the handler's name.
            span: span.unwrap_or_else(|| self.handler.span()),
            layered: layers.any(),
        }
    }

    /// The route's `RouteDef`, for the controller's registry entry: `RouteDef::new` with what
    /// every route has, then a call for each thing this one has of its own (`providers_ref`
    /// and `doc` are those calls, or nothing).
    fn def(
        &self,
        controller: &ControllerContext<'_>,
        router: &RouterFn,
        index: usize,
        providers_ref: TokenStream,
        doc: TokenStream,
    ) -> TokenStream {
        let private = private();
        let ControllerContext { params, level, .. } = controller;
        let StateParams {
            state, turbofish, ..
        } = params;
        let guards: Vec<TokenStream> = level
            .guards(state)
            .into_iter()
            .chain(self.args.level.guards(state))
            .collect();
        // In a `const` block of its own: the controller's routes are one for a state that may
        // be generic, where a reference to a call is not promoted.
        let guards = (!guards.is_empty()).then(|| quote!(.guards(const { &[#(#guards),*] })));
        let method = format_ident!("{}", self.method);
        let path = &self.path;
        let handler_name = self.handler.to_string();
        let layered = router.layered.then(|| quote!(.layered()));
        let span = router.span;
        let router_ref = {
            let name = Ident::new(&router.name.to_string(), span);
            let turbofish = respan(turbofish.clone(), span);
            quote_spanned!(span=> #name #turbofish)
        };
        quote! {
            #private::RouteDef::new(
                __Method::#method,
                #path,
                #handler_name,
                #router_ref,
                __cors_route_needs,
                #index,
            ) #guards #layered #providers_ref #doc
        }
    }

    /// What the route says in an OpenAPI document: its `Describe` function and the call that
    /// gives the `RouteDef` its `RouteDoc` (both nothing without the `openapi` feature).
    fn docs(
        &self,
        index: usize,
        item: &ImplItemFn,
        arguments: &[(Ident, TokenList)],
        self_ty: &Type,
        level: &LevelArgs,
    ) -> (TokenStream, TokenStream) {
        // Asked first: without the feature, nothing of the route's types is needed.
        if !cfg!(feature = "openapi") {
            return (TokenStream::new(), TokenStream::new());
        }
        let output =
            output_type(&item.sig.output).map(|ty| replace_self(ty.to_token_stream(), self_ty));
        RouteDocs {
            index,
            item,
            // An `impl Trait` argument cannot be named outside its function.
            arguments: arguments
                .iter()
                .map(|(_, ty)| ty)
                .filter(|ty| !names_impl_trait(*ty))
                .collect(),
            output,
            method: &self.method,
            path: &self.path,
            details: self.details.as_ref(),
            // The route's own switch, else its controller's.
            listed: self.args.level.openapi.as_ref().or(level.openapi.as_ref()),
        }
        .expand()
    }

    /// The expression that builds the route's method router. An associated function is the
    /// handler itself; a `&self` method gets a wrapper that extracts the controller first.
    fn router_expr(
        &self,
        item: &ImplItemFn,
        arguments: &[(Ident, TokenList)],
        self_ty: &Type,
        params: &StateParams,
        layers: &RouteLayers,
        bounds: &TokenStream,
    ) -> TokenStream {
        let handler = &self.handler;
        let Some(FnArg::Receiver(receiver)) = item.sig.inputs.first() else {
            // Spanned at the handler's name, so that an error of the handler as a whole points
            // at it rather than at `#[controller]`.
            let route = quote_spanned!(handler.span()=> <#self_ty>::#handler);
            let added = layers.add(&self.method, route);
            return quote_spanned!(handler.span()=> #added);
        };
        let added = layers.add(&self.method, quote!(__wrapper::<__C>));
        self.method_router_expr(receiver, arguments, self_ty, params, added, bounds)
    }

    /// [`router_expr`](Self::router_expr) of a method: a wrapper that builds the controller
    /// from the request, then calls the method; `added` adds the wrapper to the path's router.
    fn method_router_expr(
        &self,
        receiver: &syn::Receiver,
        arguments: &[(Ident, TokenList)],
        self_ty: &Type,
        params: &StateParams,
        added: TokenStream,
        bounds: &TokenStream,
    ) -> TokenStream {
        let private = private();
        let checks = checks_path();
        let handler = &self.handler;
        let this = if matches!(receiver.kind, ReceiverKind::Reference(..)) {
            quote!(&__this)
        } else {
            quote!(__this)
        };
        let names = arguments.iter().map(|(name, _)| name);
        let args = arguments.iter().map(|(name, ty)| quote!(#name: #ty));
        let state = &params.state;
        // A controller for every state is built under any state, which a struct whose fields
        // take `State<T>` is not: its own message says so.
        let (generics, state_arg, instance) = if params.any_state {
            (
                quote!(<__S: #private::AnyState, __C>),
                quote!(__S,),
                quote!(AnyStateInstance),
            )
        } else {
            (
                quote!(<__C>),
                TokenStream::new(),
                quote!(ControllerInstance),
            )
        };
        // Generic over the controller, so that a controller which is not built per request fails
        // only the instance bound, with its message, pointing at the `self` that needs it.
        let span = receiver.self_token.span;
        let controller = respan(quote!(#self_ty), span);
        let build = quote_spanned!(span=> __router::<#state_arg #controller>(__into, __setup));
        quote! {
            async fn __wrapper<__C>(__this: __C, #(#args),*) -> #private::axum::response::Response
            where
                __C: ::core::convert::Into<#self_ty>,
            {
                let __this: #self_ty = ::core::convert::Into::into(__this);
                #private::axum::response::IntoResponse::into_response(
                    <#self_ty>::#handler(#this, #(#names),*).await,
                )
            }
            fn __router #generics (
                __into: __Router<#state>,
                __setup: #private::RouteSetup<#state>,
            ) -> __Router<#state>
            where
                __C: #checks::#instance<#state>
                    + ::core::convert::Into<#self_ty>
                    + ::core::marker::Send
                    + 'static,
                #bounds
            {
                #added
            }
            #build
        }
    }
}

/// The layers of a route and of its controller, as calls of `.layer(..)`, innermost first.
struct RouteLayers {
    route: TokenStream,
    controller: TokenStream,
}

impl RouteLayers {
    /// Whether there are any: CORS must then wrap them, so the builder puts it around the
    /// route rather than in its handler.
    fn any(&self) -> bool {
        !self.route.is_empty() || !self.controller.is_empty()
    }

    /// Adds `route`, the handler, for `method` to the path's method router `__into`: with
    /// layers, built apart, its layers around it, then merged.
    fn add(&self, method: &str, route: TokenStream) -> TokenStream {
        let private = private();
        let filter = format_ident!("{}", method);
        let filter = quote!(__Filter::#filter);
        if !self.any() {
            return quote!(#private::route_into(__into, #filter, #route, __setup));
        }
        let RouteLayers {
            route: route_layers,
            controller,
            ..
        } = self;
        quote! {
            __into.merge(#private::route(#filter, #route, __setup) #route_layers #controller)
        }
    }
}

/// What `#[controller]` writes for one route.
pub(crate) struct RouteItems {
    /// Its functions: the one that adds it to its path's method router, and those of its
    /// providers and description where it has them.
    pub(crate) functions: TokenStream,
    /// Its `RouteDef`.
    pub(crate) def: TokenStream,
    /// Its arm of the controller's `__cors_route_needs`.
    pub(crate) needs: TokenStream,
}

/// The arm of the controller's `__cors_route_needs` for route `index`: what the route needs
/// from its module, the needs of each argument and, for a method, of the controller's fields.
/// One function for the controller's routes, rather than one per route.
fn needs_arm(
    index: usize,
    item: &ImplItemFn,
    arguments: &[(Ident, TokenList)],
    self_ty: &Type,
) -> TokenStream {
    let private = private();
    // A `&self` route's controller, probed like an argument: a struct controller declares the
    // needs of its fields.
    let receiver = matches!(item.sig.inputs.first(), Some(FnArg::Receiver(_)));
    let controller = receiver.then(|| quote!(#self_ty));
    let types = controller
        .into_iter()
        .chain(arguments.iter().map(|(_, ty)| ty.to_token_stream()));
    // The probes' trait is imported once for the controller (`probe_traits`).
    quote! {
        #index => {
            #((&&&#private::Probe::<#types>::new()).declare(__needs);)*
        }
    }
}

/// The controller's one function that declares what each of its routes needs (`arms`).
pub(crate) fn needs_fn<'a>(arms: impl Iterator<Item = &'a TokenStream>) -> TokenStream {
    let private = private();
    quote! {
        #[allow(clippy::needless_borrow)]
        fn __cors_route_needs(__route: usize, __needs: &mut #private::Needs) {
            match __route {
                #(#arms)*
                _ => {}
            }
        }
    }
}

/// The traits whose methods the probes of a controller's routes call, imported once in the
/// block of its generated items rather than in each function.
pub(crate) fn probe_traits() -> TokenStream {
    let private = private();
    let describe = crate::openapi::probe_traits();
    quote! {
        #[allow(unused_imports)]
        use #private::Declare as _;
        #describe
    }
}

/// The typed arguments of a handler (after any receiver), named `__argN`, with `Self` replaced.
fn arguments(item: &ImplItemFn, self_ty: &Type) -> Vec<(Ident, TokenList)> {
    item.sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            FnArg::Typed(pat) => Some(&pat.ty),
            FnArg::Receiver(_) => None,
        })
        .enumerate()
        .map(|(i, ty)| {
            let ty = replace_self(ty.to_token_stream(), self_ty);
            (format_ident!("__arg{}", i), ty)
        })
        .collect()
}

/// What a bound of a route's function checks, and where its type is.
enum Bound {
    /// A `State<T>` argument.
    State(Span),
    /// Another argument, or the result.
    Other(Span),
}

/// The checks of a handler's arguments and return type, each spanned at the type at fault,
/// with a message that says what to do.
struct Checks {
    /// Calls of checking functions, in the body of the route's function.
    body: TokenStream,
    /// For a controller of one state: the checks as bounds of the function that adds the
    /// handler (`where` and its predicates, or the predicates alone for a method, whose
    /// `__router` has a `where` of its own). Written `for<'a>` so that a bound that does not
    /// hold is reported where the function is named, not where it is written; while its body is
    /// checked it holds, so that axum's `Handler` bound adds no error of its own.
    bounds: TokenStream,
    /// Where the function is named, when it has one bound: that bound's type.
    span: Option<Span>,
}

fn checks(
    arguments: &[(Ident, TokenList)],
    output: &ReturnType,
    self_ty: &Type,
    params: &StateParams,
    receiver: bool,
) -> Checks {
    let mut body = TokenStream::new();
    let mut bounds = Vec::new();
    argument_checks(arguments, params, &mut body, &mut bounds);
    output_check(output, self_ty, receiver, &mut body, &mut bounds);
    // With one bound, an error is at its type; with more, at the one `State<T>` argument
    // (the bound of a controller of one state that most often fails), or at the handler's name.
    let states: Vec<Span> = bounds
        .iter()
        .filter_map(|(bound, _)| match bound {
            Bound::State(span) => Some(*span),
            Bound::Other(_) => None,
        })
        .collect();
    let span = match (&bounds[..], &states[..]) {
        ([(Bound::State(span) | Bound::Other(span), _)], _) | (_, [span]) => Some(*span),
        _ => None,
    };
    let bounds: Vec<_> = bounds.into_iter().map(|(_, bound)| bound).collect();
    let bounds = match (bounds.is_empty(), receiver) {
        (true, _) => TokenStream::new(),
        (false, true) => quote!(#(#bounds,)*),
        (false, false) => quote!(where #(#bounds),*),
    };
    Checks { body, bounds, span }
}

/// The checks of a handler's arguments: calls in the body, or bounds of the route's function.
fn argument_checks(
    arguments: &[(Ident, TokenList)],
    params: &StateParams,
    body: &mut TokenStream,
    bounds: &mut Vec<(Bound, TokenStream)>,
) {
    let checks = checks_path();
    let state = &params.state;
    let Some(((_, last), before)) = arguments.split_last() else {
        return;
    };
    // A controller for every state has its own messages, which lead to `state = T` for an
    // extractor that needs one state; its checks stay calls, since a bound on `__S` would be
    // one more for every module to prove.
    if params.any_state {
        for (_, ty) in before {
            let span = ty.first_span();
            body.extend(quote_spanned!(span=> #checks::any_state_parts_argument::<#state, #ty>();));
        }
        let span = last.first_span();
        body.extend(quote_spanned!(span=> #checks::any_state_last_argument::<#state, _, #last>();));
        return;
    }
    for (_, ty) in before {
        let span = ty.first_span();
        bounds.push(match crate::state::state_of_tokens(&ty.to_stream()) {
            Some(part) => (
                Bound::State(span),
                quote_spanned!(span=> for<'__a> #part: ::cors_axum::app::checks::StatePart<#state>),
            ),
            None => (
                Bound::Other(span),
                quote_spanned!(span=> for<'__a> #ty: ::cors_axum::app::checks::PartsArgument<#state>),
            ),
        });
    }
    let span = last.first_span();
    match crate::state::state_of_tokens(&last.to_stream()) {
        Some(part) => bounds.push((
            Bound::State(span),
            quote_spanned!(span=> for<'__a> #part: ::cors_axum::app::checks::StatePart<#state>),
        )),
        // The last argument's bound names axum's "via" parameter, which a bound cannot.
        None => body.extend(quote_spanned!(span=> #checks::last_argument::<#state, _, #last>();)),
    }
}

/// The check of a handler's result type, when it can be named.
fn output_check(
    output: &ReturnType,
    self_ty: &Type,
    receiver: bool,
    body: &mut TokenStream,
    bounds: &mut Vec<(Bound, TokenStream)>,
) {
    let checks = checks_path();
    // An `impl Trait` return type cannot be named here; axum's own bound checks it.
    let Some(ty) = output_type(output) else {
        return;
    };
    let ty = replace_self(ty.to_token_stream(), self_ty);
    let span = ty.first_span();
    // A method's wrapper turns the result into a response in its own body. The bound names no
    // state, so a controller for every state takes it too.
    if receiver {
        body.extend(quote_spanned!(span=> #checks::handler_output::<#ty>();));
    } else {
        bounds.push((
            Bound::Other(span),
            quote_spanned!(span=> for<'__a> #ty: ::cors_axum::app::checks::HandlerOutput),
        ));
    }
}

/// Replaces `Self` in a handler's argument types, since the generated code is outside the impl
/// block. Built as a list, token by token, rather than as a stream of one-token streams.
fn replace_self(tokens: TokenStream, self_ty: &Type) -> TokenList {
    let mut replaced = Vec::new();
    for tt in tokens {
        match tt {
            TokenTree::Ident(ident) if ident == "Self" => {
                replaced.extend(respan(self_ty.to_token_stream(), ident.span()));
            }
            TokenTree::Group(group) => {
                let inner = replace_self(group.stream(), self_ty).to_stream();
                let mut group_replaced = proc_macro2::Group::new(group.delimiter(), inner);
                group_replaced.set_span(group.span());
                replaced.push(TokenTree::Group(group_replaced));
            }
            other => replaced.push(other),
        }
    }
    replaced.into_iter().collect()
}

/// `tokens` with every span set to `span`.
fn respan(tokens: impl IntoIterator<Item = TokenTree>, span: Span) -> TokenList {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(group) => {
                let inner = respan(group.stream(), span).to_stream();
                let mut respanned = proc_macro2::Group::new(group.delimiter(), inner);
                respanned.set_span(span);
                TokenTree::Group(respanned)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// A handler must be a non-generic `async fn`, with `&self`, `self` or no receiver.
fn check_signature(item: &ImplItemFn) -> syn::Result<()> {
    let sig = &item.sig;
    if sig.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            sig.fn_token,
            "route handlers must be `async fn`",
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "route handlers cannot be generic",
        ));
    }
    if let Some(FnArg::Receiver(receiver)) = sig.inputs.first() {
        if let ReceiverKind::Reference(_, _, Some(_)) = receiver.kind {
            return Err(syn::Error::new_spanned(
                receiver,
                "a controller is built per request and shared by nobody: use `&self`, not `&mut self`",
            ));
        }
        if let ReceiverKind::Typed(..) = receiver.kind {
            return Err(syn::Error::new_spanned(
                receiver,
                "route handlers take `&self`, `self` or no receiver",
            ));
        }
    }
    Ok(())
}
