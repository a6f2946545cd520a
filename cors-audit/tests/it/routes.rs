//! `cors-audit --routes` and `--openapi`: every route of an application in one run, from the
//! route table it prints, its JSON form, or an OpenAPI document; per route, the findings.

use crate::api;
use crate::run;
use crate::servers;

use run::run_binary;
use servers::serve;

/// An application like the examples': CORS for the pages' origin with credentials, a feature
/// module under `/api` with path parameters and a wildcard, a route and a controller with CORS
/// switched off. `LeakyApp` is the same with one more route, misconfigured: it reflects any
/// origin with credentials.
mod app {
    use axum::extract::Path;
    use cors_axum::prelude::*;

    pub(crate) const PAGES: &str = "https://app.example";

    pub(crate) struct ItemsController;

    #[controller("items")]
    impl ItemsController {
        #[route("GET")]
        async fn list() -> &'static str {
            "[]"
        }

        #[route("GET", "{id}")]
        async fn one(Path(id): Path<u32>) -> String {
            format!("item {id}")
        }

        #[route("PUT", "{id}")]
        async fn replace(Path(id): Path<u32>) -> String {
            format!("replaced {id}")
        }

        /// Not for browsers on other origins.
        #[route("DELETE", "{id}", cors = false)]
        async fn remove(Path(id): Path<u32>) -> String {
            format!("removed {id}")
        }
    }

    pub(crate) struct FilesController;

    #[controller("files")]
    impl FilesController {
        #[route("GET", "{*rest}")]
        async fn file(Path(rest): Path<String>) -> String {
            format!("file {rest}")
        }
    }

    pub(crate) struct HealthController;

    #[controller(cors = false)]
    impl HealthController {
        #[route("GET", "health")]
        async fn health() -> &'static str {
            "ok"
        }
    }

    pub(crate) struct LeakyController;

    #[controller("items")]
    impl LeakyController {
        #[route(
            "GET",
            "{id}/owner",
            cors = CorsOptions::new().origin(AllowOrigin::mirror_request()).credentials(true)
        )]
        async fn owner(Path(id): Path<u32>) -> String {
            format!("owner of {id}")
        }
    }

    feature_module! {
        pub(crate) struct ItemsModule {
            controllers: [ItemsController, FilesController],
        }
    }

    rest_root_module! {
        pub(crate) struct GoodApp {
            imports: [
                CorsModule::with_opts(CorsOptions::new().origin(PAGES).credentials(true)),
                Import::at("/api", ItemsModule),
            ],
            controllers: [HealthController],
        }
    }

    feature_module! {
        pub(crate) struct LeakyItemsModule {
            controllers: [ItemsController, FilesController, LeakyController],
        }
    }

    rest_root_module! {
        pub(crate) struct LeakyApp {
            imports: [
                CorsModule::with_opts(CorsOptions::new().origin(PAGES).credentials(true)),
                Import::at("/api", LeakyItemsModule),
            ],
            controllers: [HealthController],
        }
    }
}

/// A file in the temporary directory, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, contents: &str) -> Self {
        let path = std::env::temp_dir().join(format!("cors-audit-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        Self(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The routes of the report, as `METHOD PATH`.
fn audited(json: &serde_json::Value) -> Vec<String> {
    json["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["method"].as_str().unwrap(),
                r["path"].as_str().unwrap()
            )
        })
        .collect()
}

/// The routes of a table, less the generated `OPTIONS` ones, `HEAD` and `CONNECT`.
fn table_routes(table: &cors_axum::app::RouteTable) -> Vec<String> {
    table
        .iter()
        .filter(|r| !["OPTIONS", "HEAD", "CONNECT"].contains(&r.method().as_str()))
        .map(|r| format!("{} {}", r.method(), r.path()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_route_of_the_example_app() {
    let config = api::read_config(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/app/config.json"
    ))
    .unwrap();
    let reload = cors_axum::cors::CorsReload::new();
    let app = api::application(&config, &reload).build().unwrap();
    let table = app.routes().clone();
    let base = serve(app.into_router().with_state(api::AppState::default())).await;
    let file = TempFile::new("example-app-routes.txt", &table.to_string());

    // The origins and headers of examples/app/config.json.
    let mut args = vec![
        base.clone(),
        "--routes".to_owned(),
        file.path().to_owned(),
        "--origin".to_owned(),
        "http://localhost:8080".to_owned(),
        "--origin".to_owned(),
        "http://127.0.0.1:8080".to_owned(),
        "--header".to_owned(),
        "content-type".to_owned(),
        "--header".to_owned(),
        "authorization".to_owned(),
    ];
    let run = run_binary(&[&args[..], &["--json".to_owned()]].concat()).await;
    assert_eq!(run.code, 0, "{}", run.stdout);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(audited(&json), table_routes(&table));
    let routes = table_routes(&table).len();
    assert!(routes >= 5, "{table}");
    assert!(
        run.stderr.ends_with(&format!(
            "cors-audit: 0 findings (0 high, 0 medium, 0 low) on {routes} routes\n"
        )),
        "{}",
        run.stderr
    );

    // The same routes from the OpenAPI document the application serves, with the same result.
    let url = format!("{base}/openapi.json");
    let document = tokio::task::spawn_blocking(move || {
        ureq::get(&url)
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap()
    })
    .await
    .unwrap();
    let document = TempFile::new("example-app-openapi.json", &document);
    let mut from_document = args.clone();
    from_document[1] = "--openapi".to_owned();
    from_document[2] = document.path().to_owned();
    let run = run_binary(&[&from_document[..], &["--json".to_owned()]].concat()).await;
    assert_eq!(run.code, 0, "{}", run.stdout);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let (mut listed, mut printed) = (audited(&json), table_routes(&table));
    listed.sort();
    printed.sort();
    assert_eq!(listed, printed);
    assert!(
        run.stderr.ends_with(&format!(
            "cors-audit: 0 findings (0 high, 0 medium, 0 low) on {routes} routes\n"
        )),
        "{}",
        run.stderr
    );

    // With credentials too: the application protects `POST /session` from cross-site forms.
    args.push("--credentials".to_owned());
    let run = run_binary(&[&args[..], &["--json".to_owned()]].concat()).await;
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let findings: Vec<(String, String)> = json["routes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            r["findings"].as_array().unwrap().iter().map(move |f| {
                (
                    format!(
                        "{} {}",
                        r["method"].as_str().unwrap(),
                        r["path"].as_str().unwrap()
                    ),
                    f["kind"].as_str().unwrap().to_owned(),
                )
            })
        })
        .collect();
    assert_eq!(findings, [], "{}", run.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_of_modules_and_one_misconfigured_route() {
    let good = app::GoodApp::routes().unwrap();
    let good_base = serve(app::GoodApp::router().unwrap()).await;
    let good_file = TempFile::new("good-routes.txt", &good.to_string());
    let run = run_binary(&[
        good_base.as_str(),
        "--routes",
        good_file.path(),
        "--origin",
        app::PAGES,
        "--credentials",
        "--json",
    ])
    .await;
    assert_eq!(run.code, 0, "{}", run.stdout);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(audited(&json), table_routes(&good));
    for expected in [
        "GET /api/items/{id}",
        "DELETE /api/items/{id}",
        "GET /api/files/{*rest}",
        "GET /health",
    ] {
        assert!(audited(&json).contains(&expected.to_owned()), "{expected}");
    }
    let delete = &json["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["method"] == "DELETE")
        .unwrap();
    assert_eq!(
        delete["cors"],
        serde_json::Value::Null,
        "`off (route)`: no CORS"
    );
    assert!(delete["url"].as_str().unwrap().ends_with("/api/items/1"));

    let leaky = app::LeakyApp::routes().unwrap();
    let leaky_base = serve(app::LeakyApp::router().unwrap()).await;
    let leaky_file = TempFile::new("leaky-routes.txt", &leaky.to_string());
    let run = run_binary(&[
        leaky_base.as_str(),
        "--routes",
        leaky_file.path(),
        "--origin",
        app::PAGES,
        "--credentials",
    ])
    .await;
    assert_eq!(run.code, 1, "{}", run.stdout);
    let text = run.stdout;
    let leaking = text
        .split("\n== ")
        .skip(1)
        .filter(|section| !section.contains("no misconfiguration found"))
        .map(|section| section.lines().next().unwrap_or(""))
        .collect::<Vec<_>>();
    assert_eq!(leaking.len(), 1, "{text}");
    assert!(
        leaking[0].starts_with("GET /api/items/{id}/owner (")
            && leaking[0].ends_with(", CORS: LeakyApp + route"),
        "{}",
        leaking[0]
    );
    assert!(text.contains("high   arbitrary-origin-reflected"), "{text}");
    assert!(
        text.ends_with(&format!(
            "cors-audit: 1 finding (1 high, 0 medium, 0 low) on {} routes\n",
            table_routes(&leaky).len()
        )),
        "{text}"
    );
}

/// The JSON form of a route table, as `RouteTable::to_json()` writes it.
fn table_json(table: &cors_axum::app::RouteTable) -> String {
    let routes: Vec<serde_json::Value> = table
        .iter()
        .map(|r| {
            serde_json::json!({
                "method": r.method().as_str(),
                "path": r.path(),
                "module": r.module(),
                "controller": r.controller(),
                "handler": r.handler(),
                "cors": r.cors(),
                "generated": r.controller() == "CorsModule",
            })
        })
        .collect();
    serde_json::json!({ "routes": routes }).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_json_route_table_and_an_openapi_document() {
    let leaky = app::LeakyApp::routes().unwrap();
    let base = serve(app::LeakyApp::router().unwrap()).await;
    let file = TempFile::new("leaky-routes.json", &table_json(&leaky));
    let run = run_binary(&[
        base.as_str(),
        "--routes",
        file.path(),
        "--origin",
        app::PAGES,
        "--sarif",
        "-",
    ])
    .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let located: Vec<&str> = results
        .iter()
        .map(|r| {
            r["locations"][0]["logicalLocations"][0]["name"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(located, ["GET /api/items/{id}/owner"], "{}", run.stdout);
    // Located in the route table, where code scanning can show it; the URL is a property.
    let physical = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(physical["artifactLocation"]["uri"], file.path());
    assert_eq!(
        results[0]["properties"]["url"],
        format!("{base}/api/items/1/owner")
    );

    // The printed table: at the route's line.
    let text = leaky.to_string();
    let line = 1 + text
        .lines()
        .position(|l| l.contains("/api/items/{id}/owner") && !l.starts_with("OPTIONS"))
        .unwrap();
    let printed = TempFile::new("leaky-routes.txt", &text);
    let run = run_binary(&[
        base.as_str(),
        "--routes",
        printed.path(),
        "--origin",
        app::PAGES,
        "--sarif",
        "-",
    ])
    .await;
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let physical = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(physical["artifactLocation"]["uri"], printed.path());
    assert_eq!(physical["region"]["startLine"], line);

    // The same application described by an OpenAPI document: its routes have CORS.
    let openapi = serde_json::json!({
        "openapi": "3.1.0",
        "info": { "title": "items", "version": "1" },
        "paths": {
            "/api/items": { "get": { "operationId": "listItems" } },
            "/api/items/{id}": {
                "parameters": [{ "name": "id", "in": "path", "required": true }],
                "get": { "operationId": "getItem" },
                "put": { "operationId": "replaceItem" },
            },
            "/api/items/{id}/owner": { "get": { "operationId": "itemOwner" } },
        },
    });
    let file = TempFile::new("openapi.json", &openapi.to_string());
    let run = run_binary(&[
        base.as_str(),
        "--openapi",
        file.path(),
        "--origin",
        app::PAGES,
        "--json",
    ])
    .await;
    assert_eq!(run.code, 1, "{}", run.stdout);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let with_findings: Vec<String> = json["routes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["findings"].as_array().unwrap().is_empty())
        .map(|r| {
            format!(
                "{} {} ({})",
                r["method"].as_str().unwrap(),
                r["path"].as_str().unwrap(),
                r["handler"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(with_findings, ["GET /api/items/{id}/owner (itemOwner)"]);
    assert_eq!(audited(&json).len(), 4);

    let run = run_binary(&[
        base.as_str(),
        "--openapi",
        "/nonexistent/openapi.json",
        "--origin",
        app::PAGES,
    ])
    .await;
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("cors-audit: `--openapi /nonexistent/openapi.json`: "),
        "{}",
        run.stderr
    );
}
