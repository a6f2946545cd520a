//! The methods a route of axum can have, and the order `Allow` lists them in.

use http::Method;

/// The methods of axum's method router, in the order `Allow` lists them.
pub(crate) const METHOD_ORDER: [Method; 9] = [
    Method::OPTIONS,
    Method::GET,
    Method::HEAD,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
    Method::TRACE,
    Method::CONNECT,
];

/// Position of a method in [`METHOD_ORDER`], for stable sorting.
pub(crate) fn method_rank(method: &Method) -> usize {
    METHOD_ORDER
        .iter()
        .position(|m| m == method)
        .unwrap_or(METHOD_ORDER.len())
}

/// Whether a route with method `route` answers `request`: its own method, and `HEAD` where it is
/// `GET` (axum answers `HEAD` with the `GET` handler).
pub(crate) fn answers(route: &Method, request: &Method) -> bool {
    route == request || (*request == Method::HEAD && *route == Method::GET)
}

/// The methods a path answers, given its routes' methods, in `Allow` order; `OPTIONS` first,
/// whether a route has it or `CorsModule` generates it.
pub(crate) fn path_methods<'a>(routes: impl Iterator<Item = &'a Method> + Clone) -> Vec<Method> {
    let mut methods: Vec<Method> = METHOD_ORDER
        .iter()
        .filter(|m| routes.clone().any(|r| answers(r, m)))
        .cloned()
        .collect();
    if !methods.contains(&Method::OPTIONS) {
        methods.insert(0, Method::OPTIONS);
    }
    methods
}
