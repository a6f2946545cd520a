//! `#[controller]`: on an `impl` block it declares the routes; on a struct it makes the struct
//! an extractor built from its fields.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Fields, FnArg, ImplItem, Item, ItemImpl, ItemStruct, Type};

use crate::attr::{self, ControllerArgs, StateParams, checks_path, private};
use crate::openapi::{UTOIPA_PATH, take_details};
use crate::route::{ROUTE_PATHS, Route, RouteItems, is_route_attr};
use crate::state::InferredState;

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let parsed = match syn::parse2::<Item>(hollow(item.clone())) {
        Ok(parsed) => parsed,
        Err(error) => return attr::with_error(item, error),
    };
    let result = match parsed {
        // On error the block is re-emitted without its `#[route]`s, which would otherwise each
        // report that they are outside a controller.
        Item::Impl(mut item_impl) => {
            let written = without_read_attrs(item, true);
            expand_impl(args, &mut item_impl, &written)
                .map_err(|error| attr::with_error(without_read_attrs(written, false), error))
        }
        Item::Struct(item_struct) => {
            expand_struct(args, item_struct).map_err(|error| attr::with_error(item, error))
        }
        other => Err(attr::with_error(
            item,
            syn::Error::new_spanned(
                &other,
                "`#[controller]` goes on an `impl` block (or on the struct of a controller with injected fields)",
            ),
        )),
    };
    result.unwrap_or_else(|tokens| tokens)
}

/// A struct whose fields are extractors becomes an extractor: constructor injection.
fn expand_struct(args: TokenStream, item: ItemStruct) -> syn::Result<TokenStream> {
    let state = struct_state(args)?;
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "a controller cannot be generic",
        ));
    }
    let private = private();
    let checks = checks_path();
    let name = &item.ident;
    let types: Vec<&Type> = item.fields.iter().map(|f| &f.ty).collect();
    let inferred = match &state {
        Some(_) => None,
        None => InferredState::read(types.iter().copied(), "fields")?,
    };
    let (generics, state) = match state.as_ref().or(inferred.as_ref().map(|i| &i.ty)) {
        Some(state) => (TokenStream::new(), quote!(#state)),
        None => (
            quote!(<__S: ::core::marker::Send + ::core::marker::Sync>),
            quote!(__S),
        ),
    };
    let state_checks = inferred.as_ref().map(InferredState::checks);
    let values = types.iter().map(|ty| {
        quote_spanned! {ty.span()=>
            #checks::field::<#state, #ty>(__parts, __state).await?
        }
    });
    let construct = match &item.fields {
        Fields::Named(fields) => {
            let names = fields.named.iter().map(|f| &f.ident);
            quote!(Self { #(#names: #values),* })
        }
        Fields::Unnamed(_) => quote!(Self(#(#values),*)),
        Fields::Unit => quote!(Self),
    };
    let private_use = attr::private_use();
    Ok(quote! {
        #item

        const _: () = {
        #private_use

        impl #generics #private::axum::extract::FromRequestParts<#state> for #name {
            type Rejection = #private::axum::response::Response;

            async fn from_request_parts(
                __parts: &mut #private::axum::http::request::Parts,
                __state: &#state,
            ) -> ::core::result::Result<Self, Self::Rejection> {
                ::core::result::Result::Ok(#construct)
            }
        }

        impl #private::FieldNeeds for #name {
            #[allow(unused_imports, clippy::needless_borrow)]
            fn declare_fields(__needs: &mut #private::Needs) {
                use #private::Declare as _;
                #((&&&#private::Probe::<#types>::new()).declare(__needs);)*
            }
        }

        #state_checks
        };
    })
}

/// The arguments of `#[controller]` on a struct: nothing or `state = T`, which it returns.
fn struct_state(args: TokenStream) -> syn::Result<Option<Type>> {
    let args: ControllerArgs = syn::parse2(args)?;
    if args.path.is_some()
        || args.level.providers.is_some()
        || args.level.cors.is_some()
        || args.level.guards.is_some()
        || args.level.layers.is_some()
        || args.level.openapi.is_some()
    {
        let at = match (&args.path, &args.state) {
            (Some(path), _) => quote!(#path),
            (None, Some(state)) => quote!(#state),
            (None, None) => TokenStream::new(),
        };
        return Err(syn::Error::new_spanned(
            at,
            "on a struct, `#[controller]` takes only `state = T`; the other arguments go on the \
             `#[controller(..)]` of the `impl` block",
        ));
    }
    Ok(args.state)
}

/// `item` with the bodies of its block's items (and any other brace-delimited group at the top
/// of the block) emptied, for parsing: the macro reads attributes and signatures only, so a
/// body is not parsed. An item that is not an `impl` block is left whole.
fn hollow(item: TokenStream) -> TokenStream {
    map_block(item, |trees| {
        trees
            .into_iter()
            .map(|tree| match tree {
                TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                    let mut empty = Group::new(Delimiter::Brace, TokenStream::new());
                    empty.set_span(group.span());
                    TokenTree::Group(empty)
                }
                other => other,
            })
            .collect()
    })
}

/// The `impl` block `item` as it came, less the attributes that `#[controller]` reads: every
/// `#[route]`, and `#[utoipa::path]` on a method (on any item unless `methods_only`, as when
/// the block is written out beside an error). Filtered token by token rather than printed anew
/// from the parsed block, so that what the macro does not read goes through untouched.
fn without_read_attrs(item: TokenStream, methods_only: bool) -> TokenStream {
    map_block(item, |inner| {
        let mut kept = Vec::with_capacity(inner.len());
        let mut rest = &inner[..];
        while let Some(first) = rest.first() {
            let Some(path) = attr_path(rest) else {
                kept.push(first.clone());
                rest = &rest[1..];
                continue;
            };
            let read = ROUTE_PATHS.contains(&&*path)
                || (path == UTOIPA_PATH && (!methods_only || is_method(rest)));
            if !read {
                kept.extend_from_slice(&rest[..2]);
            }
            rest = &rest[2..];
        }
        kept
    })
}

/// The path of the outer attribute that `trees` starts with (`#` then `[..]`), as
/// [`attr::path_of`] gives it: `::cors_axum::route(..)` gives `cors_axum::route`.
fn attr_path(trees: &[TokenTree]) -> Option<String> {
    let [TokenTree::Punct(pound), TokenTree::Group(attr), ..] = trees else {
        return None;
    };
    if pound.as_char() != '#' || attr.delimiter() != Delimiter::Bracket {
        return None;
    }
    let mut names = Vec::new();
    for tree in attr.stream() {
        match tree {
            TokenTree::Ident(ident) => names.push(ident.to_string()),
            TokenTree::Punct(punct) if punct.as_char() == ':' => {}
            _ => break,
        }
    }
    Some(names.join("::"))
}

/// Whether the item that `trees` starts (at one of its attributes) is a method: `fn` comes
/// before its body or its `;`.
fn is_method(trees: &[TokenTree]) -> bool {
    trees
        .iter()
        .take_while(|tree| match tree {
            TokenTree::Group(group) => group.delimiter() != Delimiter::Brace,
            TokenTree::Punct(punct) => punct.as_char() != ';',
            _ => true,
        })
        .any(|tree| matches!(tree, TokenTree::Ident(ident) if ident == "fn"))
}

/// `item` with the token trees inside its block replaced by `f` of them, if `item` is an `impl`
/// block (its last token tree a brace group, with `impl` before it); otherwise `item` whole.
fn map_block(item: TokenStream, f: impl FnOnce(Vec<TokenTree>) -> Vec<TokenTree>) -> TokenStream {
    let mut trees: Vec<TokenTree> = item.into_iter().collect();
    let is_impl = trees
        .iter()
        .any(|tree| matches!(tree, TokenTree::Ident(ident) if ident == "impl"));
    let Some(TokenTree::Group(block)) = trees.last_mut() else {
        return trees.into_iter().collect();
    };
    if !is_impl || block.delimiter() != Delimiter::Brace {
        return trees.into_iter().collect();
    }
    let inner = f(block.stream().into_iter().collect());
    let mut mapped = Group::new(Delimiter::Brace, inner.into_iter().collect());
    mapped.set_span(block.span());
    *block = mapped;
    trees.into_iter().collect()
}

/// The routes of an `impl` block: strips `#[route]`, re-emits the block, declares the routes
/// and registers the controller.
fn expand_impl(
    args: TokenStream,
    item: &mut ItemImpl,
    written: &TokenStream,
) -> syn::Result<TokenStream> {
    let args: ControllerArgs = syn::parse2(args)?;
    check_block(item)?;
    let prefix = match &args.path {
        Some(lit) => crate::path::check(&lit.value(), lit.span())?,
        None => "/".to_owned(),
    };
    let self_ty = item.self_ty.clone();
    let controller_name = quote!(#self_ty).to_string().replace(' ', "");

    let (routes, mut errors) = take_routes(item, &prefix);
    let inferred = match &args.state {
        Some(_) => None,
        None => read_state(&routes).unwrap_or_else(|error| {
            combine(&mut errors, error);
            None
        }),
    };
    let params = StateParams::new(args.state.as_ref().or(inferred.as_ref().map(|i| &i.ty)));
    let state_checks = inferred.as_ref().map(InferredState::checks);
    let items: Vec<RouteItems> = match errors {
        Some(_) => Vec::new(),
        None => (routes.iter().enumerate())
            .map(|(i, route)| route.expand(i, &self_ty, &params, &args.level))
            .collect(),
    };
    let functions = items.iter().map(|(functions, ..)| functions);
    let needs = items.iter().map(|(.., needs)| needs);
    let defs = items.iter().map(|(_, def, _)| def);
    let providers_fn = args
        .level
        .providers_fn(&format_ident!("__cors_controller_providers"));
    let private = private();
    let providers_ref = match providers_fn {
        Some(_) => quote!(::core::option::Option::Some(__cors_controller_providers)),
        None => quote!(::core::option::Option::None),
    };
    let controller_ref = quote! {
        #private::ControllerRef::new::<Self>(#controller_name, const { &[#(#defs),*] }, #providers_ref)
    };
    let impls = controller_impls(&self_ty, &args, inferred.as_ref(), &controller_ref);
    let private_use = attr::private_use();
    let describe = crate::openapi::probe_traits();
    let registry_entry = registry_entry(&self_ty, &controller_name);
    // Emitted even when a route is wrong, so that a module listing the controller does not
    // also report that it is not one. The probes' traits are imported once, for every route;
    // what each route needs is one arm of one function.
    let declared = quote! {
        const _: () = {
            #private_use
            #[allow(unused_imports)]
            use #private::Declare as _;
            #describe
            #(#functions)*
            #[allow(clippy::needless_borrow)]
            fn __cors_route_needs(__route: usize, __needs: &mut #private::Needs) {
                match __route {
                    #(#needs)*
                    _ => {}
                }
            }
            #providers_fn
            #state_checks
            #impls
            #registry_entry
        };
    };
    match errors {
        Some(error) => Ok(attr::with_error(quote!(#written #declared), error)),
        None => Ok(quote!(#written #declared)),
    }
}

/// The controller's entry in the registry of controllers, by which the router build finds
/// those that no module lists.
fn registry_entry(self_ty: &Type, controller_name: &str) -> TokenStream {
    let private = private();
    quote! {
        #private::inventory::submit! {
            #private::ControllerEntry {
                name: #controller_name,
                type_id: ::core::any::TypeId::of::<#self_ty>,
                module_path: ::core::module_path!(),
            }
        }
    }
}

/// How modules list the controller, given `controller_ref`, the expression of its routes:
/// `Controller<S>` for a module of state `S`, `ListedInAnyState` for a module without state.
/// For a controller of one state `T` (`state = T`, else `inferred` from its handlers), each
/// holds under a bound spanned at the `State<T>` (or `state = T`) it comes from, whose message
/// names the states.
fn controller_impls(
    self_ty: &Type,
    args: &ControllerArgs,
    inferred: Option<&InferredState>,
    controller_ref: &TokenStream,
) -> TokenStream {
    let state = args.state.as_ref().or(inferred.map(|i| &i.ty));
    let span =
        (args.state.as_ref().map(Spanned::span)).or_else(|| inferred.map(InferredState::span));
    let private = private();
    let checks = checks_path();
    let any = quote!(#private::AnyState);
    let Some(state) = state else {
        return quote! {
            impl<__S: #any> ::cors_axum::app::Controller<__S> for #self_ty {
                fn controller_ref() -> #private::ControllerRef<__S> {
                    #controller_ref
                }
            }

            impl #checks::ListedInAnyState for #self_ty {
                fn controller_ref_any<__S: #any>() -> #private::ControllerRef<__S> {
                    <Self as ::cors_axum::app::Controller<__S>>::controller_ref()
                }
            }
        };
    };
    let span = span.unwrap_or_else(proc_macro2::Span::call_site);
    // The paths written out rather than `#checks`, whose tokens keep the macro's span: the
    // bound's "introduced here" then points at the `State<T>`.
    let module_state = quote_spanned!(span=> #state: ::cors_axum::app::checks::ModuleState<__S>);
    let needs_state = quote_spanned!(span=> for<'__a> #state: ::cors_axum::app::checks::NeedsState);
    quote! {
        impl<__S: 'static> ::cors_axum::app::Controller<__S> for #self_ty where #module_state {
            fn controller_ref() -> #private::ControllerRef<__S> {
                <#state as #checks::ModuleState<__S>>::cast(#controller_ref)
            }
        }

        impl #checks::ListedInAnyState for #self_ty where #needs_state {}
    }
}

/// An inherent, non-generic `impl` block, or the error that says what is wrong.
fn check_block(item: &ItemImpl) -> syn::Result<()> {
    if let Some((path, _)) = &item.trait_ {
        return Err(syn::Error::new_spanned(
            path,
            "`#[controller]` goes on an inherent `impl` block, not a trait implementation",
        ));
    }
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "a controller cannot be generic",
        ));
    }
    Ok(())
}

fn combine(errors: &mut Option<syn::Error>, error: syn::Error) {
    match errors {
        Some(all) => all.combine(error),
        None => *errors = Some(error),
    }
}

/// Strips the `#[route]`s of the block's items and reads them: the routes with their methods,
/// and the errors of those that are wrong.
fn take_routes(item: &mut ItemImpl, prefix: &str) -> (Vec<Route>, Option<syn::Error>) {
    let mut routes: Vec<Route> = Vec::new();
    let mut errors: Option<syn::Error> = None;
    let mut push_error = |error: syn::Error| combine(&mut errors, error);
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else {
            for attr in item_attrs(impl_item).iter().filter(|a| is_route_attr(a)) {
                push_error(syn::Error::new_spanned(
                    attr,
                    "`#[route]` applies to methods (`async fn`) only",
                ));
            }
            continue;
        };
        let details = take_details(method).unwrap_or_else(|error| {
            push_error(error);
            None
        });
        let (route_attrs, others): (Vec<_>, Vec<_>) =
            method.attrs.drain(..).partition(is_route_attr);
        method.attrs = others;
        if route_attrs.is_empty() && details.is_some() {
            push_error(syn::Error::new_spanned(
                &method.sig.ident,
                "`#[utoipa::path]` in a controller documents a route: add `#[route(\"METHOD\")]` to \
                 this method, or move it out of the `#[controller]` block",
            ));
        }
        for route_attr in &route_attrs {
            match Route::parse(route_attr, method, prefix, details.clone()) {
                Ok(route) => {
                    if let Some(first) = routes
                        .iter()
                        .find(|r| r.method == route.method && r.path == route.path)
                    {
                        push_error(syn::Error::new_spanned(
                            route_attr,
                            format!(
                                "route `{} {}` is declared twice in this controller (first on `{}`)",
                                route.method, route.path, first.item.sig.ident
                            ),
                        ));
                    } else {
                        routes.push(route);
                    }
                }
                Err(error) => push_error(error),
            }
        }
    }
    (routes, errors)
}

/// The state read from the `State<T>` arguments of the routes' handlers.
fn read_state(routes: &[Route]) -> syn::Result<Option<InferredState>> {
    let arguments = routes
        .iter()
        .flat_map(|route| &route.item.sig.inputs)
        .filter_map(|input| match input {
            FnArg::Typed(typed) => Some(&*typed.ty),
            FnArg::Receiver(_) => None,
        });
    InferredState::read(arguments, "handlers")
}

fn item_attrs(item: &ImplItem) -> &[syn::Attribute] {
    match item {
        ImplItem::Const(c) => &c.attrs,
        ImplItem::Type(t) => &t.attrs,
        ImplItem::Macro(m) => &m.attrs,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_parsed_without_its_bodies() {
        let item = quote! {
            impl Items {
                #[route("GET")]
                async fn list(n: Limit) -> Page<{ 10 }> { Page::of(n) }
                const MAX: usize = { 1 + 1 };
                fn plain(&self) {}
            }
        };
        let hollow = hollow(item);
        assert!(!hollow.to_string().contains("of"));
        assert!(!hollow.to_string().contains('1'));
        let parsed: ItemImpl = syn::parse2(hollow).expect("an impl block without its bodies");
        assert_eq!(parsed.items.len(), 3);
    }

    #[test]
    fn the_attributes_the_macro_reads_are_taken_out_and_nothing_else() {
        let item = quote! {
            impl Items {
                /// Lists.
                #[route("GET")]
                #[cors_axum::route("HEAD")]
                #[utoipa::path(tag = "items")]
                #[cfg(test)]
                async fn list(n: Limit) -> Page<{ 10 }> { Page::of(n) }
                #[utoipa::path(tag = "nope")]
                const MAX: usize = { 1 + 1 };
                #[other::route]
                #![inner]
                fn plain(&self) {}
            }
        };
        let written = without_read_attrs(item, true).to_string();
        let expected = quote! {
            impl Items {
                /// Lists.
                #[cfg(test)]
                async fn list(n: Limit) -> Page<{ 10 }> { Page::of(n) }
                #[utoipa::path(tag = "nope")]
                const MAX: usize = { 1 + 1 };
                #[other::route]
                #![inner]
                fn plain(&self) {}
            }
        };
        assert_eq!(written, expected.to_string());
        let beside_an_error = without_read_attrs(expected, false).to_string();
        assert!(!beside_an_error.contains("utoipa"), "{beside_an_error}");
        assert!(
            beside_an_error.contains("other :: route"),
            "{beside_an_error}"
        );
    }
    #[test]
    fn a_struct_is_left_whole() {
        let item = quote!(
            struct Items {
                db: Inject<Db>,
            }
        );
        assert_eq!(hollow(item.clone()).to_string(), item.to_string());
    }
}
