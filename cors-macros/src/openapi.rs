//! What a route says in an OpenAPI document: its handler's doc comment, the details of its
//! `#[utoipa::path(..)]`, the traits of the probes of its types; `Route::docs` writes the
//! function that probes its argument and result types.
//!
//! Written only with this crate's `openapi` feature, which `cors-axum`'s own `openapi` feature
//! enables (cargo unifies the features of the one build of this crate, so the macro sees it
//! whenever some `cors-axum` of the build has it). Without it, a route has no documentation
//! (`RouteDef::new` leaves it empty): no probe, no function, nothing for the compiler to check
//! and throw away in every application.

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{Attribute, Expr, ExprLit, ImplItemFn, Lit, Meta, ReturnType, Type};

use crate::attr::{self, private};

/// The path of `#[utoipa::path(..)]`.
pub(crate) const UTOIPA_PATH: &str = "utoipa::path";

/// Whether `attr` is `#[utoipa::path(..)]`, matched exactly.
pub(crate) fn is_utoipa_path(attr: &Attribute) -> bool {
    attr::path_of(attr) == UTOIPA_PATH
}

/// The keys of `#[utoipa::path(..)]` that `#[route]` or the module system gives.
const GIVEN: [(&str, &str); 4] = [
    (
        "path",
        "the path is `#[route]`'s, under its controller's and modules' prefixes",
    ),
    ("method", "the method is `#[route]`'s"),
    (
        "context_path",
        "the prefix is the controller's and its modules'",
    ),
    ("impl_for", "the operation belongs to the route"),
];

/// The methods `#[utoipa::path(..)]` takes as a bare word.
const METHODS: [&str; 9] = [
    "get", "post", "put", "delete", "patch", "head", "options", "trace", "connect",
];

/// Removes the `#[utoipa::path(..)]` of `method` and returns its arguments, checked: none of
/// what `#[route]` gives.
pub(crate) fn take_details(method: &mut ImplItemFn) -> syn::Result<Option<TokenStream>> {
    let (found, others): (Vec<_>, Vec<_>) = method.attrs.drain(..).partition(is_utoipa_path);
    method.attrs = others;
    let mut found = found.into_iter();
    let Some(attr) = found.next() else {
        return Ok(None);
    };
    if let Some(second) = found.next() {
        return Err(syn::Error::new_spanned(
            second,
            "`#[utoipa::path]` specified more than once",
        ));
    }
    let tokens = match &attr.meta {
        Meta::List(list) => list.tokens.clone(),
        _ => TokenStream::new(),
    };
    check_details(&tokens)?;
    Ok(Some(tokens))
}

/// An error at the first entry of `#[utoipa::path(..)]` that `#[route]` gives.
fn check_details(tokens: &TokenStream) -> syn::Result<()> {
    let mut entry_start = true;
    let mut trees = tokens.clone().into_iter().peekable();
    while let Some(tree) = trees.next() {
        let start = std::mem::replace(&mut entry_start, false);
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ',' => entry_start = true,
            TokenTree::Ident(ident) if start => {
                let name = ident.to_string();
                let bare = matches!(trees.peek(), None | Some(TokenTree::Punct(_)))
                    && !matches!(trees.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '=');
                if bare && METHODS.contains(&name.as_str()) {
                    return Err(syn::Error::new_spanned(
                        ident,
                        format!(
                            "`{name}` is given by `#[route]`: write only the details here, as in \
                             `#[utoipa::path(responses(..))]`"
                        ),
                    ));
                }
                if let Some((_, why)) = GIVEN.iter().find(|(key, _)| *key == name) {
                    return Err(syn::Error::new_spanned(
                        ident,
                        format!("`{name}` cannot be given here: {why}; remove it"),
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The summary and description of a doc comment: its first paragraph, and the rest.
pub(crate) fn doc_comment(attrs: &[Attribute]) -> (String, String) {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) = &nv.value
        {
            // `split`, not `lines`: an empty `///` is a blank line that ends a paragraph.
            let text = text.value();
            lines.extend(
                text.split('\n')
                    .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_owned()),
            );
        }
    }
    let mut paragraphs = lines
        .split(|line| line.trim().is_empty())
        .filter(|paragraph| !paragraph.is_empty());
    let summary = paragraphs
        .next()
        .map(|p| p.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let description = paragraphs
        .map(|p| p.join("\n"))
        .collect::<Vec<_>>()
        .join("\n\n");
    (summary, description)
}

/// The traits whose methods the describing probes call (`Route::docs`), imported once
/// for a controller; nothing without the `openapi` feature, which writes no probe.
pub(crate) fn probe_traits() -> TokenStream {
    if !cfg!(feature = "openapi") {
        return TokenStream::new();
    }
    let private = private();
    quote! {
        #[allow(unused_imports)]
        use #private::{DescribeArgument as _, DescribeOutput as _};
    }
}

/// Whether a type's `tokens` name an `impl Trait`, which cannot be named outside its function.
pub(crate) fn names_impl_trait(tokens: impl IntoIterator<Item = TokenTree>) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(ident) => ident == "impl",
        TokenTree::Group(group) => names_impl_trait(group.stream()),
        _ => false,
    })
}

/// The result type of a handler as the probes take it; `None` where it cannot be named.
pub(crate) fn output_type(output: &ReturnType) -> Option<&Type> {
    match output {
        ReturnType::Type(_, ty) if !names_impl_trait(ty.to_token_stream()) => Some(ty),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impl_trait_is_found_at_any_depth_and_only_as_the_keyword() {
        let named = |tokens: TokenStream| names_impl_trait(tokens);
        assert!(named(quote!(impl IntoResponse)));
        assert!(named(quote!(
            Result<Json<impl Serialize>, (StatusCode, String)>
        )));
        assert!(!named(quote!(Simpl<Json<Item>>)));
        assert!(!named(quote!(Json<Vec<Impl>>)));
    }

    #[test]
    fn the_doc_comment_gives_a_one_line_summary_and_the_rest_as_description() {
        let method: ImplItemFn = syn::parse_quote! {
            /// Lists the users,
            /// newest first.
            ///
            /// Pages of 50.
            ///
            /// Needs a token.
            async fn list() {}
        };
        let (summary, description) = doc_comment(&method.attrs);
        assert_eq!(summary, "Lists the users, newest first.");
        assert_eq!(description, "Pages of 50.\n\nNeeds a token.");
        let bare: ImplItemFn = syn::parse_quote!(
            async fn list() {}
        );
        assert_eq!(doc_comment(&bare.attrs), (String::new(), String::new()));
    }

    #[test]
    fn details_that_route_gives_are_refused_at_their_key() {
        let refused = |tokens: TokenStream| check_details(&tokens).unwrap_err().to_string();
        assert!(
            refused(quote!(get, responses((status = 200))))
                .contains("`get` is given by `#[route]`")
        );
        assert!(refused(quote!(responses((status = 200)), path = "/x")).contains("`path` cannot"));
        assert!(refused(quote!(method(get, head))).contains("`method` cannot"));
        assert!(
            check_details(&quote!(
                responses((status = 200, description = "ok")),
                tag = "t"
            ))
            .is_ok()
        );
        // A parameter named like a method is not the method.
        assert!(check_details(&quote!(params(("get" = String, Query)))).is_ok());
    }
}
