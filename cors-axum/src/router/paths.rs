//! The path registry: joining and checking paths, and the conflicts between paths that axum
//! would panic on, found first and reported naming the routes.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use crate::error::BuildError;
use crate::table::{RouteInfo, RoutePath};

/// The paths added so far, to report the conflicts between them.
#[derive(Default)]
pub(super) struct Paths {
    /// A row of the route table for each path with parameters or wildcards, to name a handler
    /// of it: only those conflict.
    rows: FxHashMap<RoutePath, usize>,
    /// Paths with parameters or wildcards, to find the conflicts axum would panic on.
    router: matchit::Router<()>,
}

impl Paths {
    /// Records `path`, whose first row in `table` is `row`; an error if the router cannot add
    /// it beside the paths recorded before.
    pub(super) fn add(
        &mut self,
        path: &RoutePath,
        row: usize,
        table: &[RouteInfo],
    ) -> Result<(), BuildError> {
        // The router reports conflicts only between paths with parameters or wildcards; equal
        // static paths are one path, grouped before they come here.
        if !path.contains('{') {
            return Ok(());
        }
        if let Err(error) = self.router.insert(&**path, ()) {
            return Err(self.conflict(path, &table[row], error, table));
        }
        self.rows.insert(path.clone(), row);
        Ok(())
    }

    /// The error for a path the router cannot add.
    fn conflict(
        &self,
        path: &str,
        row: &RouteInfo,
        error: matchit::InsertError,
        table: &[RouteInfo],
    ) -> BuildError {
        let reason = match error {
            matchit::InsertError::Conflict { with } => {
                let other_handler = self
                    .rows
                    .get(with.as_str())
                    .and_then(|&row| table.get(row))
                    .map(RouteInfo::describe)
                    .unwrap_or_default();
                return BuildError::PathConflict {
                    path: path.to_owned(),
                    handler: row.describe(),
                    other_path: with,
                    other_handler,
                };
            }
            matchit::InsertError::InvalidParamSegment => {
                "a segment holds at most one parameter, after any static text, as in \
                 `/files/v{version}`"
            }
            matchit::InsertError::InvalidCatchAll => {
                "a wildcard `{*name}` must be the last segment"
            }
            _ => "parameters are written `{name}`, and braces in text `{{` and `}}`",
        };
        BuildError::InvalidPath {
            path: path.to_owned(),
            reason: reason.to_owned(),
        }
    }
}

/// Joins a prefix and a path: `("/api", "users")` gives `/api/users`; `("", "")` gives `/`.
pub(super) fn join_paths(prefix: &str, path: &str) -> Result<String, BuildError> {
    join_route_path(prefix, path).map(Cow::into_owned)
}

/// [`join_paths`] that borrows `path` when it is already the joined form (no prefix, one
/// leading `/`, no trailing one), as the macro writes route paths.
pub(super) fn join_route_path<'p>(prefix: &str, path: &'p str) -> Result<Cow<'p, str>, BuildError> {
    if prefix.bytes().all(|b| b == b'/') && is_joined(path) {
        return Ok(Cow::Borrowed(path));
    }
    let mut joined = String::with_capacity(prefix.len() + path.len() + 2);
    for part in [prefix, path] {
        let trimmed = part.trim_matches('/');
        if !trimmed.is_empty() {
            joined.push('/');
            joined.push_str(trimmed);
        }
    }
    if joined.is_empty() {
        joined.push('/');
    }
    if joined.contains("//") {
        return Err(BuildError::InvalidPath {
            path: joined,
            reason: "empty path segment (`//`)".to_owned(),
        });
    }
    Ok(Cow::Owned(joined))
}

/// Whether `path` is in joined form already: `/`, or a leading `/`, no trailing one and no
/// empty segment.
fn is_joined(path: &str) -> bool {
    path == "/" || (path.starts_with('/') && !path.ends_with('/') && !path.contains("//"))
}

/// The checks on which axum would panic, reported as errors.
pub(super) fn validate_path(path: &str) -> Result<(), BuildError> {
    let invalid = |reason: &str| BuildError::InvalidPath {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    for segment in path.split('/') {
        if let Some(name) = segment.strip_prefix(':') {
            return Err(invalid(&format!(
                "segments must not start with `:`; write the parameter as `{{{name}}}`"
            )));
        }
        if let Some(name) = segment.strip_prefix('*') {
            return Err(invalid(&format!(
                "segments must not start with `*`; write the wildcard as `{{*{name}}}`"
            )));
        }
    }
    if path.contains(['?', '#', ' ']) {
        return Err(invalid("paths cannot contain `?`, `#` or spaces"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_paths_normalises_slashes() {
        assert_eq!(join_paths("", "").unwrap(), "/");
        assert_eq!(join_paths("", "/").unwrap(), "/");
        assert_eq!(join_paths("/api", "users").unwrap(), "/api/users");
        assert_eq!(join_paths("api/", "/users/").unwrap(), "/api/users");
        assert!(join_paths("/a//b", "c").is_err());
        assert!(matches!(
            join_route_path("", "/users"),
            Ok(Cow::Borrowed("/users"))
        ));
    }

    #[test]
    fn only_a_path_in_joined_form_is_borrowed() {
        for joined in ["/", "/users", "/a/{id}", "/a/b/c"] {
            assert!(is_joined(joined), "{joined}");
            assert!(matches!(join_route_path("/", joined), Ok(Cow::Borrowed(_))));
        }
        for other in ["", "users", "/users/", "//", "/a//b", "//a", "a/"] {
            assert!(!is_joined(other), "{other}");
        }
        assert_eq!(join_route_path("", "users").unwrap(), "/users");
        assert_eq!(join_route_path("/api/", "/users").unwrap(), "/api/users");
    }

    #[test]
    fn static_paths_never_conflict_with_parameter_paths_in_the_router() {
        // `Paths::add` checks only paths with parameters for conflicts; this is what makes that
        // sound: the router accepts every static path beside any parameter or wildcard path.
        let dynamic = [
            "/{id}",
            "/a/{x}",
            "/a/{x}/c",
            "/files/{*rest}",
            "/x{suffix}",
        ];
        let fixed = [
            "/", "/a", "/a/b", "/a/b/c", "/files", "/files/a", "/x", "/xy", "/b/{{c}}",
        ];
        for (first, second) in [(&dynamic[..], &fixed[..]), (&fixed[..], &dynamic[..])] {
            let mut router = matchit::Router::new();
            for path in first.iter().chain(second.iter()) {
                router
                    .insert(*path, ())
                    .unwrap_or_else(|e| panic!("{path}: {e}"));
            }
            assert!(
                router.insert("/a/{y}", ()).is_err(),
                "parameter paths do conflict"
            );
        }
    }

    #[test]
    fn legacy_parameter_syntax_is_an_error_not_a_panic() {
        let err = validate_path("/users/:id").unwrap_err().to_string();
        assert!(err.contains("`{id}`"), "{err}");
        let err = validate_path("/files/*rest").unwrap_err().to_string();
        assert!(err.contains("`{*rest}`"), "{err}");
        assert!(validate_path("/users/{id}").is_ok());
    }
}
