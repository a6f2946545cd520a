//! `rest_root_module!` (also `restRootModule!`, `feature_module!`): a module declaration.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
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

const KEYS: [&str; 3] = ["imports", "controllers", "providers_per_rou"];

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
            let name = key.to_string();
            if !KEYS.contains(&name.as_str()) {
                let expected = KEYS.map(|k| format!("`{k}`")).join(", ");
                return Err(syn::Error::new_spanned(
                    &key,
                    format!("unknown key `{key}`; expected one of {expected}"),
                ));
            }
            if seen.contains(&key) {
                return Err(syn::Error::new_spanned(
                    &key,
                    format!("`{key}` specified more than once"),
                ));
            }
            body.parse::<Token![:]>()?;
            if !body.peek(syn::token::Bracket) {
                return Err(body.error(format!("expected a list in brackets: `{key}: [..]`")));
            }
            let list;
            bracketed!(list in body);
            match name.as_str() {
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
                // `providers_per_rou`, the only key left.
                _ => {
                    decl.providers = Punctuated::<Expr, Token![,]>::parse_terminated(&list)?
                        .into_iter()
                        .collect();
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
    // Spanned at each entry, so that a type error names the entry rather than the whole macro.
    let imports = imports
        .iter()
        .map(|import| quote_spanned!(import.span()=> .import(#import)));
    let controllers = controllers
        .iter()
        .map(|controller| quote_spanned!(controller.span()=> .controller::<#controller>()));
    Ok(quote! {
        #(#attrs)*
        #[derive(
            ::core::fmt::Debug,
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::default::Default,
        )]
        #vis struct #name;

        impl #private::Module for #name {
            fn definition(&self) -> #private::ModuleDefinition {
                #private::ModuleDefinition::new::<Self>(#name_str)
                    #(#imports)*
                    #(#controllers)*
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
                #private::Application::build(&#name).map(|app| #private::Application::into_parts(app).1)
            }

            /// The router and the route table at once.
            #vis fn application() -> ::core::result::Result<#private::Application, #private::BuildError> {
                #private::Application::build(&#name)
            }
        }
    })
}
