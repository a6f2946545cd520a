//! The document: the routes an `OpenapiModule` covers, as an OpenAPI 3.1 document.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use http::Method;
use utoipa::openapi::path::{HttpMethod, Operation, Parameter, ParameterIn, PathItem};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::tag::Tag;
use utoipa::openapi::{Components, Deprecated, Info, OpenApi, Paths, RefOr, Required, Response};

use super::module::OpenapiModuleWith;
use crate::describe::draft::{Describe, Details, OperationDraft, RouteDoc};
use crate::guard::GuardDeclaration;
use crate::methods::method_rank;

/// What a document is made from, handed over by the walk once the modules it covers are
/// walked: plain data and function pointers, so that it is made only when first requested.
pub(crate) struct DocumentSource {
    pub(crate) settings: OpenapiModuleWith,
    /// The importing module's name: the title unless the settings give an `Info`.
    pub(crate) module: &'static str,
    pub(crate) routes: Vec<DocumentedRoute>,
    /// For each module covered, the descriptions of its guards and of the guards of the
    /// modules importing it.
    pub(crate) module_guards: Vec<Vec<Describe>>,
}

/// One route, as the document needs it.
pub(crate) struct DocumentedRoute {
    /// The full path, in axum's syntax.
    pub(crate) path: Cow<'static, str>,
    pub(crate) method: Method,
    /// An index of [`DocumentSource::module_guards`].
    pub(crate) module: usize,
    pub(crate) controller: &'static str,
    pub(crate) handler: &'static str,
    pub(crate) doc: &'static RouteDoc,
    /// What the route's own guards and its controller's declare.
    pub(crate) guards: Vec<fn() -> GuardDeclaration>,
}

/// The operation ids given so far, and the components and tags met.
#[derive(Default)]
struct Collected {
    ids: OperationIds,
    components: Components,
    tags: Vec<String>,
}

/// The operation ids given so far, and the next suffix to try for each id asked for, so that a
/// handler met many times (a controller in many modules) gets its ids in one step each.
#[derive(Default)]
struct OperationIds {
    taken: HashSet<String>,
    next: HashMap<String, usize>,
}

impl OperationIds {
    /// `id` if it is not taken, else `id_2`, `id_3`.. the first that is not.
    fn unique(&mut self, id: String) -> String {
        let next = self.next.entry(id.clone()).or_insert(1);
        let mut candidate = id.clone();
        while self.taken.contains(&candidate) {
            *next += 1;
            candidate = format!("{id}_{next}");
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

impl DocumentSource {
    /// The document as JSON.
    pub(crate) fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(&self.document())
            .expect("an OpenAPI document is strings, numbers and maps with string keys")
    }

    /// The document.
    pub(crate) fn document(&self) -> OpenApi {
        let mut order: Vec<&DocumentedRoute> = self.routes.iter().collect();
        // Operation ids are given in this order: by path, then method, whatever order the
        // modules were declared in.
        order.sort_by(|a, b| {
            (&*a.path, method_rank(&a.method)).cmp(&(&*b.path, method_rank(&b.method)))
        });
        let mut collected = Collected::default();
        let mut paths = Paths::new();
        for route in order {
            // CONNECT has no place in an OpenAPI path item.
            let Some(method) = http_method(&route.method) else {
                continue;
            };
            let operation = self.operation(route, &mut collected);
            // Set in place: `Paths::add_path_operation` clones each operation.
            let item = paths.paths.entry(openapi_path(&route.path)).or_default();
            *slot(item, method) = Some(operation);
        }
        let info = self
            .settings
            .info
            .clone()
            .unwrap_or_else(|| Info::new(self.module, "0.0.0"));
        let mut document = OpenApi::new(info, paths);
        let Collected {
            components, tags, ..
        } = collected;
        if !components.schemas.is_empty() || !components.security_schemes.is_empty() {
            document.components = Some(components);
        }
        document.tags = Some(tags.iter().map(Tag::new).collect());
        self.settings.apply(&mut document);
        document
    }

    /// The operation of `route`: its draft, filled by its own description and its modules'
    /// guards, completed from what the route table knows.
    fn operation(&self, route: &DocumentedRoute, collected: &mut Collected) -> Operation {
        let mut draft = OperationDraft::default();
        (route.doc.details)(&mut draft);
        for describe in &self.module_guards[route.module] {
            describe(&mut draft);
        }
        for declaration in &route.guards {
            draft.guard(&declaration());
        }
        let (mut operation, tags) = match draft.details.take() {
            Some(Details { operation, tags }) => (operation, tags),
            None => (Operation::new(), Vec::new()),
        };
        let tags = if tags.is_empty() {
            vec![route.controller.to_owned()]
        } else {
            tags
        };
        for tag in &tags {
            if !collected.tags.contains(tag) {
                collected.tags.push(tag.clone());
            }
        }
        operation.tags = Some(tags);
        let doc = route.doc;
        if operation.summary.is_none() && !doc.summary.is_empty() {
            operation.summary = Some(doc.summary.to_owned());
        }
        if operation.description.is_none() && !doc.description.is_empty() {
            operation.description = Some(doc.description.to_owned());
        }
        if doc.deprecated {
            operation.deprecated = Some(Deprecated::True);
        }
        let id = operation
            .operation_id
            .take()
            .unwrap_or_else(|| format!("{}_{}", route.controller, route.handler));
        operation.operation_id = Some(collected.ids.unique(id));
        complete(
            &mut operation,
            draft,
            &route.path,
            &mut collected.components,
        );
        operation
    }
}

/// Completes `operation` with what the route's types say where `#[utoipa::path(..)]` did not
/// say it: parameters (every parameter of the path among them), request body, responses and
/// security; and adds what it references to `components`.
fn complete(
    operation: &mut Operation,
    draft: OperationDraft,
    path: &str,
    components: &mut Components,
) {
    let OperationDraft {
        parameters,
        path_schemas,
        request_body,
        response,
        security,
        schemas,
        ..
    } = draft;
    let mut all: Vec<RefOr<Parameter>> = operation.parameters.take().unwrap_or_default();
    let given = |all: &[RefOr<Parameter>], name: &str, place: &ParameterIn| {
        all.iter()
            .any(|p| matches!(p, RefOr::T(p) if p.name == name && p.parameter_in == *place))
    };
    for parameter in parameters {
        if !given(&all, &parameter.name, &parameter.parameter_in) {
            all.push(RefOr::T(parameter));
        }
    }
    for (i, (name, rest)) in path_parameters(path).enumerate() {
        if !given(&all, name, &ParameterIn::Path) {
            all.push(RefOr::T(path_parameter(name, path_schemas.get(i).cloned())));
        }
        if rest {
            describe_rest(&mut all, name);
        }
    }
    if !all.is_empty() {
        operation.parameters = Some(all);
    }
    if operation.request_body.is_none() {
        operation.request_body = request_body.map(RefOr::T);
    }
    complete_responses(&mut operation.responses.responses, response);
    if operation.security.is_none() && !security.is_empty() {
        let mut requirement = SecurityRequirement::default();
        for (name, _) in &security {
            requirement = requirement.add(*name, Vec::<String>::new());
        }
        operation.security = Some(vec![requirement]);
    }
    for (name, scheme) in security {
        let schemes = &mut components.security_schemes;
        schemes.entry(name.to_owned()).or_insert(RefOr::T(scheme));
    }
    for (name, schema) in schemas {
        components.schemas.entry(name).or_insert(schema);
    }
}

/// The responses: those `#[utoipa::path(..)]` lists, each success response among them without
/// a body given the body the result type describes (the status is the one thing a type cannot
/// say); else the response the result type describes, or an undescribed `default`.
fn complete_responses(
    responses: &mut BTreeMap<String, RefOr<Response>>,
    described: Option<(&'static str, Response)>,
) {
    if responses.is_empty() {
        let (status, response) = described.unwrap_or_else(|| {
            let undescribed = Response::new("The handler's response; not described");
            ("default", undescribed)
        });
        responses.insert(status.to_owned(), RefOr::T(response));
        return;
    }
    let Some((_, described)) = described.filter(|(_, r)| !r.content.is_empty()) else {
        return;
    };
    for (status, response) in responses.iter_mut() {
        if let RefOr::T(response) = response
            && response.content.is_empty()
            && has_body(status)
        {
            response.content = described.content.clone();
        }
    }
}

/// Whether a response of status `status` (`201`, `2XX`) is a success that has a body: not
/// `204 No Content` nor `205 Reset Content`.
fn has_body(status: &str) -> bool {
    status.starts_with('2') && status != "204" && status != "205"
}

/// Says what the catch-all parameter `name` (`{*name}` in axum) holds, unless its description is
/// given: OpenAPI has no catch-all, so it is a path parameter, whose value has no `/` unless
/// written `%2F`, which the server reads as `/`.
fn describe_rest(parameters: &mut [RefOr<Parameter>], name: &str) {
    let found = parameters.iter_mut().find_map(|p| match p {
        RefOr::T(p) if p.name == name && p.parameter_in == ParameterIn::Path => Some(p),
        _ => None,
    });
    if let Some(parameter) = found
        && parameter.description.is_none()
    {
        parameter.description = Some(REST_DESCRIPTION.to_owned());
    }
}

/// The description of a catch-all parameter.
const REST_DESCRIPTION: &str = "The rest of the path, one segment or more: the \
server matches everything after the prefix, `/` included. A path parameter of OpenAPI is one \
segment, so write a `/` inside the value as `%2F`: the server reads `a%2Fb` and `a/b` alike.";

/// A path parameter the route's types do not describe: a string unless `schema` is given.
fn path_parameter(name: &str, schema: Option<RefOr<utoipa::openapi::Schema>>) -> Parameter {
    let schema = schema.unwrap_or_else(|| ObjectBuilder::new().schema_type(Type::String).into());
    Parameter::builder()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .schema(Some(schema))
        .build()
}

/// The method in an OpenAPI path item; `None` for `CONNECT` and extension methods.
fn http_method(method: &Method) -> Option<HttpMethod> {
    Some(match *method {
        Method::GET => HttpMethod::Get,
        Method::POST => HttpMethod::Post,
        Method::PUT => HttpMethod::Put,
        Method::DELETE => HttpMethod::Delete,
        Method::OPTIONS => HttpMethod::Options,
        Method::HEAD => HttpMethod::Head,
        Method::PATCH => HttpMethod::Patch,
        Method::TRACE => HttpMethod::Trace,
        _ => return None,
    })
}

/// The operation of `method` in `item`.
fn slot(item: &mut PathItem, method: HttpMethod) -> &mut Option<Operation> {
    match method {
        HttpMethod::Get => &mut item.get,
        HttpMethod::Post => &mut item.post,
        HttpMethod::Put => &mut item.put,
        HttpMethod::Delete => &mut item.delete,
        HttpMethod::Options => &mut item.options,
        HttpMethod::Head => &mut item.head,
        HttpMethod::Patch => &mut item.patch,
        HttpMethod::Trace => &mut item.trace,
    }
}

/// The names of the parameters of an axum path, in order, each with whether it is the
/// catch-all: `{id}` and `{*rest}`; `{{` and `}}` are literal braces.
fn path_parameters(path: &str) -> impl Iterator<Item = (&str, bool)> {
    let mut rest = path;
    std::iter::from_fn(move || {
        loop {
            let start = rest.find('{')?;
            if rest[start..].starts_with("{{") {
                rest = &rest[start + 2..];
                continue;
            }
            let end = start + rest[start..].find('}')?;
            let name = &rest[start + 1..end];
            rest = &rest[end + 1..];
            return Some(match name.strip_prefix('*') {
                Some(rest) => (rest, true),
                None => (name, false),
            });
        }
    })
}

/// The path in OpenAPI's syntax: a catch-all `{*rest}` is the path parameter `{rest}`, which
/// [`describe_rest`] describes.
fn openapi_path(path: &str) -> String {
    path.replace("{*", "{")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parameters_are_read_in_order_wildcards_included_escapes_not() {
        let names: Vec<_> =
            path_parameters("/orgs/{org}/files/{{raw}}/v{version}/{*rest}").collect();
        assert_eq!(names, [("org", false), ("version", false), ("rest", true)]);
        assert_eq!(path_parameters("/plain").count(), 0);
        assert_eq!(openapi_path("/files/{*rest}"), "/files/{rest}");
    }

    #[test]
    fn operation_ids_are_made_unique() {
        let mut ids = OperationIds::default();
        let given: Vec<_> = [
            "A_get", "A_get_3", "A_get", "A_get", "A_get", "A_get_2", "B",
        ]
        .map(|id| ids.unique(id.to_owned()))
        .into();
        assert_eq!(
            given,
            [
                "A_get",
                "A_get_3",
                "A_get_2",
                "A_get_4",
                "A_get_5",
                "A_get_2_2",
                "B"
            ]
        );
    }
}
