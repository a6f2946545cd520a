//! Argument parsing shared by `#[controller(..)]` and `#[route(..)]`, and the one funnel that
//! turns errors into tokens.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, LitBool, LitStr, Token, Type, bracketed};

/// `cors = ..` of a controller or route.
pub(crate) enum CorsArg {
    /// `cors = false` / `cors = true`.
    Switch(LitBool),
    /// `cors = CorsOptions::new()...`.
    Options(Expr),
}

/// What a controller or a route declares for itself: `providers = [..]`, `cors = ..`,
/// `guards = [..]`, `layers = [..]`, `openapi = false`.
#[derive(Default)]
pub(crate) struct LevelArgs {
    pub(crate) providers: Option<Punctuated<Expr, Token![,]>>,
    pub(crate) cors: Option<CorsArg>,
    pub(crate) guards: Option<Punctuated<Type, Token![,]>>,
    pub(crate) layers: Option<Punctuated<Expr, Token![,]>>,
    /// `openapi = false` leaves the routes out of OpenAPI documents; `openapi = true` lists them
    /// where the controller or module leaves them out.
    pub(crate) openapi: Option<LitBool>,
}

fn once<T>(slot: &mut Option<T>, value: T, key: &Ident) -> syn::Result<()> {
    if slot.replace(value).is_some() {
        return Err(syn::Error::new_spanned(
            key,
            format!("`{key}` specified more than once"),
        ));
    }
    Ok(())
}

/// `true` or `false`, the value of a switch written as `example`.
pub(crate) fn switch(input: ParseStream<'_>, example: &str) -> syn::Result<LitBool> {
    input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("expected `true` or `false`, as in `{example}`"),
        )
    })
}

fn list<T: Parse>(input: ParseStream<'_>) -> syn::Result<Punctuated<T, Token![,]>> {
    let content;
    bracketed!(content in input);
    Punctuated::parse_terminated(&content)
}

impl LevelArgs {
    /// Parses `key = value, ..` to the end of `input`: this level's keys, and the `extra`
    /// ones, whose values `other` parses; any other key is an error that says what is
    /// `expected`.
    fn parse_keys(
        &mut self,
        input: ParseStream<'_>,
        extra: &[&str],
        expected: &str,
        mut other: impl FnMut(&Ident, ParseStream<'_>) -> syn::Result<()>,
    ) -> syn::Result<()> {
        const KEYS: [&str; 5] = ["providers", "cors", "guards", "layers", "openapi"];
        while !input.is_empty() {
            let key = (input.fork().parse::<Ident>().ok())
                .filter(|key| KEYS.iter().chain(extra).any(|known| key == known))
                .ok_or_else(|| input.error(expected))?;
            input.parse::<Ident>()?;
            input.parse::<Token![=]>()?;
            match key.to_string().as_str() {
                "providers" => once(&mut self.providers, list(input)?, &key)?,
                "cors" => {
                    let value = match input.peek(LitBool) {
                        true => CorsArg::Switch(input.parse()?),
                        false => CorsArg::Options(input.parse()?),
                    };
                    once(&mut self.cors, value, &key)?;
                }
                "guards" => once(&mut self.guards, list(input)?, &key)?,
                "layers" => once(&mut self.layers, list(input)?, &key)?,
                "openapi" => once(&mut self.openapi, switch(input, "openapi = false")?, &key)?,
                _ => other(&key, input)?,
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(())
    }

    /// The function `name` that gives the providers, or `None` when nothing is provided.
    pub(crate) fn providers_fn(&self, name: &Ident) -> Option<TokenStream> {
        if self.providers.is_none() && self.cors.is_none() {
            return None;
        }
        let private = private();
        let lists = self
            .providers
            .iter()
            .flatten()
            .map(
                |expr| quote_spanned!(expr.span()=> #private::IntoProviders::into_providers(#expr)),
            )
            .chain(self.cors.iter().map(|cors| {
                let (span, options) = match cors {
                    CorsArg::Switch(on) => (
                        on.span(),
                        quote_spanned!(on.span()=> ::cors_axum::CorsOptions::new().enabled(#on)),
                    ),
                    CorsArg::Options(expr) => (expr.span(), quote!(#expr)),
                };
                quote_spanned! {span=>
                    ::cors_axum::ProviderBuilder::new().use_value::<::cors_axum::CorsOptions>(#options)
                }
            }));
        Some(quote! {
            fn #name() -> ::cors_axum::ProviderBuilder {
                #private::IntoProviders::into_providers([#(#lists),*])
            }
        })
    }

    /// The guards, each with its check and its declaration, for state `state`.
    pub(crate) fn guards(&self, state: &TokenList) -> Vec<TokenStream> {
        let private = private();
        self.guards
            .iter()
            .flatten()
            .map(|guard| quote_spanned!(guard.span()=> #private::guard::<#guard, #state, _>()))
            .collect()
    }

    /// `.layer(..)` calls for the layers, in order.
    pub(crate) fn layer_calls(&self) -> TokenStream {
        let layers = self.layers.iter().flatten();
        quote!(#(.layer(#layers))*)
    }
}

/// `#[controller]`, `#[controller("prefix")]`, `#[controller(path = "prefix", state = T, ..)]`.
#[derive(Default)]
pub(crate) struct ControllerArgs {
    pub(crate) path: Option<LitStr>,
    pub(crate) state: Option<Type>,
    pub(crate) level: LevelArgs,
}

impl Parse for ControllerArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut args = ControllerArgs {
            path: leading_str(input)?,
            ..ControllerArgs::default()
        };
        let (path, state) = (&mut args.path, &mut args.state);
        args.level.parse_keys(
            input,
            &["path", "state"],
            "expected `\"prefix\"`, `path = \"prefix\"`, `state = T`, `providers = [..]`, \
             `cors = ..`, `guards = [..]`, `layers = [..]` or `openapi = false`",
            |key, input| match key == "path" {
                true => once(path, input.parse()?, key),
                false => once(state, input.parse()?, key),
            },
        )?;
        Ok(args)
    }
}

/// A string literal at the start of `input`, and the comma after it unless it ends `input`.
fn leading_str(input: ParseStream<'_>) -> syn::Result<Option<LitStr>> {
    if !input.peek(LitStr) {
        return Ok(None);
    }
    let lit = input.parse()?;
    if !input.is_empty() {
        input.parse::<Token![,]>()?;
    }
    Ok(Some(lit))
}

/// `#[route("GET")]`, `#[route("POST", "items/{id}")]`, with optional level arguments.
pub(crate) struct RouteArgs {
    pub(crate) method: LitStr,
    pub(crate) path: Option<LitStr>,
    pub(crate) level: LevelArgs,
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
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
        let mut args = RouteArgs {
            method,
            path: leading_str(input)?,
            level: LevelArgs::default(),
        };
        args.level.parse_keys(
            input,
            &[],
            "expected a path string, `providers = [..]`, `cors = ..`, `guards = [..]`, \
             `layers = [..]` or `openapi = false`",
            |_, _| Ok(()),
        )?;
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

/// The hidden items the generated code uses, by the short name that [`private_use`] brings into
/// scope. A controller's expansion names them about twenty times per route: written in full,
/// that would be most of the tokens the macro hands the compiler. An identifier rather than a
/// token stream, so that naming it appends one token instead of joining two streams across the
/// compiler's proc-macro bridge.
pub(crate) fn private() -> proc_macro2::Ident {
    proc_macro2::Ident::new("__cors", proc_macro2::Span::call_site())
}

/// `cors_axum::app::checks`, the public traits and functions that check a handler, a
/// controller and a module, by the short name that [`private_use`] brings into scope.
pub(crate) fn checks_path() -> proc_macro2::Ident {
    proc_macro2::Ident::new("__checks", proc_macro2::Span::call_site())
}

/// Brings [`private`]'s and [`checks_path`]'s names into scope, and the three axum names that a
/// route's code names several times (`__Router`, `__Filter`, `__Method`): the first item of the
/// anonymous `const` block that every expansion naming them is put in, one `use` for all.
pub(crate) fn private_use() -> TokenStream {
    quote!(
        #[allow(unused_imports)]
        use ::cors_axum::{
            __private::{
                self as __cors,
                axum::http::Method as __Method,
                axum::routing::{MethodFilter as __Filter, MethodRouter as __Router},
            },
            app::checks as __checks,
        };
    )
}

/// Tokens kept as a list. Interpolated (`#list`), they are appended one by one to the output,
/// where a `TokenStream` is joined to it by a call across the compiler's proc-macro bridge,
/// which costs more than the few tokens of a type or a name. For the short fragments that a
/// controller's expansion names several times per route: its state, its argument types.
#[derive(Clone, Default)]
pub(crate) struct TokenList(Vec<TokenTree>);

impl TokenList {
    /// The span of the first token, where a check of the fragment reports.
    pub(crate) fn first_span(&self) -> Span {
        self.0.first().map_or_else(Span::call_site, TokenTree::span)
    }

    /// The tokens, as a stream (for parsing).
    pub(crate) fn to_stream(&self) -> TokenStream {
        self.0.iter().cloned().collect()
    }
}

impl From<TokenStream> for TokenList {
    fn from(tokens: TokenStream) -> Self {
        Self(tokens.into_iter().collect())
    }
}

impl FromIterator<TokenTree> for TokenList {
    fn from_iter<I: IntoIterator<Item = TokenTree>>(trees: I) -> Self {
        Self(trees.into_iter().collect())
    }
}

impl<'a> IntoIterator for &'a TokenList {
    type Item = TokenTree;
    type IntoIter = std::iter::Cloned<std::slice::Iter<'a, TokenTree>>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().cloned()
    }
}

impl ToTokens for TokenList {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(self.0.iter().cloned());
    }
}

/// The generics and the state type of generated impls: generic over the state when `state` is
/// not given, for that state otherwise.
pub(crate) struct StateParams {
    /// `<__S: AnyState>` (`Clone + Send + Sync + 'static`) or nothing.
    pub(crate) generics: TokenList,
    /// `__S` or the state type.
    pub(crate) state: TokenList,
    /// `::<__S>` or nothing, to name a generated generic function.
    pub(crate) turbofish: TokenList,
    /// Whether the impls are for every state (`__S`).
    pub(crate) any_state: bool,
}

impl StateParams {
    pub(crate) fn new(state: Option<&Type>) -> Self {
        match state {
            Some(state) => StateParams {
                generics: TokenList::default(),
                state: quote!(#state).into(),
                turbofish: TokenList::default(),
                any_state: false,
            },
            None => StateParams {
                generics: quote!(<__S: __cors::AnyState>).into(),
                state: quote!(__S).into(),
                turbofish: quote!(::<__S>).into(),
                any_state: true,
            },
        }
    }
}

/// The item unchanged plus the error, so that IDEs keep working on the rest of the code: the
/// one way every macro reports errors.
pub(crate) fn with_error(item: impl ToTokens, error: syn::Error) -> TokenStream {
    let mut tokens = item.into_token_stream();
    tokens.extend(error.to_compile_error());
    tokens
}

/// The path of `attr` as one string, its segments joined by `::` (`utoipa::path` for
/// `#[utoipa::path]` or `#[::utoipa::path]`), to match attributes exactly.
pub(crate) fn path_of(attr: &syn::Attribute) -> String {
    let segments = attr.path().segments.iter().map(|s| s.ident.to_string());
    segments.collect::<Vec<_>>().join("::")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_is_a_switch_given_once() {
        let route: RouteArgs = syn::parse_quote!("GET", "items", openapi = false);
        assert!(!route.level.openapi.unwrap().value);
        let controller: ControllerArgs = syn::parse_quote!("items", openapi = true);
        assert!(controller.level.openapi.unwrap().value);
        let error = |tokens: TokenStream| match syn::parse2::<RouteArgs>(tokens) {
            Ok(_) => panic!("accepted"),
            Err(error) => error.to_string(),
        };
        assert_eq!(
            error(quote!("GET", openapi = "hidden")),
            "expected `true` or `false`, as in `openapi = false`"
        );
        assert_eq!(
            error(quote!("GET", openapi = false, openapi = true)),
            "`openapi` specified more than once"
        );
    }
}
