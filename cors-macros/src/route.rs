//! `#[route(..)]`: one route of a controller, and the error when it stands alone.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
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
    pub(crate) attr_span: Span,
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
            attr_span: attr.span(),
            args,
        })
    }

    /// The function building this route's method router, named `name`.
    pub(crate) fn router_fn(&self, name: &Ident, self_ty: &Type, item: &ImplItemFn) -> TokenStream {
        let filter = format_ident!("{}", self.method);
        let handler = &self.handler;
        let private = quote!(::cors_axum::__private);
        let has_receiver = matches!(item.sig.inputs.first(), Some(FnArg::Receiver(_)));
        if !has_receiver {
            return quote! {
                fn #name() -> #private::axum::routing::MethodRouter {
                    #private::axum::routing::on(
                        #private::axum::routing::MethodFilter::#filter,
                        <#self_ty>::#handler,
                    )
                }
            };
        }
        // `&self` (or `self`) handler: the controller is extracted first, built per request.
        let by_ref =
            matches!(item.sig.inputs.first(), Some(FnArg::Receiver(r)) if r.reference.is_some());
        let this = if by_ref {
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
        let assert = quote_spanned! {self.attr_span=>
            const _: () = #private::assert_instance::<#self_ty>();
        };
        quote! {
            #assert
            fn #name() -> #private::axum::routing::MethodRouter {
                async fn __handler(__this: #self_ty, #(#params),*) -> #private::axum::response::Response {
                    #private::axum::response::IntoResponse::into_response(
                        <#self_ty>::#handler(#this, #(#names),*).await,
                    )
                }
                #private::axum::routing::on(#private::axum::routing::MethodFilter::#filter, __handler)
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
