//! Parsing `Access-Control-Request-Headers` (and other comma-separated token lists) the way the
//! Fetch standard and RFC 9110 describe: elements separated by commas with optional whitespace,
//! several header lines forming one list, empty elements ignored, names compared
//! case-insensitively. Bounded, so a hostile request cannot make the server do unbounded work.

use http::HeaderValue;

/// Most names accepted in one `Access-Control-Request-Headers` list. Browsers send only the
/// non-safelisted headers a script set, a handful in practice.
pub(crate) const MAX_NAMES: usize = 64;

/// Most bytes accepted across all `Access-Control-Request-Headers` lines.
pub(crate) const MAX_TOTAL_LEN: usize = 4096;

/// Why a requested header list is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderListError {
    /// An element is not a token (`tchar`s only).
    Malformed,
    /// More than [`MAX_NAMES`] names or [`MAX_TOTAL_LEN`] bytes.
    TooLarge,
    /// The visitor refused a name.
    Refused,
}

/// What a successfully parsed list contained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct HeaderListSummary {
    /// Header lines seen (including empty ones).
    pub(crate) lines: usize,
    /// Names seen.
    pub(crate) names: usize,
}

/// `tchar` from RFC 9110, section 5.6.2.
pub(crate) fn is_token_byte(b: u8) -> bool {
    TOKEN_BYTES[usize::from(b)]
}

/// `tchar`s as a lookup table: this runs for every byte of every requested header name.
const TOKEN_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        table[i] = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'.'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'|'
                    | b'~'
            );
        i += 1;
    }
    table
};

/// Whether `bytes` is a non-empty token.
pub(crate) fn is_token(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.iter().all(|&b| is_token_byte(b))
}

/// Walks every name of the list formed by `lines`, calling `visit` for each (as written, not
/// lowercased). Stops at the first malformed element, at the bounds, or when `visit` returns false.
pub(crate) fn parse<'a, I, F>(lines: I, mut visit: F) -> Result<HeaderListSummary, HeaderListError>
where
    I: IntoIterator<Item = &'a HeaderValue>,
    F: FnMut(&'a [u8]) -> bool,
{
    let mut summary = HeaderListSummary::default();
    let mut total = 0usize;
    for line in lines {
        summary.lines += 1;
        let bytes = line.as_bytes();
        total += bytes.len();
        if total > MAX_TOTAL_LEN {
            return Err(HeaderListError::TooLarge);
        }
        let mut i = 0;
        while i < bytes.len() {
            // Separators and optional whitespace before an element; empty elements are skipped.
            if matches!(bytes[i], b',' | b' ' | b'\t') {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && is_token_byte(bytes[i]) {
                i += 1;
            }
            if i == start {
                return Err(HeaderListError::Malformed);
            }
            let name = &bytes[start..i];
            while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
                i += 1;
            }
            if i < bytes.len() && bytes[i] != b',' {
                return Err(HeaderListError::Malformed);
            }
            summary.names += 1;
            if summary.names > MAX_NAMES {
                return Err(HeaderListError::TooLarge);
            }
            if !visit(name) {
                return Err(HeaderListError::Refused);
            }
        }
    }
    Ok(summary)
}

/// Whether `names` (lowercase) contains `name`, compared case-insensitively.
pub(crate) fn contains_ignore_case(names: &[Box<[u8]>], name: &[u8]) -> bool {
    names.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// Configured header names, lowercase, and their prebuilt comma-separated value.
pub(crate) struct CompiledNames {
    pub(crate) names: Vec<Box<[u8]>>,
    /// `None` when the list is empty.
    pub(crate) value: Option<HeaderValue>,
}

/// Validates configured header names (lowercased, de-duplicated, order kept) and prebuilds
/// their comma-separated value (`None` when the list is empty).
pub(crate) fn compile_names(
    field: &'static str,
    names: &[String],
) -> Result<CompiledNames, crate::CorsConfigError> {
    let mut lower: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        if name == "*" {
            return Err(crate::CorsConfigError::new(
                field,
                Some(name),
                "`*` (any header) cannot be part of a list; use `*` alone, or list the headers"
                    .to_owned(),
            ));
        }
        let parsed = http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            crate::CorsConfigError::new(
                field,
                Some(name),
                format!(
                    "`{name}` is not a valid header name; a header name is a token such as `content-type` or \
                     `x-requested-with`"
                ),
            )
        })?;
        let parsed = parsed.as_str();
        if !lower.iter().any(|n| n == parsed) {
            lower.push(parsed.to_owned());
        }
    }
    let value = if lower.is_empty() {
        None
    } else {
        crate::intern::static_value(&lower.join(", "))
    };
    Ok(CompiledNames {
        names: lower
            .into_iter()
            .map(|n| n.into_bytes().into_boxed_slice())
            .collect(),
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(lines: &[&'static str]) -> Result<(Vec<String>, HeaderListSummary), HeaderListError> {
        let values: Vec<HeaderValue> = lines.iter().map(|l| HeaderValue::from_static(l)).collect();
        let mut out = Vec::new();
        let summary = parse(&values, |n| {
            out.push(String::from_utf8_lossy(n).into_owned());
            true
        })?;
        Ok((out, summary))
    }

    #[test]
    fn splits_trims_and_joins_lines() {
        let (n, s) = names(&["X-PINGOTHER, Content-Type", " x-a ,\tx-b", ""]).unwrap();
        assert_eq!(n, ["X-PINGOTHER", "Content-Type", "x-a", "x-b"]);
        assert_eq!(s.lines, 3);
        assert_eq!(s.names, 4);
    }

    #[test]
    fn ignores_empty_elements() {
        let (n, _) = names(&["a,,b, ,"]).unwrap();
        assert_eq!(n, ["a", "b"]);
    }

    #[test]
    fn rejects_malformed_and_oversized() {
        assert_eq!(names(&["a b"]), Err(HeaderListError::Malformed));
        assert_eq!(names(&["a;b"]), Err(HeaderListError::Malformed));
        assert_eq!(names(&["a\tb"]), Err(HeaderListError::Malformed));
        assert_eq!(names(&["a, b c"]), Err(HeaderListError::Malformed));
        assert_eq!(names(&["x-a\"b"]), Err(HeaderListError::Malformed));
        let many = (0..65)
            .map(|i| format!("x-{i}"))
            .collect::<Vec<_>>()
            .join(",");
        let value = HeaderValue::from_str(&many).unwrap();
        assert_eq!(parse([&value], |_| true), Err(HeaderListError::TooLarge));
        let long = HeaderValue::from_str(&"a".repeat(MAX_TOTAL_LEN + 1)).unwrap();
        assert_eq!(parse([&long], |_| true), Err(HeaderListError::TooLarge));
    }

    #[test]
    fn stops_when_refused() {
        let value = HeaderValue::from_static("a, b");
        assert_eq!(
            parse([&value], |n| n == b"a"),
            Err(HeaderListError::Refused)
        );
    }
}
