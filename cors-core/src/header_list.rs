//! Parsing `Access-Control-Request-Headers` (and other comma-separated token lists) the way the
//! Fetch standard and RFC 9110 describe: elements separated by commas with optional whitespace,
//! several header lines forming one list, empty elements ignored, names compared
//! case-insensitively. Bounded, so a hostile request cannot make the server do unbounded work.

use http::HeaderValue;

use crate::refusal::{MAX_NAMES, MAX_TOTAL_LEN, Refusal};

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
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    let symbols = b"!#$%&'*+-.^_`|~";
    let mut i = 0;
    while i < symbols.len() {
        table[symbols[i] as usize] = true;
        i += 1;
    }
    table
};

/// Whether `bytes` is a non-empty token.
pub(crate) fn is_token(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.iter().all(|&b| is_token_byte(b))
}

/// Whether every name of the list formed by `lines` is one of `names` (lowercase), compared
/// case-insensitively.
pub(crate) fn all_in<'a, I>(lines: I, names: &[Box<[u8]>]) -> Result<(), Refusal<'a>>
where
    I: IntoIterator<Item = &'a HeaderValue>,
{
    parse(lines, |name| contains_ignore_case(names, name)).map(drop)
}

/// Reads the list formed by `lines` (elements separated by commas with optional spaces and tabs
/// around them, empty elements skipped, several lines forming one list) within the bounds, and
/// calls `visit` with each name (as written, not lowercased) until it returns false, which
/// refuses that name. One pass over the bytes: an element is a run of token bytes between
/// optional whitespace, so validating it is finding its end.
#[inline]
pub(crate) fn parse<'a, I, F>(lines: I, mut visit: F) -> Result<HeaderListSummary, Refusal<'a>>
where
    I: IntoIterator<Item = &'a HeaderValue>,
    F: FnMut(&'a [u8]) -> bool,
{
    // A header value holds no control bytes but horizontal tab: this is the optional
    // whitespace around an element.
    let is_space = |b: u8| b == b' ' || b == b'\t';
    let mut summary = HeaderListSummary::default();
    let mut total = 0usize;
    for line in lines {
        summary.lines += 1;
        let bytes = line.as_bytes();
        total += bytes.len();
        if total > MAX_TOTAL_LEN {
            return Err(Refusal::RequestHeadersTooLong);
        }
        let mut i = 0;
        while i < bytes.len() {
            while i < bytes.len() && is_space(bytes[i]) {
                i += 1;
            }
            let start = i;
            while i < bytes.len() && is_token_byte(bytes[i]) {
                i += 1;
            }
            let name = &bytes[start..i];
            while i < bytes.len() && is_space(bytes[i]) {
                i += 1;
            }
            let well_formed = matches!(bytes.get(i), None | Some(b','));
            i += 1;
            if name.is_empty() && well_formed {
                continue;
            }
            summary.names += 1;
            if summary.names > MAX_NAMES {
                return Err(Refusal::TooManyRequestHeaders);
            }
            if !well_formed {
                return Err(Refusal::MalformedRequestHeaders {
                    element: element_at(bytes, start),
                });
            }
            if !visit(name) {
                return Err(refused(name));
            }
        }
    }
    Ok(summary)
}

/// The element of `line` that starts at `start`, up to the next comma, trimmed: a malformed
/// one, for the refusal.
#[cold]
fn element_at(line: &[u8], start: usize) -> &[u8] {
    let rest = &line[start..];
    let end = rest.iter().position(|&b| b == b',').unwrap_or(rest.len());
    rest[..end].trim_ascii()
}

/// The refusal of a name the caller does not allow.
#[cold]
fn refused(name: &[u8]) -> Refusal<'_> {
    match std::str::from_utf8(name) {
        // A name is a token, so ASCII; the other arm only keeps this total.
        Ok(name) => Refusal::HeaderNotAllowed { name },
        Err(_) => Refusal::MalformedRequestHeaders { element: name },
    }
}

/// Whether `names` (lowercase) contains `name`, compared case-insensitively. Browsers send
/// lowercase names, so an exact comparison is tried first.
#[inline]
fn contains_ignore_case(names: &[Box<[u8]>], name: &[u8]) -> bool {
    names
        .iter()
        .any(|n| n.len() == name.len() && (**n == *name || n.eq_ignore_ascii_case(name)))
}

/// Configured header names, lowercase, and their prebuilt comma-separated value.
#[derive(Clone, Debug)]
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
) -> Result<CompiledNames, crate::error::CorsConfigError> {
    let mut lower: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        if name == "*" {
            return Err(crate::error::CorsConfigError::new(
                field,
                Some(name),
                "`*` (any header) cannot be part of a list; use `*` alone, or list the headers",
            ));
        }
        let parsed = http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            crate::error::CorsConfigError::new(
                field,
                Some(name),
                format!(
                    "`{name}` is not a valid header name; a header name is a token such as `content-type` or \
                     `x-requested-with`"
                ),
            )
        })?;
        lower.push(parsed.as_str().to_owned());
    }
    Ok(CompiledNames::new(lower))
}

impl CompiledNames {
    /// `names` (tokens) without repeats, and their prebuilt comma-separated value.
    pub(crate) fn new(names: Vec<String>) -> Self {
        let mut unique: Vec<String> = Vec::with_capacity(names.len());
        for name in names {
            if !unique.contains(&name) {
                unique.push(name);
            }
        }
        let value = (!unique.is_empty()).then(|| {
            crate::intern::static_value(&unique.join(", "))
                .expect("tokens joined with `, ` are a header value")
        });
        CompiledNames {
            names: unique
                .into_iter()
                .map(|name| name.into_bytes().into_boxed_slice())
                .collect(),
            value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the list, or the element at fault.
    fn names(lines: &[&'static str]) -> Result<(Vec<String>, HeaderListSummary), String> {
        let values: Vec<HeaderValue> = lines.iter().map(|l| HeaderValue::from_static(l)).collect();
        let mut out = Vec::new();
        let summary = parse(&values, |n| {
            out.push(String::from_utf8_lossy(n).into_owned());
            true
        })
        .map_err(|e| match e {
            Refusal::MalformedRequestHeaders { element } => {
                String::from_utf8_lossy(element).into_owned()
            }
            other => format!("{other:?}"),
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
        for (line, element) in [
            ("a b", "a b"),
            ("a;b", "a;b"),
            ("a\tb", "a\tb"),
            ("a, b c", "b c"),
            ("x-a\"b", "x-a\"b"),
        ] {
            assert_eq!(names(&[line]), Err(element.to_owned()), "{line}");
        }
        let many = (0..65)
            .map(|i| format!("x-{i}"))
            .collect::<Vec<_>>()
            .join(",");
        let value = HeaderValue::from_str(&many).unwrap();
        assert_eq!(
            parse([&value], |_| true),
            Err(Refusal::TooManyRequestHeaders)
        );
        let long = HeaderValue::from_str(&"a".repeat(MAX_TOTAL_LEN + 1)).unwrap();
        assert_eq!(
            parse([&long], |_| true),
            Err(Refusal::RequestHeadersTooLong)
        );
    }

    /// The list as RFC 9110's `#rule` reads it, written the obvious way: the names before the
    /// first malformed element, and the error if there is one.
    fn reference(lines: &[Vec<u8>]) -> (Vec<Vec<u8>>, Result<(), Refusal<'_>>) {
        let mut names = Vec::new();
        for line in lines {
            for element in line.split(|&b| b == b',') {
                let name = element.trim_ascii();
                if name.is_empty() {
                    continue;
                }
                if !is_token(name) {
                    return (
                        names,
                        Err(Refusal::MalformedRequestHeaders { element: name }),
                    );
                }
                names.push(name.to_vec());
            }
        }
        (names, Ok(()))
    }

    /// Header lines that are mostly well-formed lists: token bytes, commas and whitespace, with
    /// now and then a byte that is none of them. At most 3 lines of 40 bytes, so at most 60
    /// names: within `MAX_NAMES`, which the reference does not model.
    fn list_lines() -> impl proptest::strategy::Strategy<Value = Vec<Vec<u8>>> {
        use proptest::prelude::*;
        let byte = prop_oneof![
            12 => proptest::sample::select(&b"aZx09-_!~.'"[..]),
            4 => Just(b','),
            3 => proptest::sample::select(&b" \t"[..]),
            1 => proptest::sample::select(&b";\"(/\x7e\x80\xff"[..]),
        ];
        proptest::collection::vec(proptest::collection::vec(byte, 0..40), 0..=3)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 4000, ..Default::default() })]
        #[test]
        fn parse_agrees_with_the_reference(lines in list_lines()) {
            let values: Vec<HeaderValue> = lines
                .iter()
                .map(|l| HeaderValue::from_bytes(l).expect("bytes a header value may hold"))
                .collect();
            let mut seen = Vec::new();
            let parsed = parse(&values, |n| {
                seen.push(n.to_vec());
                true
            });
            let (expected, outcome) = reference(&lines);
            proptest::prop_assert_eq!(&seen, &expected);
            proptest::prop_assert_eq!(parsed.map(|s| s.names), outcome.map(|()| expected.len()));
            // `all_in` accepts exactly the well-formed lists whose names are all configured.
            let configured: Vec<Box<[u8]>> = vec![b"az"[..].into(), b"x"[..].into()];
            let all_configured = outcome.is_ok()
                && expected
                    .iter()
                    .all(|n| n.eq_ignore_ascii_case(b"az") || n.eq_ignore_ascii_case(b"x"));
            proptest::prop_assert_eq!(all_in(&values, &configured).is_ok(), all_configured);
        }
    }

    #[test]
    fn stops_when_refused() {
        let value = HeaderValue::from_static("a, b");
        assert_eq!(
            parse([&value], |n| n == b"a"),
            Err(Refusal::HeaderNotAllowed { name: "b" })
        );
    }
}
