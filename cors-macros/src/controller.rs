//! `#[controller]`: on an `impl` block it registers the routes; on a struct it makes the
//! struct an extractor built from its fields.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Fields, ImplItem, Item, ItemImpl, ItemStruct};

use crate::attr::{self, ControllerArgs};
use crate::route::{Route, is_route_attr};

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let parsed = match syn::parse2::<Item>(item.clone()) {
        Ok(parsed) => parsed,
        Err(error) => return attr::with_error(item, error),
    };
    let result = match parsed {
        // On error the block is re-emitted without its `#[route]`s, which would otherwise each
        // report that they are outside a controller.
        Item::Impl(item_impl) => expand_impl(args, item_impl.clone()).map_err(|error| {
            let mut item_impl = item_impl;
            strip_route_attrs(&mut item_impl);
            attr::with_error(item_impl, error)
        }),
        Item::Struct(item_struct) => {
            expand_struct(&args, item_struct).map_err(|error| attr::with_error(item, error))
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
fn expand_struct(args: &TokenStream, item: ItemStruct) -> syn::Result<TokenStream> {
    if !args.is_empty() {
        return Err(syn::Error::new_spanned(
            args,
            "controller arguments go on the `#[controller(..)]` of the `impl` block",
        ));
    }
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "a controller cannot be generic",
        ));
    }
    let private = quote!(::cors_axum::__private);
    let name = &item.ident;
    let extract = |ty: &syn::Type| {
        quote! {
            <#ty as #private::axum::extract::FromRequestParts<__S>>::from_request_parts(__parts, __state)
                .await
                .map_err(#private::axum::response::IntoResponse::into_response)?
        }
    };
    let construct = match &item.fields {
        Fields::Named(fields) => {
            let inits = fields.named.iter().map(|f| {
                let ident = &f.ident;
                let value = extract(&f.ty);
                quote!(#ident: #value)
            });
            quote!(Self { #(#inits),* })
        }
        Fields::Unnamed(fields) => {
            let inits = fields.unnamed.iter().map(|f| extract(&f.ty));
            quote!(Self(#(#inits),*))
        }
        Fields::Unit => quote!(Self),
    };
    Ok(quote! {
        #item

        impl<__S: ::core::marker::Send + ::core::marker::Sync>
            #private::axum::extract::FromRequestParts<__S> for #name
        {
            type Rejection = #private::axum::response::Response;

            async fn from_request_parts(
                __parts: &mut #private::axum::http::request::Parts,
                __state: &__S,
            ) -> ::core::result::Result<Self, Self::Rejection> {
                ::core::result::Result::Ok(#construct)
            }
        }
    })
}

/// The routes of an `impl` block: strips `#[route]`, re-emits the block, registers each route.
fn expand_impl(args: TokenStream, mut item: ItemImpl) -> syn::Result<TokenStream> {
    let args: ControllerArgs = syn::parse2(args)?;
    if let Some((_, path, _)) = &item.trait_ {
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
    let prefix = match &args.path {
        Some(lit) => crate::path::check(&lit.value(), lit.span())?,
        None => "/".to_owned(),
    };
    let self_ty = item.self_ty.clone();
    let controller_name = quote!(#self_ty).to_string().replace(' ', "");

    let mut routes: Vec<(Route, syn::ImplItemFn)> = Vec::new();
    let mut errors: Option<syn::Error> = None;
    let mut push_error = |error: syn::Error| match &mut errors {
        Some(all) => all.combine(error),
        None => errors = Some(error),
    };
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else {
            if let Some(attrs) = item_attrs_mut(impl_item) {
                for attr in attrs.iter().filter(|a| is_route_attr(a)) {
                    push_error(syn::Error::new_spanned(
                        attr,
                        "`#[route]` applies to methods (`async fn`) only",
                    ));
                }
                attrs.retain(|a| !is_route_attr(a));
            }
            continue;
        };
        let (route_attrs, others): (Vec<_>, Vec<_>) =
            method.attrs.drain(..).partition(is_route_attr);
        method.attrs = others;
        for route_attr in &route_attrs {
            match Route::parse(route_attr, method, &prefix) {
                Ok(route) => {
                    if let Some((first, _)) = routes
                        .iter()
                        .find(|(r, _)| r.method == route.method && r.path == route.path)
                    {
                        push_error(syn::Error::new_spanned(
                            route_attr,
                            format!(
                                "route `{} {}` is declared twice in this controller (first on `{}`)",
                                route.method, route.path, first.handler
                            ),
                        ));
                    } else {
                        routes.push((route, method.clone()));
                    }
                }
                Err(error) => push_error(error),
            }
        }
    }
    let private = quote!(::cors_axum::__private);
    // Emitted even when a route is wrong, so that a module listing the controller does not
    // also report that it is not one.
    let controller_impl = quote! {
        impl #private::Controller for #self_ty {
            const NAME: &'static str = #controller_name;
        }
    };
    if let Some(error) = errors {
        return Ok(attr::with_error(quote!(#item #controller_impl), error));
    }

    let controller_providers = args.provided.builder().map(|builder| {
        quote! {
            fn __cors_controller_providers() -> #private::ProviderBuilder { #builder }
        }
    });
    let controller_providers_ref = match &controller_providers {
        Some(_) => quote!(::core::option::Option::Some(__cors_controller_providers)),
        None => quote!(::core::option::Option::None),
    };

    let registrations = routes.iter().enumerate().map(|(i, (route, method_item))| {
        let router_name = format_ident!("__cors_route_{}", i);
        let router_fn = route.router_fn(&router_name, &self_ty, method_item);
        let providers_name = format_ident!("__cors_route_providers_{}", i);
        let (providers_fn, providers_ref) = match route.args.provided.builder() {
            Some(builder) => (
                quote!(fn #providers_name() -> #private::ProviderBuilder { #builder }),
                quote!(::core::option::Option::Some(#providers_name)),
            ),
            None => (quote!(), quote!(::core::option::Option::None)),
        };
        let method = &route.method;
        let path = &route.path;
        let handler = route.handler.to_string();
        quote! {
            #router_fn
            #providers_fn
            #private::inventory::submit! {
                #private::RouteRegistration {
                    controller: #private::type_id_of::<#self_ty>,
                    controller_name: #controller_name,
                    method: #method,
                    path: #path,
                    handler: #handler,
                    method_router: #router_name,
                    controller_providers: #controller_providers_ref,
                    route_providers: #providers_ref,
                }
            }
        }
    });

    Ok(quote! {
        #item

        #controller_impl

        const _: () = {
            #controller_providers
            #(#registrations)*
        };
    })
}

fn item_attrs_mut(item: &mut ImplItem) -> Option<&mut Vec<syn::Attribute>> {
    match item {
        ImplItem::Const(c) => Some(&mut c.attrs),
        ImplItem::Type(t) => Some(&mut t.attrs),
        ImplItem::Macro(m) => Some(&mut m.attrs),
        ImplItem::Fn(f) => Some(&mut f.attrs),
        _ => None,
    }
}

/// Removes every `#[route]` of the block's items.
fn strip_route_attrs(item: &mut ItemImpl) {
    for impl_item in &mut item.items {
        if let Some(attrs) = item_attrs_mut(impl_item) {
            attrs.retain(|a| !is_route_attr(a));
        }
    }
}
