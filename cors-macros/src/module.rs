//! `rest_root_module!` (also `restRootModule!`, `feature_module!`): a module declaration.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Ident, Token, Type, Visibility, braced, bracketed};

/// `pub struct AppModule { imports: [..], controllers: [..], providers_per_rou: [..] }`.
struct ModuleDecl {
    attrs: Vec<Attribute>,
    vis: Visibility,
    name: Ident,
    imports: Vec<Expr>,
    controllers: Vec<Type>,
    providers: Vec<Expr>,
}

const KEYS: &str = "`imports`, `controllers`, `providers_per_rou`";

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
            imports: Vec::new(),
            controllers: Vec::new(),
            providers: Vec::new(),
        };
        let mut seen: Vec<Ident> = Vec::new();
        while !body.is_empty() {
            let key: Ident = body.parse()?;
            if seen.contains(&key) {
                return Err(syn::Error::new_spanned(
                    &key,
                    format!("`{key}` specified more than once"),
                ));
            }
            body.parse::<Token![:]>()?;
            let list;
            bracketed!(list in body);
            match key.to_string().as_str() {
                "imports" => {
                    decl.imports = Punctuated::<Expr, Token![,]>::parse_terminated(&list)?
                        .into_iter()
                        .collect();
                }
                "controllers" => {
                    decl.controllers = Punctuated::<Type, Token![,]>::parse_terminated(&list)?
                        .into_iter()
                        .collect();
                }
                "providers_per_rou" => {
                    decl.providers = Punctuated::<Expr, Token![,]>::parse_terminated(&list)?
                        .into_iter()
                        .collect();
                }
                other => {
                    return Err(syn::Error::new_spanned(
                        &key,
                        format!("unknown key `{other}`; expected one of {KEYS}"),
                    ));
                }
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

fn generate(decl: &ModuleDecl) -> syn::Result<TokenStream> {
    for (i, controller) in decl.controllers.iter().enumerate() {
        let text = quote!(#controller).to_string();
        if decl.controllers[..i]
            .iter()
            .any(|c| quote!(#c).to_string() == text)
        {
            return Err(syn::Error::new_spanned(
                controller,
                format!("controller `{}` is listed twice", text.replace(' ', "")),
            ));
        }
    }
    let ModuleDecl {
        attrs,
        vis,
        name,
        imports,
        controllers,
        providers,
    } = decl;
    let private = quote!(::cors_axum::__private);
    let name_str = name.to_string();
    Ok(quote! {
        #(#attrs)*
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #name;

        impl #private::Module for #name {
            fn definition(&self) -> #private::ModuleDefinition {
                #private::ModuleDefinition::new::<Self>(#name_str)
                    #(.import(#imports))*
                    #(.controller::<#controllers>())*
                    #(.providers(#providers))*
            }
        }

        impl #name {
            /// Builds the module's `axum::Router`; conflicts and invalid options are errors.
            #vis fn router() -> ::core::result::Result<#private::axum::Router, #private::BuildError> {
                #private::Application::build(&#name).map(#private::Application::into_router)
            }

            /// The routes the module's router serves, in a stable order.
            #vis fn routes() -> ::core::result::Result<#private::RouteTable, #private::BuildError> {
                #private::Application::build(&#name).map(|app| ::core::clone::Clone::clone(app.routes()))
            }

            /// The router and the route table at once.
            #vis fn application() -> ::core::result::Result<#private::Application, #private::BuildError> {
                #private::Application::build(&#name)
            }
        }
    })
}
