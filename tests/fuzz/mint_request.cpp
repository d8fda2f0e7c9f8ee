// The request bodies of POST /abci/mint-role, /abci/mint-entity and
// /v1/role-requests (core/service/requests), as JSON text a client sends. Each
// parser refuses with invalid_input only, and what it accepts is complete.
// fuzz-max-len: 4096

#include <nlohmann/json.hpp>

#include "core/service/requests.hpp"
#include "fuzz.hpp"

using namespace abci;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto body = nlohmann::json::parse(fuzz::text(data, size), nullptr, false);
    // The server reads only a JSON object as a body (RequestContext::json_body).
    if (!body.is_object()) return 0;
    const std::initializer_list<ErrorKind> refusal{ErrorKind::invalid_input};
    (void)fuzz::accepts(refusal, [&] { (void)service::parse_mint_role(body); });
    service::MintEntityRequest entity;
    if (fuzz::accepts(refusal, [&] { entity = service::parse_mint_entity(body); })) {
        fuzz::require(entity.amount >= 1 && entity.amount <= service::kMaxMintAmount, "the amount is in range");
        fuzz::require(entity.details.contains("name") && entity.details["attributes"].is_array(), "name and attributes");
        (void)entity.details.dump();  // the metadata document stored as content
    }
    store::NewRoleRequest request;
    if (fuzz::accepts(refusal, [&] { request = service::parse_role_request(body, "user-1"); }))
        fuzz::require(request.wallet_address.size() == 42, "the wallet is an address");
    return 0;
}
