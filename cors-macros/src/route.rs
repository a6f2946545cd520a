//! `#[route(..)]`: one route of a controller, and the error when it stands alone.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::{Attribute, FnArg, ImplItemFn, Type};

use crate::attr::{self, RouteArgs};

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

/// Whether `attr` is `#[route(..)]` (or `#[cors_axum::route(..)]`).
pub(crate) fn is_route_attr(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "route")
}

/// A route found in a controller, checked.
pub(crate) struct Route {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) handler: Ident,
    pub(crate) args: RouteArgs,
}

impl Route {
    /// Reads one `#[route(..)]` of `method_item` with the controller's path `prefix`.
    pub(crate) fn parse(
        attr: &Attribute,
        method_item: &ImplItemFn,
        prefix: &str,
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
        })
    }

    /// The function building this route's method router, named `name`.
    pub(crate) fn router_fn(&self, name: &Ident, self_ty: &Type, item: &ImplItemFn) -> TokenStream {
        let filter = format_ident!("{}", self.method);
        let handler = &self.handler;
        let private = quote!(::cors_axum::__private);
        let Some(FnArg::Receiver(receiver)) = item.sig.inputs.first() else {
            return quote! {
                fn #name() -> #private::axum::routing::MethodRouter {
                    #private::axum::routing::on(
                        #private::axum::routing::MethodFilter::#filter,
                        <#self_ty>::#handler,
                    )
                }
            };
        };
        // `&self` (or `self`) handler: the controller is extracted first, built per request.
        let this = if receiver.reference.is_some() {
            quote!(&__this)
        } else {
            quote!(__this)
        };
        let args: Vec<(Ident, TokenStream)> = item
            .sig
            .inputs
            .iter()
            .skip(1)
            .enumerate()
            .filter_map(|(i, arg)| match arg {
                FnArg::Typed(pat) => {
                    let ty = &pat.ty;
                    Some((
                        format_ident!("__arg{}", i),
                        replace_self(quote!(#ty), self_ty),
                    ))
                }
                FnArg::Receiver(_) => None,
            })
            .collect();
        let names = args.iter().map(|(n, _)| n);
        let params = args.iter().map(|(n, t)| quote!(#n: #t));
        // The router is built by a function generic over the controller, so that a controller
        // which is not built per request fails only the `ControllerInstance` bound, with its
        // message, rather than also as a handler that axum cannot call; the error points at the
        // `self` that needs it.
        let span = receiver.self_token.span;
        let controller = respan(quote!(#self_ty), span);
        let build = quote_spanned!(span=> __router::<#controller>());
        quote! {
            fn #name() -> #private::axum::routing::MethodRouter {
                async fn __handler<__C>(__this: __C, #(#params),*) -> #private::axum::response::Response
                where
                    __C: ::core::convert::Into<#self_ty>,
                {
                    let __this: #self_ty = ::core::convert::Into::into(__this);
                    #private::axum::response::IntoResponse::into_response(
                        <#self_ty>::#handler(#this, #(#names),*).await,
                    )
                }
                fn __router<__C>() -> #private::axum::routing::MethodRouter
                where
                    __C: #private::ControllerInstance
                        + ::core::convert::Into<#self_ty>
                        + ::core::marker::Send
                        + 'static,
                {
                    #private::axum::routing::on(
                        #private::axum::routing::MethodFilter::#filter,
                        __handler::<__C>,
                    )
                }
                #build
            }
        }
    }
}

/// Replaces `Self` in a handler's argument types, since the wrapper is outside the impl block.
fn replace_self(tokens: TokenStream, self_ty: &Type) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(ident) if ident == "Self" => quote!(#self_ty),
            TokenTree::Group(group) => {
                let mut replaced = proc_macro2::Group::new(
                    group.delimiter(),
                    replace_self(group.stream(), self_ty),
                );
                replaced.set_span(group.span());
                TokenTree::Group(replaced).into()
            }
            other => other.into(),
        })
        .collect()
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(group) => {
                let mut respanned =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
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
        if receiver.mutability.is_some() && receiver.reference.is_some() {
            return Err(syn::Error::new_spanned(
                receiver,
                "a controller is built per request and shared by nobody: use `&self`, not `&mut self`",
            ));
        }
        if receiver.colon_token.is_some() {
            return Err(syn::Error::new_spanned(
                receiver,
                "route handlers take `&self`, `self` or no receiver",
            ));
        }
    }
    Ok(())
}
