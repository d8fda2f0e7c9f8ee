// The request bodies of POST /abci/mint-role, /abci/mint-entity,
// /v1/role-requests and /v1/certifiers/certificates (core/wire/requests), as
// JSON text a client sends. Each
// parser refuses with invalid_input only, and what it accepts is complete.
// fuzz-max-len: 4096

#include <nlohmann/json.hpp>

#include "core/wire/requests.hpp"
#include "fuzz.hpp"

using namespace abci;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto body = nlohmann::json::parse(fuzz::text(data, size), nullptr, false);
    // The server reads only a JSON object as a body (RequestContext::json_body).
    if (!body.is_object()) return 0;
    const std::initializer_list<ErrorKind> refusal{ErrorKind::invalid_input};
    service::MintRoleRequest role;
    if (fuzz::accepts(refusal, [&] { role = wire::parse_mint_role(body); }))
        fuzz::require(role.fingerprint().matches(role.fingerprint().current), "a request matches its own fingerprint");
    service::MintEntityRequest entity;
    if (fuzz::accepts(refusal, [&] { entity = wire::parse_mint_entity(body); })) {
        fuzz::require(entity.amount >= 1 && entity.amount <= service::kMaxMintAmount, "the amount is in range");
        fuzz::require(entity.metadata.attributes.size() <= service::kMaxAttributes, "attributes within the limit");
        (void)service::canonical(entity);
    }
    (void)fuzz::accepts(refusal, [&] { (void)wire::parse_certificate(body); });
    store::NewRoleRequest request;
    if (fuzz::accepts(refusal, [&] { request = wire::parse_role_request(body, "user-1"); }))
        fuzz::require(request.wallet_address.size() == 42, "the wallet is an address");
    return 0;
}
