//! The forms of an option written as a word or a list (origins, methods, headers): its `From`
//! impls, and how configuration files write it.

/// A string or a list of strings, as configuration files write option values.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
#[serde(untagged, expecting = "a string or a list of strings")]
pub(crate) enum StringOrList {
    String(String),
    List(Vec<String>),
}

/// The `From` impls of an option with `any()` and `list(..)`: `"*"` is `any()`, any other
/// string a list of one; arrays, vectors and slices of strings (or of the typed names given)
/// are lists. In files: a keyword given here, another string, or a list.
macro_rules! list_option {
    ($option:ident $(, $typed:ty)?; $($word:literal => $keyword:expr),*) => {
        impl From<&str> for $option {
            /// `"*"` is `any()`; anything else is a list of that one.
            fn from(item: &str) -> Self {
                if item == "*" {
                    Self::any()
                } else {
                    Self::list([item])
                }
            }
        }

        impl From<String> for $option {
            /// `"*"` is `any()`; anything else is a list of that one.
            fn from(item: String) -> Self {
                Self::from(item.as_str())
            }
        }

        impl<S: AsRef<str>, const N: usize> From<[S; N]> for $option {
            fn from(items: [S; N]) -> Self {
                Self::list(items.iter().map(|item| item.as_ref().to_owned()))
            }
        }

        impl<S: AsRef<str>> From<Vec<S>> for $option {
            fn from(items: Vec<S>) -> Self {
                Self::list(items.iter().map(|item| item.as_ref().to_owned()))
            }
        }

        impl<S: AsRef<str>> From<&[S]> for $option {
            fn from(items: &[S]) -> Self {
                Self::list(items.iter().map(|item| item.as_ref().to_owned()))
            }
        }

        $(
            impl From<$typed> for $option {
                fn from(item: $typed) -> Self {
                    Self::from([item])
                }
            }
        )?

        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $option {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                use $crate::list_option::StringOrList;
                Ok(match StringOrList::deserialize(deserializer)? {
                    $(StringOrList::String(s) if s == $word => $keyword,)*
                    StringOrList::String(s) => Self::from(s),
                    StringOrList::List(list) => Self::list(list),
                })
            }
        }
    };
}

pub(crate) use list_option;
