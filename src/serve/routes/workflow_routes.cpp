// /v1 workflow routes (spec §1). Role requests are recorded here; approving
// them (which mints the role token) comes with the chain routes.

#include "core/eth/address.hpp"
#include "serve/fields.hpp"
#include "serve/router.hpp"
#include "serve/routes/routes.hpp"
#include "serve/routes/views.hpp"

namespace abci::serve {

namespace {

constexpr std::array<const char*, 4> kRoleTypes{"producer", "verifier", "valuator", "certifier"};

Reply create_role_request(RequestContext& ctx) {
    const auto body = ctx.json_body();
    Fields fields(body);
    const auto role_type = fields.required_string("roleType", 32);
    const auto wallet = fields.required_string("walletAddress", 42);
    const auto blockchain_id = fields.required_string("blockchainId", 64);
    const auto note = fields.optional_string("note", 2000).value_or("");
    fields.check(role_type.empty() || std::find(kRoleTypes.begin(), kRoleTypes.end(), role_type) != kRoleTypes.end(),
                 "roleType must be one of producer, verifier, valuator, certifier");
    std::string address;
    if (!wallet.empty()) {
        try {
            address = eth::Address::parse(wallet).lower();
        } catch (const Error& e) {
            fields.check(false, std::string("walletAddress: ") + e.what());
        }
    }
    fields.done();
    const auto request = ctx.services.store.create_role_request(
        store::NewRoleRequest{ctx.caller().id, role_type, address, blockchain_id, note});
    return Reply::json(201, {{"success", true}, {"data", role_request_view(request)}});
}

}  // namespace

void add_workflow_routes(Router& router) { router.post("/v1/role-requests", RouteOptions{}, create_role_request); }

}  // namespace abci::serve
