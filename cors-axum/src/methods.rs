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

/// Position of a method in [`METHOD_ORDER`] (after them all for another method), for stable
/// sorting: one branch on the method, since every route of every path is ranked.
pub(crate) fn method_rank(method: &Method) -> usize {
    match *method {
        Method::OPTIONS => 0,
        Method::GET => 1,
        Method::HEAD => 2,
        Method::POST => 3,
        Method::PUT => 4,
        Method::PATCH => 5,
        Method::DELETE => 6,
        Method::TRACE => 7,
        Method::CONNECT => 8,
        _ => METHOD_ORDER.len(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_method_ranks_at_its_place_in_the_allow_order() {
        for (place, method) in METHOD_ORDER.iter().enumerate() {
            assert_eq!(method_rank(method), place, "{method}");
        }
        let other = Method::from_bytes(b"PURGE").unwrap();
        assert_eq!(method_rank(&other), METHOD_ORDER.len());
    }
}
