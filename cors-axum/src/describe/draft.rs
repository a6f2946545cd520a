//! A route's documentation ([`RouteDoc`]), and the draft of its operation
//! ([`OperationDraft`]) that the probes and `#[utoipa::path(..)]` fill when a document is made.

#[cfg(feature = "openapi")]
use std::any::type_name;

#[cfg(feature = "openapi")]
use utoipa::openapi::path::{Operation, Parameter};
#[cfg(feature = "openapi")]
use utoipa::openapi::request_body::RequestBody;
#[cfg(feature = "openapi")]
use utoipa::openapi::schema::{ArrayBuilder, Schema, SchemaType, Type};
#[cfg(feature = "openapi")]
use utoipa::openapi::security::SecurityScheme;
#[cfg(feature = "openapi")]
use utoipa::openapi::{Content, Ref, RefOr, Required, Response};

#[cfg(feature = "openapi")]
use crate::guard::GuardDeclaration;

/// Fills the draft of a route's operation with what its argument, result and guard types and
/// its `#[utoipa::path(..)]` say.
pub(crate) type Describe = fn(&mut OperationDraft);

/// What a route says about itself: its handler's doc comment and [`Describe`] function. Empty
/// without the `openapi` feature.
#[derive(Clone, Copy)]
pub(crate) struct RouteDoc {
    /// The first paragraph of the handler's doc comment.
    #[cfg(feature = "openapi")]
    pub(crate) summary: &'static str,
    /// The rest of it.
    #[cfg(feature = "openapi")]
    pub(crate) description: &'static str,
    /// Whether the handler is `#[deprecated]`.
    #[cfg(feature = "openapi")]
    pub(crate) deprecated: bool,
    #[cfg(feature = "openapi")]
    pub(crate) details: Describe,
    /// `openapi = ..` of the route, else of its controller; `None` to follow its module.
    #[cfg(feature = "openapi")]
    pub(crate) listed: Option<bool>,
}

impl RouteDoc {
    /// The documentation the macros write; only a constant when the feature is off.
    pub(crate) const fn new(
        summary: &'static str,
        description: &'static str,
        deprecated: bool,
        details: Describe,
    ) -> Self {
        #[cfg(feature = "openapi")]
        return RouteDoc {
            summary,
            description,
            deprecated,
            details,
            listed: None,
        };
        #[cfg(not(feature = "openapi"))]
        {
            let _ = (summary, description, deprecated, details);
            RouteDoc {}
        }
    }

    /// Listed in OpenAPI documents or left out (`openapi = ..` of `#[route]` or
    /// `#[controller]`), whatever its module says.
    #[must_use]
    pub(crate) const fn listed(self, listed: bool) -> Self {
        #[cfg(feature = "openapi")]
        return RouteDoc {
            listed: Some(listed),
            ..self
        };
        #[cfg(not(feature = "openapi"))]
        {
            let _ = listed;
            self
        }
    }

    /// No documentation, for routes declared by hand (benchmarks, tests).
    pub(crate) const UNDOCUMENTED: RouteDoc = RouteDoc::new("", "", false, describe_nothing);
}

fn describe_nothing(_: &mut OperationDraft) {}

/// The operation of one route as its types and `#[utoipa::path(..)]` describe it, before the
/// document puts it under its full path.
#[derive(Default)]
pub struct OperationDraft {
    /// Named parameters: of `Path<T>` and `Query<T>` where `T: IntoParams`.
    #[cfg(feature = "openapi")]
    pub(crate) parameters: Vec<Parameter>,
    /// The schemas of `Path<T>` and `Path<(A, B, ..)>`, for the path's parameters in order.
    #[cfg(feature = "openapi")]
    pub(crate) path_schemas: Vec<RefOr<Schema>>,
    #[cfg(feature = "openapi")]
    pub(crate) request_body: Option<RequestBody>,
    /// The response the result type describes, under its status: `200`, or `default` where
    /// the handler chooses the status (`(StatusCode, Json<T>)`, `StatusCode`).
    #[cfg(feature = "openapi")]
    pub(crate) response: Option<(&'static str, Response)>,
    /// The security schemes of the guards, by name.
    #[cfg(feature = "openapi")]
    pub(crate) security: Vec<(&'static str, SecurityScheme)>,
    /// What `#[utoipa::path(..)]` gave.
    #[cfg(feature = "openapi")]
    pub(crate) details: Option<Details>,
    /// The named schemas referenced, for the document's components.
    #[cfg(feature = "openapi")]
    pub(crate) schemas: Vec<(String, RefOr<Schema>)>,
}

/// The operation and tags that `#[utoipa::path(..)]` gave.
#[cfg(feature = "openapi")]
pub(crate) struct Details {
    pub(crate) operation: Operation,
    pub(crate) tags: Vec<String>,
}

#[cfg(feature = "openapi")]
impl OperationDraft {
    pub(crate) fn parameters(&mut self, parameters: Vec<Parameter>) {
        self.parameters.extend(parameters);
    }

    pub(crate) fn path_schema(&mut self, schema: RefOr<Schema>) {
        self.path_schemas.push(schema);
    }

    /// A JSON request body of `T`, or of a list of `T`.
    pub(crate) fn json_body<T: utoipa::ToSchema>(&mut self, list: bool) {
        let schema = self.schema_of::<T>(list);
        let body = RequestBody::builder()
            .content("application/json", Content::new(Some(schema)))
            .required(Some(Required::True))
            .build();
        self.request_body = Some(body);
    }

    /// A success response of `T`, or of a list of `T`.
    pub(crate) fn response<T: utoipa::ToSchema>(&mut self, content_type: &str, list: bool) {
        let schema = self.schema_of::<T>(list);
        let response = Response::builder()
            .description("Success")
            .content(content_type, Content::new(Some(schema)))
            .build();
        self.response = Some(("200", response));
    }

    /// A response of `T` (or of a list of `T`) whose status the handler chooses, as with
    /// `(StatusCode, Json<T>)`: listed as `default`, since the status is known only when the
    /// handler answers.
    pub(crate) fn response_with_status<T: utoipa::ToSchema>(
        &mut self,
        content_type: &str,
        list: bool,
    ) {
        let schema = self.schema_of::<T>(list);
        let response = Response::builder()
            .description("The response, with the status the handler chooses")
            .content(content_type, Content::new(Some(schema)))
            .build();
        self.response = Some(("default", response));
    }

    /// A response without a body whose status the handler chooses: a bare `StatusCode`.
    pub(crate) fn status_only(&mut self) {
        let response = Response::new("No body, with the status the handler chooses");
        self.response = Some(("default", response));
    }

    /// The security schemes a guard declares.
    pub(crate) fn guard(&mut self, declaration: &GuardDeclaration) {
        for (name, scheme) in &declaration.security {
            if !self.security.iter().any(|(known, _)| known == name) {
                self.security.push((*name, scheme.clone()));
            }
        }
    }

    /// Takes what `#[utoipa::path(..)]` on function `function` gave: its operation, tags and
    /// the schemas it references.
    pub fn details<P>(&mut self, function: &str)
    where
        P: utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>,
    {
        let mut operation = P::operation();
        // Named after the generated function unless given: the document names it instead.
        if operation.operation_id.as_deref() == Some(function) {
            operation.operation_id = None;
        }
        P::schemas(&mut self.schemas);
        let tags = P::tags().into_iter().map(str::to_owned).collect();
        self.details = Some(Details { operation, tags });
    }

    /// The schema of `T` (or of a list of `T`): a reference to it among the components when
    /// it is a named type of its own (a struct, an enum), inline otherwise (`u32`, `String`,
    /// `Option<T>`).
    fn schema_of<T: utoipa::ToSchema>(&mut self, list: bool) -> RefOr<Schema> {
        T::schemas(&mut self.schemas);
        let mut schema = T::schema();
        if is_named(&schema) && !type_name::<T>().contains('<') {
            let name = T::name().into_owned();
            self.schemas.push((name.clone(), schema));
            schema = RefOr::Ref(Ref::from_schema_name(name));
        }
        if list {
            schema = ArrayBuilder::new().items(schema).into();
        }
        schema
    }
}

/// Whether `schema` is a type of its own rather than a primitive or a container.
#[cfg(feature = "openapi")]
fn is_named(schema: &RefOr<Schema>) -> bool {
    match schema {
        RefOr::T(Schema::Object(object)) => {
            object.schema_type == SchemaType::Type(Type::Object) || object.enum_values.is_some()
        }
        RefOr::T(Schema::OneOf(_) | Schema::AllOf(_) | Schema::AnyOf(_)) => true,
        _ => false,
    }
}

/// Runs `#[utoipa::path(..)]` on a function of its own, `$function`, with the method and path
/// of the route it was written on, and hands its operation to `$draft`: `#[controller]` writes
/// it for a method with `#[utoipa::path(..)]`, inside the route's `Describe` function.
#[cfg(feature = "openapi")]
#[doc(hidden)]
#[macro_export]
macro_rules! __route_operation {
    ($draft:ident, $function:ident, $path_struct:ident, $method:ident, $path:literal, ($($details:tt)*)) => {
        use $crate::__private::utoipa;
        #[utoipa::path($method, path = $path, $($details)*)]
        #[allow(dead_code, non_snake_case, clippy::all)]
        fn $function() {}
        $draft.details::<$path_struct>(::core::stringify!($function));
    };
}

/// Without the `openapi` feature, the details are not read.
#[cfg(not(feature = "openapi"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __route_operation {
    ($($details:tt)*) => {};
}
