//! The servers of a scenario, the page that runs its cases, and what the page reports.

use axum::Router;
use axum::http::StatusCode;
use axum::response::Html;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::browser::engine::Scheme;
use crate::browser::tls::{TlsListener, certificate};

/// The token of the example application in the browser tests.
pub(crate) const APP_TOKEN: &str = "browser-test-token";

/// Serves `router` on `127.0.0.1`, on a port the system picks, over `scheme`; returns the port.
pub(crate) async fn serve(router: Router, scheme: Scheme) -> u16 {
    let service = router.into_make_service();
    match scheme {
        Scheme::Http => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind 127.0.0.1:0");
            let port = listener.local_addr().expect("local address").port();
            tokio::spawn(async move { axum::serve(listener, service).await });
            port
        }
        Scheme::Https => {
            let listener = TlsListener::bind(certificate()).await;
            let port = axum::serve::Listener::local_addr(&listener)
                .expect("local address")
                .port();
            tokio::spawn(async move { axum::serve(listener, service).await });
            port
        }
    }
}

/// The page of the scenarios; `__CONFIG__` becomes `{"api": .., "cases": [..]}`.
const PAGE: &str = r#"<!doctype html>
<meta charset="utf-8">
<title>cors-axum browser test</title>
<pre id="out">running</pre>
<script>
const CONFIG = __CONFIG__;
const READ = ['content-type', 'x-request-id', 'x-internal', 'access-control-allow-origin', 'location',
  'www-authenticate'];
const BEARER = { Authorization: 'Bearer ' + CONFIG.token };
const JSON_TYPE = { 'Content-Type': 'application/json' };

async function call(path, init) {
  try {
    const response = await fetch(CONFIG.api + path, init || {});
    const headers = {};
    for (const name of READ) headers[name] = response.headers.get(name);
    const body = (await response.text()).trim();
    return { outcome: 'ok', status: response.status, body, headers };
  } catch (error) {
    return { outcome: 'blocked', error: String(error) };
  }
}

// A form posted into a hidden frame, as a forging page would: resolves once the frame shows a
// document of another origin (the answer, which script cannot read whatever its status), or
// after 10 s. The frame's first document, `about:blank`, is of the page's origin.
function submitForm(path) {
  return new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.name = 'sink-' + path;
    frame.hidden = true;
    document.body.appendChild(frame);
    const timer = setTimeout(() => resolve({ outcome: 'timeout' }), 10000);
    frame.addEventListener('load', () => {
      try {
        frame.contentWindow.location.href;
        return;
      } catch (e) {
        clearTimeout(timer);
        resolve({ outcome: 'navigated' });
      }
    });
    const form = document.createElement('form');
    form.method = 'post';
    form.action = CONFIG.api + path;
    form.target = frame.name;
    const field = document.createElement('input');
    field.name = 'amount';
    field.value = '100';
    form.appendChild(field);
    document.body.appendChild(form);
    form.submit();
  });
}

// A `no-cors` POST: sent without a preflight, answered with an opaque response.
async function noCors(path) {
  try {
    const response = await fetch(CONFIG.api + path, {
      method: 'POST',
      mode: 'no-cors',
      body: new URLSearchParams({ amount: '100' }),
    });
    return { outcome: 'ok', type: response.type, status: response.status };
  } catch (error) {
    return { outcome: 'blocked', error: String(error) };
  }
}

// A WebSocket to the API: sends one message and waits for its echo. Every event script sees is
// listed; a socket that closes without opening is `refused`; 10 s without either, `timeout`.
function socket(path, message) {
  return new Promise((resolve) => {
    const events = [];
    const done = (result) => {
      clearTimeout(timer);
      resolve({ ...result, events: events.slice() });
    };
    const timer = setTimeout(() => done({ outcome: 'timeout' }), 10000);
    const ws = new WebSocket(CONFIG.api.replace(/^http/, 'ws') + path);
    ws.onopen = () => {
      events.push('open');
      ws.send(message);
    };
    ws.onmessage = (m) => {
      events.push('message');
      done({ outcome: 'open', echo: String(m.data) });
      ws.close(1000);
    };
    ws.onerror = () => events.push('error');
    ws.onclose = (c) => {
      events.push('close ' + c.code);
      if (!events.includes('open')) done({ outcome: 'refused', code: c.code, clean: c.wasClean });
    };
  });
}

const CASES = {
  simple_get: () => call('/items'),
  preflight_post: () => call('/items?case=post', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-PINGOTHER': 'pingpong' },
    body: '{"name":"widget"}',
  }),
  put: () => call('/items?case=put', { method: 'PUT', headers: JSON_TYPE, body: '{"name":"gadget"}' }),
  patch: () => call('/items?case=patch', { method: 'PATCH', headers: JSON_TYPE, body: '{"name":"gizmo"}' }),
  delete: () => call('/items?case=delete', { method: 'DELETE' }),
  method_not_allowed: () => call('/session?case=put', { method: 'PUT' }),
  header_not_allowed: () => call('/items?case=bad-header', { method: 'POST', headers: { 'X-Forbidden': 'yes' } }),
  credentials_not_allowed: () => call('/items?case=credentials', { credentials: 'include' }),
  session_start: () => call('/session', { credentials: 'include' }),
  session_check: () => call('/session/check', { credentials: 'include' }),
  exposed_headers: () => call('/headers'),
  cached_1: () => call('/cached', { method: 'PUT' }),
  cached_2: () => call('/cached', { method: 'PUT' }),
  uncached_1: () => call('/uncached', { method: 'PUT' }),
  uncached_2: () => call('/uncached', { method: 'PUT' }),
  cookie_check: () => call('/cookies/check', { credentials: 'include' }),
  // The example application: a bearer-token API under /api/v1, CORS for the whole application.
  users_no_token: () => call('/api/v1/users'),
  users_wrong_token: () => call('/api/v1/users?case=wrong', { headers: { Authorization: 'Bearer wrong' } }),
  users_create: () => call('/api/v1/users', {
    method: 'POST',
    headers: { ...BEARER, 'Content-Type': 'application/json' },
    body: '{"name":"ada"}',
  }),
  users_list: () => call('/api/v1/users?case=list', { headers: BEARER }),
  users_typo: () => call('/api/v1/userz'),
  users_typo_preflighted: () => call('/api/v1/userz?case=preflighted', { headers: BEARER }),
  app_sign_in: () => call('/session', { method: 'POST', credentials: 'include' }),
  app_session: () => call('/session', { credentials: 'include' }),
  // Protection beyond CORS: requests CORS lets a page send, without reading their answers.
  protected_form: () => submitForm('/protected?case=form'),
  protected_no_cors: () => noCors('/protected?case=no-cors'),
  ws_echo: () => socket('/ws', 'hello from the page'),
};

function run(name) {
  if (name.startsWith('cookie_set_')) {
    return call('/cookies/set/' + name.slice('cookie_set_'.length), { credentials: 'include' });
  }
  return CASES[name]();
}

(async () => {
  const results = {};
  let error = null;
  try {
    for (const name of CONFIG.cases) results[name] = await run(name);
  } catch (e) {
    error = String(e);
  }
  const report = JSON.stringify({ userAgent: navigator.userAgent, results, error });
  document.getElementById('out').textContent = report;
  await fetch('/report', { method: 'POST', body: report });
})();
</script>
"#;

/// Serves the page for `cases` against `api` over `scheme`; each report goes to `reports`.
/// Returns the port.
pub(crate) async fn page_server(
    api: &str,
    cases: &[String],
    scheme: Scheme,
    reports: mpsc::Sender<String>,
) -> u16 {
    let config = json!({ "api": api, "cases": cases, "token": APP_TOKEN });
    let html = PAGE.replace("__CONFIG__", &config.to_string());
    let router = Router::new()
        .route(
            "/",
            axum::routing::get(move || std::future::ready(Html(html.clone()))),
        )
        .route(
            "/report",
            axum::routing::post(move |body: String| {
                // Only the first report counts; the test may also have stopped listening.
                let _ = reports.try_send(body);
                std::future::ready(StatusCode::NO_CONTENT)
            }),
        );
    serve(router, scheme).await
}

/// What the page's script could see.
pub(crate) struct Report(pub(crate) Value);

impl Report {
    pub(crate) fn case(&self, name: &str) -> &Value {
        let case = &self.0["results"][name];
        assert!(!case.is_null(), "no result for case `{name}`: {}", self.0);
        case
    }

    /// Asserts that script could read the response of case `name`, with `status` and `body`.
    pub(crate) fn ok(&self, name: &str, status: u64, body: &str) -> &Value {
        let case = self.case(name);
        assert_eq!(case["outcome"], "ok", "case `{name}` was blocked: {case}");
        assert_eq!(case["status"], status, "case `{name}`: {case}");
        assert_eq!(case["body"], body, "case `{name}`: {case}");
        case
    }

    /// Asserts that the browser refused script the response of case `name`.
    pub(crate) fn blocked(&self, name: &str) {
        let case = self.case(name);
        assert_eq!(
            case["outcome"], "blocked",
            "case `{name}` should have been blocked by the browser: {case}"
        );
    }
}
