//! The state of a controller read from the `State<T>` its handlers (or fields) take, when
//! `#[controller]` does not say `state = T`.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type};

use crate::attr::checks_path;

/// A state type read from a `State<T>` argument or field.
pub(crate) struct InferredState {
    /// `T`.
    pub(crate) ty: Type,
    /// Every `State<T>` it was read from, to check that each is axum's.
    sources: Vec<Type>,
}

impl InferredState {
    /// Reads the state from `types`, the handlers' arguments or the struct's fields (`what`
    /// names them in errors). Two different `State<..>` are an error at the second, since the
    /// state the module gives cannot be both.
    pub(crate) fn read<'a>(
        types: impl IntoIterator<Item = &'a Type>,
        what: &str,
    ) -> syn::Result<Option<Self>> {
        let mut inferred: Option<Self> = None;
        for source in types {
            let Some(ty) = state_of(source) else { continue };
            match &mut inferred {
                None => {
                    inferred = Some(Self {
                        ty: ty.clone(),
                        sources: vec![source.clone()],
                    });
                }
                // Compared as written: `AppState` and `crate::AppState` differ, which the error
                // for two states then shows.
                Some(first) if type_text(&first.ty) == type_text(ty) => {
                    first.sources.push(source.clone())
                }
                Some(first) => {
                    let (first, second) = (type_text(&first.ty), type_text(ty));
                    return Err(syn::Error::new_spanned(
                        source,
                        format!(
                            "the {what} of this controller take both `State<{first}>` and \
                             `State<{second}>`, so its state cannot be read from them: write \
                             the state the module gives with `#[controller(state = ..)]` (and \
                             `state: ..` on the module); a handler extracts a part of it as \
                             `State<Part>` when `Part` implements `FromRef` for it"
                        ),
                    ));
                }
            }
        }
        Ok(inferred)
    }

    /// The span of the first `State<T>` the state was read from, where an error about the
    /// state points.
    pub(crate) fn span(&self) -> proc_macro2::Span {
        self.sources[0].span()
    }

    /// Checks, each spanned at a `State<T>` the state was read from, that it is axum's
    /// `State`: a type of another crate with the same name would otherwise pin the state.
    pub(crate) fn checks(&self) -> TokenStream {
        let path = checks_path();
        let ty = &self.ty;
        let checks = self
            .sources
            .iter()
            .map(|source| quote_spanned!(source.span()=> #path::state_argument::<#ty, #source>();));
        quote! {
            const _: () = {
                #(#checks)*
            };
        }
    }
}

/// [`state_of`] of a handler's argument type as the route writes it (with `Self` replaced),
/// keeping the spans of `T`.
pub(crate) fn state_of_tokens(ty: &TokenStream) -> Option<TokenStream> {
    let ty: Type = syn::parse2(ty.clone()).ok()?;
    state_of(&ty).map(ToTokens::to_token_stream)
}

/// `T` when `ty` is `State<T>`, `extract::State<T>` or `axum::extract::State<T>`. Any other
/// path (such as `my_crate::State<T>`) is not read, which is the way to opt out.
fn state_of(ty: &Type) -> Option<&Type> {
    let ty = match ty {
        Type::Group(group) => &*group.elem,
        Type::Paren(paren) => &*paren.elem,
        other => other,
    };
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segments = &path.path.segments;
    let names: Vec<String> = segments.iter().map(|s| s.ident.to_string()).collect();
    let named = match &*names.join("::") {
        "State" | "extract::State" => path.path.leading_colon.is_none(),
        "axum::extract::State" => true,
        _ => false,
    };
    let last = segments.last()?;
    let plain_prefix = segments.iter().rev().skip(1).all(|s| s.arguments.is_none());
    if !named || !plain_prefix {
        return None;
    }
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    match arguments.args.iter().collect::<Vec<_>>()[..] {
        [GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}

fn type_text(ty: &Type) -> String {
    ty.to_token_stream().to_string().replace(' ', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(types: &[&str]) -> syn::Result<Option<String>> {
        let types: Vec<Type> = types.iter().map(|t| syn::parse_str(t).unwrap()).collect();
        InferredState::read(&types, "handlers").map(|s| s.map(|s| type_text(&s.ty)))
    }

    #[test]
    fn reads_axum_state_paths() {
        assert_eq!(
            read(&["State<AppState>"]).unwrap().as_deref(),
            Some("AppState")
        );
        assert_eq!(
            read(&["Path<u32>", "axum::extract::State<crate::App>"])
                .unwrap()
                .as_deref(),
            Some("crate::App")
        );
        assert_eq!(
            read(&["::axum::extract::State<A>"]).unwrap().as_deref(),
            Some("A")
        );
        assert_eq!(
            read(&["extract::State<A>", "State<A>"]).unwrap().as_deref(),
            Some("A")
        );
    }

    #[test]
    fn other_paths_and_shapes_are_not_read() {
        for ty in [
            "my_crate::State<A>",
            "::State<A>",
            "State",
            "State<A, B>",
            "State<'static>",
            "Option<State<A>>",
            "AppStateAlias",
            "<X as Y>::State<A>",
        ] {
            assert_eq!(read(&[ty]).unwrap(), None, "{ty}");
        }
    }

    #[test]
    fn two_states_are_an_error_naming_both() {
        let error = read(&["State<A>", "String", "State<B>"])
            .unwrap_err()
            .to_string();
        assert!(error.contains("`State<A>` and `State<B>`"), "{error}");
        assert!(error.contains("#[controller(state = ..)]"), "{error}");
    }
}
