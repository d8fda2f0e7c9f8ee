#include "serve/routes/routes.hpp"

namespace abci::serve {

std::vector<Route> route_table() {
    std::vector<Route> table;
    for (auto group : {auth_routes(), api_routes(), webhook_routes(), admin_routes(), workflow_routes(),
                       content_routes(), abci_routes(), probe_routes(), openapi_routes()})
        for (auto& route : group) table.push_back(std::move(route));
    return table;
}

}  // namespace abci::serve
