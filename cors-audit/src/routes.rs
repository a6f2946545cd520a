//! The routes to audit, read from the route table cors-axum prints (`RouteTable`'s `Display`,
//! or its JSON form) or from an OpenAPI document.

use http::Method;
use serde::{Deserialize, Serialize};

use crate::config::AuditError;

/// The most routes one audit takes: each costs some fifty requests.
pub const MAX_ROUTES: usize = 5000;

/// What stands for a path parameter `{name}`, and for a wildcard `{*rest}`, in the URL probed.
const SAMPLE_PARAMETER: &str = "1";
const SAMPLE_SEGMENT: &str = "cors-audit";

/// A route to audit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Route {
    /// The method.
    #[serde(serialize_with = "method_name")]
    pub method: Method,
    /// The path, with its parameters: `/items/{id}`.
    pub path: String,
    /// Where the route's CORS comes from, as the route table says (`AppModule`,
    /// `AppModule + route`), or `assumed` for a route of an OpenAPI document. `None`: the
    /// route has no CORS, so no origin should be granted.
    pub cors: Option<String>,
    /// The handler, when the route table names it (`ItemsController::get`, or an OpenAPI
    /// `operationId`).
    pub handler: Option<String>,
    /// The route's line in the printed route table (from 1), to point at it.
    pub line: Option<usize>,
}

fn method_name<S: serde::Serializer>(method: &Method, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(method.as_str())
}

impl Route {
    /// The URL probed: `base` joined with the path, a sample value in each parameter
    /// (`/items/{id}` → `/items/1`, `/files/{*rest}` → `/files/cors-audit`).
    pub fn url(&self, base: &str) -> String {
        let mut url = base.trim_end_matches('/').to_owned();
        if !self.path.starts_with('/') {
            url.push('/');
        }
        let mut rest = self.path.as_str();
        while let Some(open) = rest.find('{') {
            url.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}') else {
                rest = &rest[open..];
                break;
            };
            let name = &rest[open + 1..open + close];
            url.push_str(if name.starts_with('*') {
                SAMPLE_SEGMENT
            } else {
                SAMPLE_PARAMETER
            });
            rest = &rest[open + close + 1..];
        }
        url.push_str(rest);
        url
    }

    /// `GET /items/{id}`.
    pub fn label(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// The routes of a route table, as cors-axum's `RouteTable` prints it (its `Display`) or
/// writes it as JSON (`{"routes":[{"method":..,"path":..,"cors":..,"generated":..}]}`),
/// told apart by the first character. Generated `OPTIONS` routes are left out, as are `HEAD`
/// and `OPTIONS` routes generally: the preflights of the path's other routes probe them; and
/// `CONNECT` routes, HTTP/2 WebSocket handshakes, which no page sends with `fetch()` (the
/// WebSocket check of the path's `GET` route probes the handshake).
///
/// ```
/// let table = "\
/// METHOD   PATH         MODULE     CORS               HANDLER
/// OPTIONS  /items/{id}  AppModule  AppModule          CorsModule::options
/// GET      /items/{id}  AppModule  AppModule + route  ItemsController::get
/// POST     /session     AppModule  off (route)        SessionController::login
/// ";
/// let routes = cors_audit::parse_route_table(table)?;
/// assert_eq!(routes.len(), 2);
/// assert_eq!(routes[0].url("http://127.0.0.1:3000"), "http://127.0.0.1:3000/items/1");
/// assert_eq!(routes[0].cors.as_deref(), Some("AppModule + route"));
/// assert_eq!(routes[1].cors, None, "no CORS: no origin should be granted");
/// # Ok::<(), cors_audit::AuditError>(())
/// ```
pub fn parse_route_table(text: &str) -> Result<Vec<Route>, AuditError> {
    let routes = if text.trim_start().starts_with('{') {
        from_json(text)?
    } else {
        from_text(text)?
    };
    checked(routes, "route table")
}

fn checked(routes: Vec<Route>, what: &str) -> Result<Vec<Route>, AuditError> {
    if routes.is_empty() {
        return Err(AuditError::InvalidRoutes(format!(
            "the {what} lists no route to audit"
        )));
    }
    if routes.len() > MAX_ROUTES {
        return Err(AuditError::InvalidRoutes(format!(
            "the {what} lists {} routes, more than {MAX_ROUTES}; audit it in parts",
            routes.len()
        )));
    }
    Ok(routes)
}

fn audited(method: &Method) -> bool {
    !matches!(*method, Method::OPTIONS | Method::HEAD | Method::CONNECT)
}

fn parse_method(text: &str, line: usize) -> Result<Method, AuditError> {
    Method::from_bytes(text.as_bytes()).map_err(|_| {
        AuditError::InvalidRoutes(format!(
            "route table, line {line}: `{text}` is not an HTTP method"
        ))
    })
}

/// The columns of a line of the printed table: separated by two or more spaces.
fn columns(line: &str) -> Vec<&str> {
    line.trim()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

/// The printed table: a header line (`METHOD  PATH  MODULE  CORS  HANDLER`), then one route a
/// line. Lines before the header (logs) are skipped; the table ends at a blank line or one
/// that does not start with a method.
fn from_text(text: &str) -> Result<Vec<Route>, AuditError> {
    let mut lines = text.lines().enumerate();
    let header = lines
        .by_ref()
        .map(|(_, line)| columns(line))
        .find(|c| c.first() == Some(&"METHOD") && c.contains(&"PATH"))
        .ok_or_else(|| {
            AuditError::InvalidRoutes(
                "the route table has no header line `METHOD  PATH  MODULE  CORS  HANDLER`; give the \
                 text `RouteTable` prints, or its JSON form"
                    .to_owned(),
            )
        })?;
    let at = |name: &str| header.iter().position(|c| *c == name);
    let (method_at, path_at) = (at("METHOD"), at("PATH"));
    let (cors_at, handler_at) = (at("CORS"), at("HANDLER"));
    let mut routes = Vec::new();
    for (index, line) in lines {
        let fields = columns(line);
        let starts_with_method = fields.first().is_some_and(|m| {
            !m.is_empty() && m.bytes().all(|b| b.is_ascii_uppercase() || b == b'-')
        });
        if !starts_with_method {
            break;
        }
        let line_number = index + 1;
        if fields.len() != header.len() {
            return Err(AuditError::InvalidRoutes(format!(
                "route table, line {line_number}: {} columns where the header has {} ({}); columns \
                 are separated by two or more spaces",
                fields.len(),
                header.len(),
                header.join(", ")
            )));
        }
        let field = |at: Option<usize>| at.map(|i| fields[i]);
        let method = parse_method(field(method_at).unwrap_or_default(), line_number)?;
        let handler = field(handler_at).map(str::to_owned);
        if !audited(&method) {
            continue;
        }
        let cors = match field(cors_at) {
            Some(c) if c == "-" || c.starts_with("off") => None,
            Some(c) => Some(c.to_owned()),
            None => Some("assumed".to_owned()),
        };
        routes.push(Route {
            method,
            path: field(path_at).unwrap_or("/").to_owned(),
            cors,
            handler,
            line: Some(line_number),
        });
    }
    Ok(routes)
}

#[derive(Deserialize)]
struct JsonTable {
    routes: Vec<JsonRoute>,
}

#[derive(Deserialize)]
struct JsonRoute {
    method: String,
    path: String,
    #[serde(default)]
    controller: Option<String>,
    #[serde(default)]
    handler: Option<String>,
    #[serde(default)]
    cors: Option<String>,
    #[serde(default)]
    generated: bool,
}

/// `RouteTable::to_json()`; unknown keys are ignored.
fn from_json(text: &str) -> Result<Vec<Route>, AuditError> {
    let table: JsonTable = serde_json::from_str(text).map_err(|e| {
        AuditError::InvalidRoutes(format!(
            "the route table is not the JSON `RouteTable` writes \
             (`{{\"routes\":[{{\"method\":\"GET\",\"path\":\"/items\",\"cors\":\"AppModule\",..}}]}}`): {e}"
        ))
    })?;
    let mut routes = Vec::new();
    for (i, row) in table.routes.into_iter().enumerate() {
        let method = Method::from_bytes(row.method.as_bytes()).map_err(|_| {
            AuditError::InvalidRoutes(format!(
                "route table, route {}: `{}` is not an HTTP method",
                i + 1,
                row.method
            ))
        })?;
        if row.generated || !audited(&method) {
            continue;
        }
        let handler = match (row.controller, row.handler) {
            (Some(controller), Some(handler)) => Some(format!("{controller}::{handler}")),
            (controller, handler) => handler.or(controller),
        };
        routes.push(Route {
            method,
            path: row.path,
            cors: row.cors,
            handler,
            line: None,
        });
    }
    Ok(routes)
}

/// The operations of an OpenAPI 3.0 or 3.1 document in JSON (its `paths`: path → method →
/// operation), each a route whose CORS is assumed to be the declared policy's. Unknown keys
/// are ignored; `HEAD`, `OPTIONS` and `TRACE` operations are left out.
pub fn parse_openapi(text: &str) -> Result<Vec<Route>, AuditError> {
    let document: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        AuditError::InvalidRoutes(format!(
            "the OpenAPI document is not JSON ({e}); convert a YAML document to JSON first"
        ))
    })?;
    let paths = document
        .get("paths")
        .and_then(serde_json::Value::as_object)
        .ok_or_else(|| {
            AuditError::InvalidRoutes(
                "the OpenAPI document has no `paths` object; give an OpenAPI 3 document".to_owned(),
            )
        })?;
    let mut routes = Vec::new();
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for (key, operation) in item {
            let method = match key.as_str() {
                "get" => Method::GET,
                "post" => Method::POST,
                "put" => Method::PUT,
                "patch" => Method::PATCH,
                "delete" => Method::DELETE,
                _ => continue,
            };
            if !operation.is_object() {
                continue;
            }
            let handler = operation
                .get("operationId")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned);
            routes.push(Route {
                method,
                path: path.clone(),
                cors: Some("assumed".to_owned()),
                handler,
                line: None,
            });
        }
    }
    checked(routes, "OpenAPI document")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "\
2026-01-01T00:00:00Z  INFO app: starting
METHOD   PATH              MODULE     CORS                HANDLER
OPTIONS  /items            AppModule  AppModule           CorsModule::options
GET      /items            AppModule  AppModule           ItemsController::list
GET      /items/{id}       AppModule  AppModule + route   ItemsController::get
POST     /session          AppModule  off (route)         SessionController::login
GET      /health           AppModule  -                   HealthController::health
GET      /files/{*rest}    AppModule  AppModule + controller  FilesController::get

listening on http://127.0.0.1:3000
";

    #[test]
    fn the_printed_table() {
        let routes = parse_route_table(TABLE).unwrap();
        let summary: Vec<(String, Option<&str>, Option<&str>)> = routes
            .iter()
            .map(|r| (r.label(), r.cors.as_deref(), r.handler.as_deref()))
            .collect();
        assert_eq!(
            summary,
            [
                (
                    "GET /items".to_owned(),
                    Some("AppModule"),
                    Some("ItemsController::list")
                ),
                (
                    "GET /items/{id}".to_owned(),
                    Some("AppModule + route"),
                    Some("ItemsController::get")
                ),
                (
                    "POST /session".to_owned(),
                    None,
                    Some("SessionController::login")
                ),
                (
                    "GET /health".to_owned(),
                    None,
                    Some("HealthController::health")
                ),
                (
                    "GET /files/{*rest}".to_owned(),
                    Some("AppModule + controller"),
                    Some("FilesController::get")
                ),
            ]
        );
        assert_eq!(
            routes[1].url("http://127.0.0.1:3000/"),
            "http://127.0.0.1:3000/items/1"
        );
        assert_eq!(
            routes[4].url("http://127.0.0.1:3000"),
            "http://127.0.0.1:3000/files/cors-audit"
        );
    }

    #[test]
    fn a_broken_row_is_named_by_its_line() {
        let text =
            "METHOD  PATH  MODULE  CORS  HANDLER\nGET  /items  AppModule  ItemsController::list\n";
        let error = parse_route_table(text).unwrap_err().to_string();
        assert!(
            error.starts_with("route table, line 2: 4 columns where the header has 5"),
            "{error}"
        );
        let error = parse_route_table("GET /items\n").unwrap_err().to_string();
        assert!(error.contains("no header line"), "{error}");
        let error = parse_route_table("METHOD  PATH\n").unwrap_err().to_string();
        assert!(error.contains("lists no route"), "{error}");
    }

    #[test]
    fn the_json_form() {
        let json = r#"{"routes":[
            {"method":"OPTIONS","path":"/items/{id}","module":"AppModule","controller":"CorsModule","handler":"options","cors":"AppModule","generated":true},
            {"method":"GET","path":"/items/{id}","module":"AppModule","controller":"ItemsController","handler":"get","cors":"AppModule","generated":false},
            {"method":"POST","path":"/session","module":"AppModule","controller":"SessionController","handler":"login","cors":null,"generated":false,"future":[1,2]}
        ]}"#;
        let routes = parse_route_table(json).unwrap();
        assert_eq!(routes.len(), 2);
        assert_eq!(routes[0].label(), "GET /items/{id}");
        assert_eq!(routes[0].cors.as_deref(), Some("AppModule"));
        assert_eq!(routes[0].handler.as_deref(), Some("ItemsController::get"));
        assert_eq!(routes[1].cors, None);
        let error = parse_route_table(r#"{"routes":[{"path":"/x"}]}"#)
            .unwrap_err()
            .to_string();
        assert!(error.contains("missing field `method`"), "{error}");
    }

    #[test]
    fn an_openapi_document() {
        let json = r##"{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{
            "/items":{"get":{"operationId":"listItems"},"post":{},"parameters":[],"summary":"x"},
            "/items/{id}":{"delete":{},"head":{},"$ref":"#/x"}
        }}"##;
        let routes = parse_openapi(json).unwrap();
        let labels: Vec<String> = routes.iter().map(Route::label).collect();
        assert_eq!(labels, ["GET /items", "POST /items", "DELETE /items/{id}"]);
        assert_eq!(routes[0].handler.as_deref(), Some("listItems"));
        assert!(
            parse_openapi("openapi: 3.1.0")
                .unwrap_err()
                .to_string()
                .contains("YAML")
        );
        assert!(
            parse_openapi("{}")
                .unwrap_err()
                .to_string()
                .contains("no `paths`")
        );
    }
}
