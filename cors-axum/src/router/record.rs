//! Route-table recording: each mounted path's routes, and its generated `OPTIONS` route, written
//! into the route table in mounting order, the path checked against those already there.

use http::Method;

use super::checks::controller_of;
use super::paths::Paths;
use super::walk::{Collected, Walk};
use crate::error::BuildError;
use crate::table::{CorsCoverage, RouteInfo, RoutePath, RouteTable};

/// Writes the routes of `path` (`group`, covered as `coverage` says, none of them where it is
/// empty) into `table`, with the
/// generated `OPTIONS` route where there is one (`generated`, its coverage), and checks the
/// path against those already mounted (`paths`).
#[inline]
pub(super) fn record<S>(
    walk: &Walk<S>,
    (table, paths): (&mut RouteTable, &mut Paths),
    path: &RoutePath,
    group: &[&Collected<S>],
    coverage: Vec<CorsCoverage>,
    generated: Option<CorsCoverage>,
) -> Result<(), BuildError> {
    let start = table.len();
    let mut coverage = coverage.into_iter();
    table.routes.extend(group.iter().map(|route| RouteInfo {
        method: route.def.method.clone(),
        path: path.clone(),
        module: walk.modules[route.module].name,
        controller: controller_of(walk, route).controller.name,
        handler: route.def.handler,
        cors: coverage.next().unwrap_or(CorsCoverage::None),
        generated: false,
    }));
    if let Some(cors) = generated {
        table.routes.push(RouteInfo {
            method: Method::OPTIONS,
            path: path.clone(),
            module: walk.modules[group[0].module].name,
            controller: "CorsModule",
            handler: "options",
            cors,
            generated: true,
        });
    }
    paths.add(path, start, &table.routes)
}
