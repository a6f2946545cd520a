//! Argument parsing shared by `#[controller(..)]` and `#[route(..)]`.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, LitStr, Token, bracketed};

mod kw {
    syn::custom_keyword!(path);
    syn::custom_keyword!(providers);
    syn::custom_keyword!(cors);
}

/// `providers = [..]` and `cors = ..`: the values a controller or route provides.
#[derive(Default)]
pub(crate) struct Provided {
    pub(crate) providers: Option<Punctuated<Expr, Token![,]>>,
    pub(crate) cors: Option<Expr>,
}

impl Provided {
    /// Parses `providers = [..]` or `cors = ..` if the input starts with one; errors on a key
    /// given twice.
    fn parse_key(&mut self, input: ParseStream<'_>) -> syn::Result<bool> {
        let lookahead = input.lookahead1();
        if lookahead.peek(kw::providers) {
            let key: kw::providers = input.parse()?;
            input.parse::<Token![=]>()?;
            let content;
            bracketed!(content in input);
            let list = Punctuated::parse_terminated(&content)?;
            if self.providers.replace(list).is_some() {
                return Err(syn::Error::new_spanned(
                    key,
                    "`providers` specified more than once",
                ));
            }
            Ok(true)
        } else if lookahead.peek(kw::cors) {
            let key: kw::cors = input.parse()?;
            input.parse::<Token![=]>()?;
            if self.cors.replace(input.parse()?).is_some() {
                return Err(syn::Error::new_spanned(
                    key,
                    "`cors` specified more than once",
                ));
            }
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// An expression of type `ProviderBuilder`, or `None` when nothing is provided.
    pub(crate) fn builder(&self) -> Option<TokenStream> {
        if self.providers.is_none() && self.cors.is_none() {
            return None;
        }
        let lists = self
            .providers
            .iter()
            .flatten()
            .map(|expr| quote::quote!(::cors_axum::__private::IntoProviders::into_providers(#expr)))
            .chain(
                self.cors
                    .iter()
                    .map(|cors| quote::quote!(::cors_axum::__private::cors_providers(#cors))),
            );
        Some(quote::quote!(::cors_axum::__private::providers_list([#(#lists),*])))
    }
}

/// `#[controller]`, `#[controller("prefix")]`, `#[controller(path = "prefix", cors = ..)]`.
#[derive(Default)]
pub(crate) struct ControllerArgs {
    pub(crate) path: Option<LitStr>,
    pub(crate) provided: Provided,
}

impl Parse for ControllerArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut args = ControllerArgs::default();
        if input.peek(LitStr) {
            args.path = Some(input.parse()?);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        while !input.is_empty() {
            if input.peek(kw::path) {
                let key: kw::path = input.parse()?;
                input.parse::<Token![=]>()?;
                if args.path.replace(input.parse()?).is_some() {
                    return Err(syn::Error::new_spanned(
                        key,
                        "`path` specified more than once",
                    ));
                }
            } else if !args.provided.parse_key(input)? {
                return Err(input.error(
                    "expected `\"prefix\"`, `path = \"prefix\"`, `providers = [..]` or `cors = ..`",
                ));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(args)
    }
}

/// `#[route("GET")]`, `#[route("POST", "items/{id}")]`, with optional `providers`/`cors`.
pub(crate) struct RouteArgs {
    pub(crate) method: LitStr,
    pub(crate) path: Option<LitStr>,
    pub(crate) provided: Provided,
}

impl Parse for RouteArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(input.error(
                "expected an HTTP method: `#[route(\"GET\")]` or `#[route(\"GET\", \"path\")]`",
            ));
        }
        let method: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the HTTP method as a string, such as `\"GET\"`",
            )
        })?;
        let mut args = RouteArgs {
            method,
            path: None,
            provided: Provided::default(),
        };
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
        if input.peek(LitStr) {
            args.path = Some(input.parse()?);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        while !input.is_empty() {
            if !args.provided.parse_key(input)? {
                return Err(
                    input.error("expected a path string, `providers = [..]` or `cors = ..`")
                );
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(args)
    }
}

/// The HTTP methods axum routes, which `#[route]` accepts.
pub(crate) const METHODS: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
];

/// Checks a method literal: upper case and one that axum routes.
pub(crate) fn check_method(method: &LitStr) -> syn::Result<String> {
    let value = method.value();
    if METHODS.contains(&value.as_str()) {
        return Ok(value);
    }
    let upper = value.to_ascii_uppercase();
    if METHODS.contains(&upper.as_str()) {
        return Err(syn::Error::new_spanned(
            method,
            format!("HTTP method must be uppercase: `\"{upper}\"`"),
        ));
    }
    Err(syn::Error::new_spanned(
        method,
        format!(
            "unknown HTTP method `{value}`; expected one of {}",
            METHODS.join(", ")
        ),
    ))
}

/// The item unchanged plus the error, so that IDEs keep working on the rest of the code.
pub(crate) fn with_error(item: impl ToTokens, error: syn::Error) -> TokenStream {
    let mut tokens = item.into_token_stream();
    tokens.extend(error.to_compile_error());
    tokens
}
