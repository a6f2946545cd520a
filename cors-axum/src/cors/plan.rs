//! The plan of a path: the CORS every request to it meets, made once by the planner
//! (`planner.rs`), and read by every place that answers for the path: the handler wrapper,
//! route layers, the generated `OPTIONS` route, passthrough, the `404`/`405` answers.

use cors_axum_core::{CorsConfigError, CorsOptions, CorsPolicy, CorsRequest, RequestKind};
use http::header::{CONTENT_LENGTH, VARY};
use http::{HeaderMap, HeaderValue, Method};

/// The CORS of one route (one method of a path).
#[derive(Debug, Clone)]
pub(crate) enum RoutePlan {
    /// CORS on: the compiled policy, and whether preflights also go to the route's own
    /// `OPTIONS` handler.
    On {
        policy: Box<CorsPolicy>,
        passthrough: bool,
    },
    /// CORS switched off: no CORS header; preflights refused where another route of the path
    /// has CORS, passed on to the routes where none has. What stays on without CORS
    /// is decided by `checks`, the policy compiled from the route's options (its origins, bypass
    /// paths, protection and WebSocket switches), `None` where nothing stays on: unsafe
    /// cross-origin requests refused where cross-origin protection is on (trusting no origin,
    /// letting the bypass paths through), WebSocket handshakes from an origin the options do
    /// not allow refused unless `check_websocket_origin(false)`.
    Off { checks: Option<Box<CorsPolicy>> },
}

impl RoutePlan {
    /// Compiles `options` for a route with `methods`, or, with `None`, for requests whose
    /// route is unknown (a plain `CorsLayer`, the `404` answer).
    pub(crate) fn compile(
        options: &CorsOptions,
        methods: Option<&[Method]>,
    ) -> Result<Self, CorsConfigError> {
        if !options.is_enabled() {
            let handshakes = methods.is_none_or(|methods| {
                methods
                    .iter()
                    .any(|m| *m == Method::GET || *m == Method::CONNECT)
            });
            return RoutePlan::off(options, handshakes);
        }
        let policy = match methods {
            Some(methods) => CorsPolicy::for_route(options, methods)?,
            None => CorsPolicy::from_options(options)?,
        };
        // Preflight answers are built here, without a body: written with the CORS headers, the
        // length is part of the prebuilt answer, so that axum need not grow the map for it.
        let policy = policy.with_preflight_header(CONTENT_LENGTH, HeaderValue::from_static("0"));
        Ok(RoutePlan::On {
            policy: Box::new(policy),
            passthrough: options.passes_preflight_through(),
        })
    }

    /// The plan of a route whose CORS is switched off by `options`: the checks that stay on,
    /// the WebSocket handshake's only where the route may upgrade (`handshakes`).
    pub(crate) fn off(options: &CorsOptions, handshakes: bool) -> Result<Self, CorsConfigError> {
        let websocket = handshakes && options.checks_websocket_origin();
        if !options.protects_cross_origin() && !websocket {
            return Ok(RoutePlan::Off { checks: None });
        }
        let options = &options.clone().check_websocket_origin(websocket);
        Ok(RoutePlan::Off {
            checks: Some(Box::new(CorsPolicy::from_options(options)?)),
        })
    }

    /// Where CORS is off, the policy that decides a WebSocket handshake's origin: the checks'
    /// (`handshake`, asked only if they check it), as a handshake is the one request whose
    /// origin they decide; `None` for a route with CORS on.
    pub(crate) fn handshake_checks(&self, handshake: impl FnOnce() -> bool) -> Option<&CorsPolicy> {
        match self {
            RoutePlan::Off {
                checks: Some(checks),
            } if checks.checks_websocket_origin() && handshake() => Some(checks),
            _ => None,
        }
    }

    /// The policy, where CORS is on.
    pub(crate) fn policy(&self) -> Option<&CorsPolicy> {
        match self {
            RoutePlan::On { policy, .. } => Some(policy),
            RoutePlan::Off { .. } => None,
        }
    }
}

/// The compiled CORS of one path: the module's plan, and per-method plans where a controller
/// or route has options of its own.
#[derive(Debug)]
pub(crate) struct PathPlan {
    default: RoutePlan,
    /// The plans of the methods with options of their own.
    pub(crate) by_method: Vec<(Method, RoutePlan)>,
    /// Whether any of its policies decides origins asynchronously.
    pub(crate) asynchronous: bool,
    /// Whether CORS is on for any route of the path.
    pub(crate) has_cors: bool,
    /// Whether preflights go on to the path's own `OPTIONS` handler.
    pub(crate) passes_preflight_through: bool,
    /// The `Vary` of a preflight answer refused because CORS is off for the method asked for,
    /// on a path where it is on for another: the answers to preflights of one URL differ by
    /// the request headers of a preflight, so a cache must keep them apart.
    pub(crate) off_preflight_vary: Option<HeaderValue>,
}

impl PathPlan {
    pub(crate) fn new(default: RoutePlan, by_method: Vec<(Method, RoutePlan)>) -> Self {
        let plans = || std::iter::once(&default).chain(by_method.iter().map(|(_, plan)| plan));
        let asynchronous = plans()
            .filter_map(|plan| match plan {
                RoutePlan::On { policy, .. } => Some(policy),
                RoutePlan::Off { checks } => checks.as_ref(),
            })
            .any(|policy| policy.decides_origins_asynchronously());
        let some_off = plans().any(|plan| matches!(plan, RoutePlan::Off { .. }));
        let has_cors = plans().any(|plan| matches!(plan, RoutePlan::On { .. }));
        let off_preflight_vary = if some_off {
            preflight_vary(plans().filter_map(RoutePlan::policy))
        } else {
            None
        };
        let options = by_method
            .iter()
            .find(|(method, _)| *method == Method::OPTIONS)
            .map_or(&default, |(_, plan)| plan);
        let passes_preflight_through = matches!(
            options,
            RoutePlan::On {
                passthrough: true,
                ..
            }
        );
        Self {
            default,
            by_method,
            asynchronous,
            has_cors,
            passes_preflight_through,
            off_preflight_vary,
        }
    }

    /// A path with one plan for every method.
    pub(crate) fn single(plan: RoutePlan) -> Self {
        Self::new(plan, Vec::new())
    }

    /// The key of the plan that answers `request` ([`at`](Self::at)) on a path with plans of
    /// its own for some methods (the others have the default's key): for a preflight, that of
    /// the route the browser asks to call; for any other request, that of its own method.
    #[inline]
    pub(crate) fn route(&self, request: &CorsRequest<'_>) -> RouteKey {
        if request.kind() != RequestKind::Preflight {
            self.key(request.method())
        } else {
            request
                .requested_method()
                .and_then(|m| Method::from_bytes(m.as_bytes()).ok())
                .map_or(RouteKey(None), |m| self.key(&m))
        }
    }

    /// The key of the route `method` is for.
    fn key(&self, method: &Method) -> RouteKey {
        RouteKey(self.by_method.iter().position(|(m, _)| m == method))
    }

    /// The plan of `key`, from [`route`](Self::route) on this plan.
    pub(crate) fn at(&self, key: RouteKey) -> &RoutePlan {
        key.0
            .and_then(|i| self.by_method.get(i))
            .map_or(&self.default, |(_, plan)| plan)
    }

    /// Whether the plan does nothing to any request: CORS off for every route, and no
    /// cross-origin protection.
    pub(crate) fn is_inert(&self) -> bool {
        std::iter::once(&self.default)
            .chain(self.by_method.iter().map(|(_, plan)| plan))
            .all(|plan| matches!(plan, RoutePlan::Off { checks: None }))
    }
}

/// Which route of a path answers a request, kept while it waits for an asynchronous origin
/// decision: the index of its method's plan, `None` for the path's default.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RouteKey(Option<usize>);

/// The `Vary` names every preflight answer of `policies` carries, together.
fn preflight_vary<'a>(policies: impl Iterator<Item = &'a CorsPolicy>) -> Option<HeaderValue> {
    let mut headers = HeaderMap::new();
    let not_a_preflight = HeaderMap::new();
    let request = CorsRequest::new(&Method::OPTIONS, &not_a_preflight);
    for policy in policies {
        // A refused answer carries the same `Vary` as a granted one.
        let mut answer = HeaderMap::new();
        policy.preflight(&request).write(&mut answer);
        for names in answer.get_all(VARY) {
            cors_axum_core::merge_vary(&mut headers, names);
        }
    }
    headers.remove(VARY)
}
