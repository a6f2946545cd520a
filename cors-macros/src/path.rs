//! Compile-time checks of route paths (axum 0.8 syntax).

use proc_macro2::Span;

/// Normalises a route path to start with `/` and have no trailing `/`, or says what is wrong.
pub(crate) fn check(path: &str, span: Span) -> syn::Result<String> {
    let err = |message: String| Err(syn::Error::new(span, message));
    if path.contains(['?', '#']) {
        return err(format!(
            "path `{path}` cannot contain a query or a fragment"
        ));
    }
    if path.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return err(format!("path `{path}` cannot contain whitespace"));
    }
    let trimmed = path.trim_matches('/');
    if trimmed.is_empty() {
        return Ok("/".to_owned());
    }
    for segment in trimmed.split('/') {
        if segment.is_empty() {
            return err(format!("path `{path}` has an empty segment (`//`)"));
        }
        if let Some(name) = segment.strip_prefix(':') {
            return err(format!(
                "axum 0.8 writes path parameters in braces: use `{{{name}}}` instead of `:{name}`"
            ));
        }
        if let Some(name) = segment.strip_prefix('*') {
            return err(format!(
                "axum 0.8 writes wildcards in braces: use `{{*{name}}}` instead of `*{name}`"
            ));
        }
        check_braces(segment, path, span)?;
    }
    Ok(format!("/{trimmed}"))
}

/// A segment is literal text with `{name}` parameters (or one `{*name}` wildcard); `{{` and
/// `}}` are escaped braces.
fn check_braces(segment: &str, path: &str, span: Span) -> syn::Result<()> {
    let err = |message: String| Err(syn::Error::new(span, message));
    let bytes = segment.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => i += 2,
            b'}' if bytes.get(i + 1) == Some(&b'}') => i += 2,
            b'{' => {
                let Some(len) = segment[i + 1..].find('}') else {
                    return err(format!("path `{path}` has an unclosed `{{`"));
                };
                let name = &segment[i + 1..i + 1 + len];
                let name = name.strip_prefix('*').unwrap_or(name);
                if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    return err(format!(
                        "path `{path}` has an invalid parameter name `{{{name}}}`"
                    ));
                }
                i += len + 2;
            }
            b'}' => return err(format!("path `{path}` has a `}}` without `{{`")),
            _ => i += 1,
        }
    }
    Ok(())
}

/// Joins a controller prefix and a route path, both already checked.
pub(crate) fn join(prefix: &str, path: &str) -> String {
    match (prefix, path) {
        ("/", path) => path.to_owned(),
        (prefix, "/") => prefix.to_owned(),
        (prefix, path) => format!("{prefix}{path}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_and_rejects() {
        let s = Span::call_site();
        assert_eq!(check("", s).unwrap(), "/");
        assert_eq!(check("credentials", s).unwrap(), "/credentials");
        assert_eq!(check("/items/{id}/", s).unwrap(), "/items/{id}");
        assert_eq!(check("files/{*rest}", s).unwrap(), "/files/{*rest}");
        assert!(check("items/:id", s).is_err());
        assert!(check("items/{id", s).is_err());
        assert!(check("items/{}", s).is_err());
        assert!(check("a//b", s).is_err());
        assert!(check("a b", s).is_err());
        assert_eq!(join("/users", "/"), "/users");
        assert_eq!(join("/", "/x"), "/x");
        assert_eq!(join("/users", "/{id}"), "/users/{id}");
    }
}
