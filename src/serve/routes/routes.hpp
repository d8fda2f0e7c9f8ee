#pragma once
// One file per route group; each registers its routes on the router.

namespace abci::service {
class AbciService;
}

namespace abci::serve {

class Router;

void add_auth_routes(Router& router);      // /api/auth/* (spec 4.9, DESIGN.md §4)
void add_api_routes(Router& router);       // /api/farmers, /api/practices, /api/verifications (spec 5.5)
void add_admin_routes(Router& router);     // /api/admin/*
void add_workflow_routes(Router& router);  // /v1/*
void add_content_routes(Router& router);   // /ipfs/{cid}
void add_abci_routes(Router& router);      // /abci/* (spec 4.1–4.8)
void add_probe_routes(Router& router, service::AbciService& abci);  // /livez, /readyz

}  // namespace abci::serve
