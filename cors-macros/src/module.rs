//! `rest_root_module!` (also `restRootModule!`, `feature_module!`): a module declaration.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident, LitBool, Token, Type, Visibility, braced, bracketed};

use crate::attr::{StateParams, checks_path, private, switch};

/// `pub struct AppModule { imports: [..], controllers: [..], providers_per_rou: [..], .. }`.
struct ModuleDecl {
    attrs: Vec<Attribute>,
    vis: Visibility,
    name: Ident,
    state: Option<Type>,
    imports: Vec<Expr>,
    controllers: Vec<Type>,
    providers: Vec<Expr>,
    /// `providers_per_route` when the module spells its providers so, for the messages that
    /// name the key; `None` for `providers_per_rou` or no providers.
    providers_key: Option<Ident>,
    guards: Vec<Type>,
    layers: Vec<Expr>,
    /// `openapi: false`: the module and its imports left out of OpenAPI documents.
    openapi: Option<LitBool>,
}

const KEYS: [&str; 8] = [
    "state",
    "imports",
    "controllers",
    "providers_per_route",
    "providers_per_rou",
    "guards",
    "layers",
    "openapi",
];

/// The two spellings of the providers key: `providers_per_rou`, the original framework's, and
/// `providers_per_route`, which reads as English.
const PROVIDERS_KEYS: [&str; 2] = ["providers_per_rou", "providers_per_route"];

fn list<T: Parse>(input: ParseStream<'_>, key: &Ident) -> syn::Result<Vec<T>> {
    if !input.peek(syn::token::Bracket) {
        return Err(input.error(format!("expected a list in brackets: `{key}: [..]`")));
    }
    let content;
    bracketed!(content in input);
    Ok(Punctuated::<T, Token![,]>::parse_terminated(&content)?
        .into_iter()
        .collect())
}

impl Parse for ModuleDecl {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![struct]>()?;
        let name: Ident = input.parse()?;
        let body;
        braced!(body in input);
        let mut decl = ModuleDecl {
            attrs,
            vis,
            name,
            state: None,
            imports: Vec::new(),
            controllers: Vec::new(),
            providers: Vec::new(),
            providers_key: None,
            guards: Vec::new(),
            layers: Vec::new(),
            openapi: None,
        };
        let mut seen: Vec<Ident> = Vec::new();
        while !body.is_empty() {
            let key: Ident = body.parse()?;
            let name = key.to_string();
            if !KEYS.contains(&name.as_str()) {
                let expected = KEYS.map(|k| format!("`{k}`")).join(", ");
                return Err(syn::Error::new_spanned(
                    &key,
                    format!("unknown key `{key}`; expected one of {expected}"),
                ));
            }
            // A key given twice, or under both spellings of the providers key.
            let providers = |k: &Ident| PROVIDERS_KEYS.contains(&&*k.to_string());
            if let Some(first) =
                (seen.iter()).find(|k| **k == key || providers(k) && providers(&key))
            {
                let message = match *first == key {
                    true => format!("`{key}` specified more than once"),
                    false => format!(
                        "`{key}` and `{first}` are two spellings of one key; put every provider \
                         in one `{first}: [..]`"
                    ),
                };
                return Err(syn::Error::new_spanned(&key, message));
            }
            body.parse::<Token![:]>()?;
            match name.as_str() {
                "state" => decl.state = Some(body.parse()?),
                "imports" => decl.imports = list(&body, &key)?,
                "controllers" => decl.controllers = list(&body, &key)?,
                "providers_per_rou" => decl.providers = list(&body, &key)?,
                "providers_per_route" => {
                    decl.providers = list(&body, &key)?;
                    decl.providers_key = Some(key.clone());
                }
                "guards" => decl.guards = list(&body, &key)?,
                "layers" => decl.layers = list(&body, &key)?,
                // `openapi`, the only key left.
                _ => decl.openapi = Some(switch(&body, "openapi: false")?),
            }
            seen.push(key);
            if !body.is_empty() {
                body.parse::<Token![,]>()?;
            }
        }
        Ok(decl)
    }
}

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    match syn::parse2::<ModuleDecl>(input).and_then(|decl| generate(&decl)) {
        Ok(tokens) => tokens,
        Err(error) => error.to_compile_error(),
    }
}

/// An error at the second listing of a controller listed twice.
fn check_controllers(controllers: &[Type]) -> syn::Result<()> {
    let mut seen = std::collections::HashSet::with_capacity(controllers.len());
    for controller in controllers {
        let text = controller.to_token_stream().to_string();
        if !seen.insert(text.clone()) {
            return Err(syn::Error::new_spanned(
                controller,
                format!("controller `{}` is listed twice", text.replace(' ', "")),
            ));
        }
    }
    Ok(())
}

fn generate(decl: &ModuleDecl) -> syn::Result<TokenStream> {
    check_controllers(&decl.controllers)?;
    let ModuleDecl {
        attrs,
        vis,
        name,
        state,
        ..
    } = decl;
    let private = private();
    let name_str = name.to_string();
    let StateParams {
        generics,
        state: state_param,
        ..
    } = StateParams::new(state.as_ref());
    let app_state = match state {
        Some(state) => quote!(#state),
        None => quote!(()),
    };
    let calls = definition_calls(decl);
    let inherent = application_fns(vis, name, &app_state);
    let private_use = crate::attr::private_use();
    Ok(quote! {
        #(#attrs)*
        #[derive(
            ::core::fmt::Debug,
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::default::Default,
        )]
        #vis struct #name;

        const _: () = {
            #private_use

            impl #generics ::cors_axum::app::Module<#state_param> for #name {
                fn definition(&self) -> #private::ModuleDefinition<#state_param> {
                    #private::ModuleDefinition::<#state_param>::new::<Self>(#name_str)
                        #calls
                }
            }

            impl #private::DeclaredModule for #name {}

            #inherent
        };
    })
}

/// The calls on the module's `ModuleDefinition` that declare what the module lists, each
/// spanned at its entry, so that a type error names the entry rather than the whole macro.
fn definition_calls(decl: &ModuleDecl) -> TokenStream {
    let checks = checks_path();
    let imports =
        (decl.imports.iter()).map(|import| quote_spanned!(import.span()=> .import(#import)));
    // Through `Controller<S>` (`ListedInAnyState` without state), whose bounds the controller
    // writes at its `State<T>`: a controller of another state is one error naming both states,
    // with no `where` clause for the generic state suggested.
    let controllers = decl.controllers.iter().map(|controller| match &decl.state {
        Some(state) => quote_spanned! {controller.span()=>
            .controller_ref(<#controller as ::cors_axum::app::Controller<#state>>::controller_ref())
        },
        None => quote_spanned! {controller.span()=>
            .controller_ref(<#controller as #checks::ListedInAnyState>::controller_ref_any::<__S>())
        },
    });
    let guards =
        (decl.guards.iter()).map(|guard| quote_spanned!(guard.span()=> .guard::<#guard, _>()));
    let layers = (decl.layers.iter()).map(|layer| quote_spanned!(layer.span()=> .layer(#layer)));
    let openapi = (decl.openapi.iter())
        .map(|listed| quote_spanned!(listed.span()=> .listed_in_openapi(#listed)));
    // Only for the spelling that is not the default, so that most modules write nothing more.
    let providers_key =
        (decl.providers_key.as_ref()).map(|key| quote!(.providers_key(::core::stringify!(#key))));
    let providers = &decl.providers;
    quote! {
        #(#imports)*
        #(#controllers)*
        #providers_key
        #(.providers(#providers))*
        #(#guards)*
        #(#layers)*
        #(#openapi)*
    }
}

/// The functions of a root module that build its application: `builder()`, `router()`,
/// `routes()`, `application()`.
fn application_fns(vis: &Visibility, name: &Ident, app_state: &TokenStream) -> TokenStream {
    let private = private();
    quote! {
        impl #name {
            /// The builder of the application whose root is this module, to provide values,
            /// guards and layers known only at run time.
            #vis fn builder() -> ::cors_axum::app::ApplicationBuilder<#app_state> {
                ::cors_axum::app::ApplicationBuilder::new(#name)
            }

            /// Builds the module's `axum::Router`; conflicts, invalid options and missing
            /// providers are errors.
            ///
            /// Add authentication and other layers that may reject a request with `layers`
            /// or `guards` in a module, or with `builder().layer(..)`: those run inside the CORS
            /// handling. `Router::layer` on the router returned here wraps CORS too, so such a
            /// layer would reject preflights and answer without CORS headers.
            #vis fn router() -> ::core::result::Result<
                #private::axum::Router<#app_state>,
                ::cors_axum::BuildError,
            > {
                Self::builder().router()
            }

            /// The routes the module's router serves, in a stable order.
            #vis fn routes() -> ::core::result::Result<::cors_axum::app::RouteTable, ::cors_axum::BuildError> {
                Self::builder().build().map(|app| ::cors_axum::Application::into_parts(app).1)
            }

            /// The router and the route table at once.
            #vis fn application() -> ::core::result::Result<
                ::cors_axum::Application<#app_state>,
                ::cors_axum::BuildError,
            > {
                Self::builder().build()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_is_a_switch() {
        let decl: ModuleDecl = syn::parse_quote!(struct Internal { openapi: false });
        assert!(!decl.openapi.unwrap().value);
        let error = syn::parse2::<ModuleDecl>(quote!(struct Internal { openapi: [false] }))
            .err()
            .unwrap();
        assert_eq!(
            error.to_string(),
            "expected `true` or `false`, as in `openapi: false`"
        );
    }
}
