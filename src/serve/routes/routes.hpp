#pragma once
// The route table: every route of the server declared once, with who may
// call it (serve/router.hpp, Route), one file per route group.

#include <vector>

#include "serve/router.hpp"

namespace abci::serve {

std::vector<Route> auth_routes();      // /api/auth/* (spec 4.9, DESIGN.md §4)
std::vector<Route> api_routes();       // /api/farmers, /api/practices, /api/verifications (spec 5.5)
std::vector<Route> admin_routes();     // /api/admin/*
std::vector<Route> webhook_routes();   // /api/admin/webhooks*, before admin_routes()' catch-all
std::vector<Route> workflow_routes();  // /v1/*
std::vector<Route> content_routes();   // /ipfs/{cid}
std::vector<Route> abci_routes();      // /abci/* (spec 4.1–4.8), the last of them answering the rest of /abci with 404
std::vector<Route> probe_routes();     // /livez, /readyz
std::vector<Route> openapi_routes();   // /openapi.json, /openapi.yaml, /docs (docs/openapi.yaml describes every route)

/// All of them, in the order they are matched.
[[nodiscard]] std::vector<Route> route_table();

}  // namespace abci::serve
