//! What a route's types say for its operation, found at compile time with the probes of
//! [`needs`](crate::needs): `#[controller]` writes `(&&&&&Probe::<Type>::new())
//! .describe_argument(draft)` for each argument and `(&&&Probe::<Type>::new())
//! .describe_output(draft)` for the result. Method resolution takes the impl with the most references whose bounds the type meets, and the
//! do-nothing impl for `Probe<T>` when none does; without the `openapi` feature only those are
//! left.
//!
//! | argument | described as |
//! |---|---|
//! | `Path<T>`, `T: IntoParams` | its path parameters |
//! | `Path<T>`, `T: PartialSchema` (`u32`, `String`, ..) | the schema of the path's one parameter |
//! | `Path<(A, B)>` (up to four) | the schemas of the path's parameters, in order |
//! | `Query<T>`, `T: IntoParams` | its query parameters |
//! | `Json<T>`, `T: ToSchema` | the request body, `application/json` |
//!
//! (`Json<Vec<T>>` is a list of `T`, so that `T` is named among the components rather than
//! inlined.) Results `Json<T>` and `Result<Json<T>, E>` (`T: ToSchema`) are a `200` JSON response,
//! `String` and `&'static str` a `200` text response. With a status chosen by the handler,
//! `(StatusCode, Json<T>)`, `(StatusCode, String)`, `(StatusCode, &'static str)` (each also in
//! `Result<_, E>`) are the same body under `default`, and a bare `StatusCode` is a `default`
//! response without a body: the status is known only when the handler answers. Guards declare
//! their security schemes themselves ([`Guard::declare`](crate::app::Guard::declare)).

use super::draft::OperationDraft;
use crate::needs::Probe;

#[cfg(feature = "openapi")]
use axum::Json;
#[cfg(feature = "openapi")]
use axum::extract::{Path, Query};
#[cfg(feature = "openapi")]
use http::StatusCode;
#[cfg(feature = "openapi")]
use utoipa::openapi::path::ParameterIn;
#[cfg(feature = "openapi")]
use utoipa::{IntoParams, PartialSchema, ToSchema};

/// Describes a handler's argument: `Json<Vec<T>>` (with four references), `Path<T>` and
/// `Query<T>` of `IntoParams` types and `Json<T>` (three), `Path<T>` of one parameter (two),
/// `Path<(A, B, ..)>` (one); nothing for every other type.
pub trait DescribeArgument {
    /// Adds what the argument says to `draft`.
    fn describe_argument(&self, draft: &mut OperationDraft);
}

impl<T: ?Sized> DescribeArgument for Probe<T> {
    fn describe_argument(&self, _: &mut OperationDraft) {}
}

/// Describes a handler's result: a JSON list (with two references), a response with a known
/// body (one); nothing for every other type.
pub trait DescribeOutput {
    /// Adds the response to `draft`.
    fn describe_output(&self, draft: &mut OperationDraft);
}

impl<T: ?Sized> DescribeOutput for Probe<T> {
    fn describe_output(&self, _: &mut OperationDraft) {}
}

#[cfg(feature = "openapi")]
impl<T: ToSchema> DescribeArgument for &&&&Probe<Json<Vec<T>>> {
    fn describe_argument(&self, draft: &mut OperationDraft) {
        draft.json_body::<T>(true);
    }
}

#[cfg(feature = "openapi")]
impl<T: IntoParams> DescribeArgument for &&&Probe<Path<T>> {
    fn describe_argument(&self, draft: &mut OperationDraft) {
        draft.parameters(T::into_params(|| Some(ParameterIn::Path)));
    }
}

#[cfg(feature = "openapi")]
impl<T: IntoParams> DescribeArgument for &&&Probe<Query<T>> {
    fn describe_argument(&self, draft: &mut OperationDraft) {
        draft.parameters(T::into_params(|| Some(ParameterIn::Query)));
    }
}

#[cfg(feature = "openapi")]
impl<T: ToSchema> DescribeArgument for &&&Probe<Json<T>> {
    fn describe_argument(&self, draft: &mut OperationDraft) {
        draft.json_body::<T>(false);
    }
}

#[cfg(feature = "openapi")]
impl<T: PartialSchema> DescribeArgument for &&Probe<Path<T>> {
    fn describe_argument(&self, draft: &mut OperationDraft) {
        draft.path_schema(T::schema());
    }
}

/// `DescribeArgument` for `Path<(A, B, ..)>` of each arity.
#[cfg(feature = "openapi")]
macro_rules! describe_path_tuple {
    ($($name:ident)+) => {
        impl<$($name: PartialSchema),+> DescribeArgument for &Probe<Path<($($name,)+)>> {
            fn describe_argument(&self, draft: &mut OperationDraft) {
                $(draft.path_schema($name::schema());)+
            }
        }
    };
}

#[cfg(feature = "openapi")]
describe_path_tuple!(A B);
#[cfg(feature = "openapi")]
describe_path_tuple!(A B C);
#[cfg(feature = "openapi")]
describe_path_tuple!(A B C D);

#[cfg(feature = "openapi")]
impl<T: ToSchema> DescribeOutput for &&Probe<Json<Vec<T>>> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response::<T>("application/json", true);
    }
}

#[cfg(feature = "openapi")]
impl<T: ToSchema, E> DescribeOutput for &&Probe<Result<Json<Vec<T>>, E>> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response::<T>("application/json", true);
    }
}

#[cfg(feature = "openapi")]
impl<T: ToSchema> DescribeOutput for &Probe<Json<T>> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response::<T>("application/json", false);
    }
}

#[cfg(feature = "openapi")]
impl<T: ToSchema, E> DescribeOutput for &Probe<Result<Json<T>, E>> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response::<T>("application/json", false);
    }
}

#[cfg(feature = "openapi")]
impl DescribeOutput for &Probe<String> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response::<String>("text/plain; charset=utf-8", false);
    }
}

#[cfg(feature = "openapi")]
impl DescribeOutput for &Probe<&'static str> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response::<String>("text/plain; charset=utf-8", false);
    }
}

#[cfg(feature = "openapi")]
impl<T: ToSchema> DescribeOutput for &&Probe<(StatusCode, Json<Vec<T>>)> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response_with_status::<T>("application/json", true);
    }
}

#[cfg(feature = "openapi")]
impl<T: ToSchema, E> DescribeOutput for &&Probe<Result<(StatusCode, Json<Vec<T>>), E>> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response_with_status::<T>("application/json", true);
    }
}

#[cfg(feature = "openapi")]
impl<T: ToSchema> DescribeOutput for &Probe<(StatusCode, Json<T>)> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response_with_status::<T>("application/json", false);
    }
}

#[cfg(feature = "openapi")]
impl<T: ToSchema, E> DescribeOutput for &Probe<Result<(StatusCode, Json<T>), E>> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response_with_status::<T>("application/json", false);
    }
}

#[cfg(feature = "openapi")]
impl DescribeOutput for &Probe<(StatusCode, String)> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response_with_status::<String>("text/plain; charset=utf-8", false);
    }
}

#[cfg(feature = "openapi")]
impl DescribeOutput for &Probe<(StatusCode, &'static str)> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.response_with_status::<String>("text/plain; charset=utf-8", false);
    }
}

#[cfg(feature = "openapi")]
impl DescribeOutput for &Probe<StatusCode> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.status_only();
    }
}

#[cfg(feature = "openapi")]
impl<E> DescribeOutput for &Probe<Result<StatusCode, E>> {
    fn describe_output(&self, draft: &mut OperationDraft) {
        draft.status_only();
    }
}

#[cfg(all(test, feature = "openapi"))]
// The borrows pick the impl, as in the code `#[controller]` writes.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;

    #[derive(utoipa::IntoParams)]
    #[allow(dead_code)]
    struct Page {
        /// Which page.
        page: u32,
    }

    #[derive(utoipa::ToSchema)]
    #[allow(dead_code)]
    struct Item {
        name: String,
    }

    fn describe(describe: fn(&mut OperationDraft)) -> OperationDraft {
        let mut draft = OperationDraft::default();
        describe(&mut draft);
        draft
    }

    #[test]
    fn probes_describe_the_extractors_utoipa_can_and_skip_the_others() {
        let draft = describe(|draft| {
            (&&&&&Probe::<Query<Page>>::new()).describe_argument(draft);
            (&&&&&Probe::<Path<u32>>::new()).describe_argument(draft);
            (&&&&&Probe::<Path<(u32, String)>>::new()).describe_argument(draft);
            (&&&&&Probe::<Json<Item>>::new()).describe_argument(draft);
            (&&&&&Probe::<String>::new()).describe_argument(draft);
            (&&&&&Probe::<Query<Vec<u8>>>::new()).describe_argument(draft);
        });
        assert_eq!(draft.parameters.len(), 1);
        assert_eq!(draft.parameters[0].name, "page");
        assert!(draft.parameters[0].parameter_in == ParameterIn::Query);
        assert_eq!(
            draft.path_schemas.len(),
            3,
            "one for Path<u32>, two for the pair"
        );
        assert!(draft.request_body.is_some());
        assert!(draft.schemas.iter().any(|(name, _)| name == "Item"));
    }

    #[test]
    fn results_with_a_known_body_are_a_success_response() {
        let output = |describe_output: fn(&mut OperationDraft)| {
            let draft = describe(describe_output);
            let response = draft
                .response
                .map(|(_, r)| serde_json::to_value(r).unwrap());
            (response, draft.schemas.len())
        };
        let (json, schemas) =
            output(|draft| (&&&Probe::<Result<Json<Item>, ()>>::new()).describe_output(draft));
        let json = json.unwrap();
        assert_eq!(
            json["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/Item"
        );
        assert_eq!(schemas, 1);
        let (list, _) = output(|draft| (&&&Probe::<Json<Vec<Item>>>::new()).describe_output(draft));
        let items = &list.unwrap()["content"]["application/json"]["schema"]["items"];
        assert_eq!(items["$ref"], "#/components/schemas/Item");
        let (text, _) = output(|draft| (&&&Probe::<&'static str>::new()).describe_output(draft));
        assert!(text.unwrap()["content"]["text/plain; charset=utf-8"].is_object());
        assert_eq!(
            output(|draft| (&&&Probe::<Vec<u8>>::new()).describe_output(draft)).0,
            None
        );
    }

    #[test]
    fn results_with_a_status_are_the_same_body_under_default() {
        let status = |describe_output: fn(&mut OperationDraft)| {
            let (status, response) = describe(describe_output).response.unwrap();
            (status, serde_json::to_value(response).unwrap())
        };
        let (key, json) =
            status(|d| (&&&Probe::<(StatusCode, Json<Item>)>::new()).describe_output(d));
        assert_eq!(key, "default");
        assert_eq!(
            json["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/Item"
        );
        let (key, json) = status(|d| {
            (&&&Probe::<Result<(StatusCode, Json<Vec<Item>>), String>>::new()).describe_output(d)
        });
        assert_eq!(key, "default");
        let items = &json["content"]["application/json"]["schema"]["items"];
        assert_eq!(items["$ref"], "#/components/schemas/Item");
        for text in [
            status(|d| (&&&Probe::<(StatusCode, String)>::new()).describe_output(d)),
            status(|d| (&&&Probe::<(StatusCode, &'static str)>::new()).describe_output(d)),
        ] {
            assert_eq!(text.0, "default");
            assert!(text.1["content"]["text/plain; charset=utf-8"].is_object());
        }
        for bare in [
            status(|d| (&&&Probe::<StatusCode>::new()).describe_output(d)),
            status(|d| (&&&Probe::<Result<StatusCode, String>>::new()).describe_output(d)),
        ] {
            assert_eq!(bare.0, "default");
            assert!(bare.1.get("content").is_none(), "no body: {}", bare.1);
        }
    }
}
