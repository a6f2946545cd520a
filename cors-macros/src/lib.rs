//! Procedural macros of `cors-axum`. Use them through `cors-axum`, which re-exports them.
//!
//! Each entry point is one line; the work is in one module per macro.

mod attr;
mod controller;
mod module;
mod path;
mod route;

use proc_macro::TokenStream;

/// See `cors_axum::controller`.
#[proc_macro_attribute]
pub fn controller(args: TokenStream, item: TokenStream) -> TokenStream {
    controller::expand(args.into(), item.into()).into()
}

/// See `cors_axum::route`.
#[proc_macro_attribute]
pub fn route(args: TokenStream, item: TokenStream) -> TokenStream {
    route::expand_outside_controller(args.into(), item.into()).into()
}

/// See `cors_axum::rest_root_module`.
#[proc_macro]
pub fn rest_root_module(input: TokenStream) -> TokenStream {
    module::expand(input.into()).into()
}

/// See `cors_axum::restRootModule`.
#[allow(non_snake_case)]
#[proc_macro]
pub fn restRootModule(input: TokenStream) -> TokenStream {
    module::expand(input.into()).into()
}

/// See `cors_axum::feature_module`.
#[proc_macro]
pub fn feature_module(input: TokenStream) -> TokenStream {
    module::expand(input.into()).into()
}
