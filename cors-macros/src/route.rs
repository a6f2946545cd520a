//! `#[route(..)]`: one route of a controller, and the error when it stands alone.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{Attribute, FnArg, ImplItemFn, Receiver, ReceiverKind, ReturnType, Type};

use crate::attr::{self, LevelArgs, RouteArgs, StateParams, TokenList, checks_path, private};
use crate::openapi::{doc_comment, names_impl_trait, output_type};

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
pub(crate) const ROUTE_PATHS: [&str; 2] = ["route", "cors_axum::route"];

/// Whether `attr` is `#[route(..)]` or `#[cors_axum::route(..)]`, matched exactly.
pub(crate) fn is_route_attr(attr: &Attribute) -> bool {
    ROUTE_PATHS.contains(&&*attr::path_of(attr))
}

/// A route found in a controller, checked.
pub(crate) struct Route {
    pub(crate) method: String,
    pub(crate) path: String,
    /// The handler, its `#[route]`s and `#[utoipa::path]` taken off.
    pub(crate) item: ImplItemFn,
    args: RouteArgs,
    /// The arguments of the method's `#[utoipa::path(..)]`.
    details: Option<TokenStream>,
}

/// What `#[controller]` writes for one route: its functions (the one that adds it to its
/// path's method router, and those of its providers and description where it has them), its
/// `RouteDef`, and its arm of the controller's `__cors_route_needs`.
pub(crate) type RouteItems = (TokenStream, TokenStream, TokenStream);

impl Route {
    /// Reads one `#[route(..)]` of `item` with the controller's path `prefix`.
    pub(crate) fn parse(
        attr: &Attribute,
        item: &ImplItemFn,
        prefix: &str,
        details: Option<TokenStream>,
    ) -> syn::Result<Self> {
        let args: RouteArgs = attr.parse_args()?;
        let method = attr::check_method(&args.method)?;
        let path = match &args.path {
            Some(lit) => crate::path::check(&lit.value(), lit.span())?,
            None => "/".to_owned(),
        };
        check_signature(item)?;
        Ok(Self {
            method,
            path: crate::path::join(prefix, &path),
            item: item.clone(),
            args,
            details,
        })
    }

    /// The items of route `index` of the controller `self_ty`, of state `params`, whose own
    /// arguments are `level`.
    pub(crate) fn expand(
        &self,
        index: usize,
        self_ty: &Type,
        params: &StateParams,
        level: &LevelArgs,
    ) -> RouteItems {
        let private = private();
        let StateParams {
            state, turbofish, ..
        } = params;
        let arguments = arguments(&self.item, self_ty);
        let router_name = format_ident!("__cors_route_{}", index);
        let (router_fn, span, layered) =
            self.router_fn(&router_name, &arguments, self_ty, params, level);
        let receiver = matches!(self.item.sig.inputs.first(), Some(FnArg::Receiver(_)));
        let needs = needs_arm(index, receiver, &arguments, self_ty);
        // Asked first: without the feature, nothing of the route's types is needed.
        let (doc_fn, doc) = match cfg!(feature = "openapi") {
            false => (TokenStream::new(), TokenStream::new()),
            true => self.docs(index, &arguments, self_ty, level),
        };
        let providers_name = format_ident!("__cors_route_providers_{}", index);
        let providers_fn = self.args.level.providers_fn(&providers_name);
        let providers_ref = providers_fn
            .is_some()
            .then(|| quote!(.providers(#providers_name)));

        // In a `const` block of its own: the controller's routes are one for a state that may
        // be generic, where a reference to a call is not promoted.
        let guards: Vec<TokenStream> = (level.guards(state).into_iter())
            .chain(self.args.level.guards(state))
            .collect();
        let guards = (!guards.is_empty()).then(|| quote!(.guards(const { &[#(#guards),*] })));
        let method = format_ident!("{}", self.method);
        let path = &self.path;
        let handler_name = self.item.sig.ident.to_string();
        let layered = layered.then(|| quote!(.layered()));
        let router_ref = {
            let name = Ident::new(&router_name.to_string(), span);
            let turbofish = respan(turbofish, span);
            quote_spanned!(span=> #name #turbofish)
        };
        let def = quote! {
            #private::RouteDef::new(
                __Method::#method,
                #path,
                #handler_name,
                #router_ref,
                __cors_route_needs,
                #index,
            ) #guards #layered #providers_ref #doc
        };
        (quote!(#router_fn #providers_fn #doc_fn), def, needs)
    }

    /// The function `name` that adds the route to its path's method router, with the checks
    /// of its arguments and result; where a bound of the function fails (at its type when it
    /// has one, otherwise at the handler's name), and whether the route or its controller has
    /// layers of its own.
    fn router_fn(
        &self,
        name: &Ident,
        arguments: &[(Ident, TokenList)],
        self_ty: &Type,
        params: &StateParams,
        level: &LevelArgs,
    ) -> (TokenStream, Span, bool) {
        let private = private();
        let StateParams {
            generics, state, ..
        } = params;
        let handler = &self.item.sig.ident;
        let receiver = match self.item.sig.inputs.first() {
            Some(FnArg::Receiver(receiver)) => Some(receiver),
            _ => None,
        };
        let (body, bounds, span) = checks(
            arguments,
            &self.item.sig.output,
            self_ty,
            params,
            receiver.is_some(),
        );
        // Layers wrap the route innermost first; CORS must then wrap them, so the builder puts
        // it around the route rather than in its handler.
        let layers = [self.args.level.layer_calls(), level.layer_calls()];
        let layered = layers.iter().any(|layers| !layers.is_empty());
        let filter = format_ident!("{}", self.method);
        let add = |route: TokenStream| match layered {
            true => quote! {
                __into.merge(#private::route(__Filter::#filter, #route, __setup) #(#layers)*)
            },
            false => quote!(#private::route_into(__into, __Filter::#filter, #route, __setup)),
        };
        // A method's bounds go on the function that adds its wrapper (`__router`); a function's
        // on this one, where they hold while its body is checked, and are checked where it is
        // named, in the `RouteDef`, so that a wrong argument is one error rather than one more
        // from axum's `Handler` bound.
        let (router, own_bounds) = match receiver {
            // Spanned at the handler's name, so that an error of the handler as a whole points
            // at it rather than at `#[controller]`.
            None => (
                add(quote_spanned!(handler.span()=> <#self_ty>::#handler)),
                bounds,
            ),
            Some(receiver) => (
                self.wrapper(receiver, arguments, self_ty, params, bounds, add),
                TokenStream::new(),
            ),
        };
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

        (tokens, span.unwrap_or_else(|| handler.span()), layered)
    }

    /// What the route says in an OpenAPI document (feature `openapi`): its `Describe`
    /// function, and the call that gives its `RouteDef` its `RouteDoc`.
    fn docs(
        &self,
        index: usize,
        arguments: &[(Ident, TokenList)],
        self_ty: &Type,
        controller: &LevelArgs,
    ) -> (TokenStream, TokenStream) {
        let private = private();
        let name = format_ident!("__cors_doc_{}", index);
        // An `impl Trait` argument cannot be named outside its function.
        let arguments = (arguments.iter().map(|(_, ty)| ty)).filter(|ty| !names_impl_trait(*ty));
        let output = output_type(&self.item.sig.output)
            .map(|ty| replace_self(ty.to_token_stream(), self_ty))
            .into_iter();
        // `#[utoipa::path(..)]` run with the route's method and path.
        let details = self.details.as_ref().map(|details| {
            let function = format_ident!("__cors_openapi_{}", index);
            let path_struct = format_ident!("__path___cors_openapi_{}", index);
            let method = Ident::new(&self.method.to_ascii_lowercase(), Span::call_site());
            let path = &self.path;
            quote! {
                #private::route_operation!(__draft, #function, #path_struct, #method, #path, (#details));
            }
        });
        // The probes' traits are imported once for the controller (`#[controller]`'s `const` block).
        let function = quote! {
            #[allow(clippy::needless_borrow)]
            fn #name(__draft: &mut #private::OperationDraft) {
                #((&&&&&#private::Probe::<#arguments>::new()).describe_argument(__draft);)*
                #((&&&#private::Probe::<#output>::new()).describe_output(__draft);)*
                #details
            }
        };
        let (summary, description) = doc_comment(&self.item.attrs);
        let attrs = &self.item.attrs;
        let deprecated = attrs.iter().any(|a| a.path().is_ident("deprecated"));
        // The route's own switch, else its controller's.
        let listed = (self.args.level.openapi.as_ref()).or(controller.openapi.as_ref());
        let listed = listed.map(|listed| quote!(.listed(#listed)));
        (
            function,
            quote!(.doc(#summary, #description, #deprecated, #name) #listed),
        )
    }

    /// The expression that builds a `&self` or `self` method's router: a wrapper that builds
    /// the controller from the request, then calls the method; `add` adds the wrapper to the
    /// path's router.
    fn wrapper(
        &self,
        receiver: &Receiver,
        arguments: &[(Ident, TokenList)],
        self_ty: &Type,
        params: &StateParams,
        bounds: TokenStream,
        add: impl Fn(TokenStream) -> TokenStream,
    ) -> TokenStream {
        let private = private();
        let checks = checks_path();
        let handler = &self.item.sig.ident;
        let added = add(quote!(__wrapper::<__C>));
        let this = match receiver.kind {
            ReceiverKind::Reference(..) => quote!(&__this),
            _ => quote!(__this),
        };
        let names = arguments.iter().map(|(name, _)| name);
        let args = arguments.iter().map(|(name, ty)| quote!(#name: #ty));
        let state = &params.state;
        // A controller for every state is built under any state, which a struct whose fields
        // take `State<T>` is not: its own message says so.
        let (generics, state_arg, instance) = match params.any_state {
            true => (
                quote!(<__S: #private::AnyState, __C>),
                quote!(__S,),
                quote!(AnyStateInstance),
            ),
            false => (
                quote!(<__C>),
                TokenStream::new(),
                quote!(ControllerInstance),
            ),
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

/// The arm of the controller's `__cors_route_needs` for route `index`: what the route needs
/// from its module, the needs of each argument and, for a method (`receiver`), of the
/// controller's fields. One function for the controller's routes, rather than one per route.
fn needs_arm(
    index: usize,
    receiver: bool,
    arguments: &[(Ident, TokenList)],
    self_ty: &Type,
) -> TokenStream {
    let private = private();
    // A `&self` route's controller, probed like an argument: a struct controller declares the
    // needs of its fields.
    let controller = receiver.then(|| quote!(#self_ty));
    let types = controller
        .into_iter()
        .chain(arguments.iter().map(|(_, ty)| ty.to_token_stream()));
    // The probes' trait is imported once for the controller (`#[controller]`'s `const` block).
    quote! {
        #index => {
            #((&&&#private::Probe::<#types>::new()).declare(__needs);)*
        }
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

/// The checks of a handler's arguments and return type, each spanned at the type at fault,
/// with a message that says what to do:
/// - calls of checking functions, in the body of the route's function;
/// - for a controller of one state, the checks as bounds of the function that adds the handler
///   (`where` and its predicates, or the predicates alone for a method, whose `__router` has a
///   `where` of its own). Written `for<'a>` so that a bound that does not hold is reported
///   where the function is named, not where it is written; while its body is checked it
///   holds, so that axum's `Handler` bound adds no error of its own;
/// - where the function is named, when it has one bound: that bound's type.
fn checks(
    arguments: &[(Ident, TokenList)],
    output: &ReturnType,
    self_ty: &Type,
    params: &StateParams,
    receiver: bool,
) -> (TokenStream, TokenStream, Option<Span>) {
    let checks = checks_path();
    let state = &params.state;
    let mut body = TokenStream::new();
    // Each bound with its type's span and whether it is a `State<T>` argument's.
    let mut bounds: Vec<(Span, bool, TokenStream)> = Vec::new();
    for (i, (_, ty)) in arguments.iter().enumerate() {
        let span = ty.first_span();
        let last = i + 1 == arguments.len();
        // A controller for every state has its own messages, which lead to `state = T` for an
        // extractor that needs one state; its checks stay calls, since a bound on `__S` would be
        // one more for every module to prove.
        if params.any_state {
            body.extend(match last {
                false => quote_spanned!(span=> #checks::any_state_parts_argument::<#state, #ty>();),
                true => {
                    quote_spanned!(span=> #checks::any_state_last_argument::<#state, _, #ty>();)
                }
            });
        } else if let Some(part) = crate::state::state_of_tokens(&ty.to_stream()) {
            let bound =
                quote_spanned!(span=> for<'__a> #part: ::cors_axum::app::checks::StatePart<#state>);
            bounds.push((span, true, bound));
        } else if !last {
            let bound = quote_spanned!(span=> for<'__a> #ty: ::cors_axum::app::checks::PartsArgument<#state>);
            bounds.push((span, false, bound));
        } else {
            // The last argument's bound names axum's "via" parameter, which a bound cannot.
            body.extend(quote_spanned!(span=> #checks::last_argument::<#state, _, #ty>();));
        }
    }
    // An `impl Trait` return type cannot be named here; axum's own bound checks it.
    if let Some(ty) = output_type(output) {
        let ty = replace_self(ty.to_token_stream(), self_ty);
        let span = ty.first_span();
        // A method's wrapper turns the result into a response in its own body. The bound names
        // no state, so a controller for every state takes it too.
        if receiver {
            body.extend(quote_spanned!(span=> #checks::handler_output::<#ty>();));
        } else {
            let bound =
                quote_spanned!(span=> for<'__a> #ty: ::cors_axum::app::checks::HandlerOutput);
            bounds.push((span, false, bound));
        }
    }
    // With one bound, an error is at its type; with more, at the one `State<T>` argument
    // (the bound of a controller of one state that most often fails), or at the handler's name.
    let states: Vec<Span> = (bounds.iter().filter(|(_, state, _)| *state))
        .map(|(span, ..)| *span)
        .collect();
    let span = match (&bounds[..], &states[..]) {
        ([(span, ..)], _) | (_, [span]) => Some(*span),
        _ => None,
    };
    let predicates = bounds.iter().map(|(.., bound)| bound);
    let bounds = match (bounds.is_empty(), receiver) {
        (true, _) => TokenStream::new(),
        (false, true) => quote!(#(#predicates,)*),
        (false, false) => quote!(where #(#predicates),*),
    };
    (body, bounds, span)
}

/// Replaces `Self` in a handler's argument types, since the generated code is outside the impl
/// block. Built as a list, token by token, rather than as a stream of one-token streams.
fn replace_self(tokens: TokenStream, self_ty: &Type) -> TokenList {
    let mut replaced = Vec::new();
    for tt in tokens {
        match tt {
            TokenTree::Ident(ident) if ident == "Self" => {
                replaced.extend(&respan(self_ty.to_token_stream(), ident.span()));
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
