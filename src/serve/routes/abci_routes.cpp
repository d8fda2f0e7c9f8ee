// /abci/* (spec 4.1–4.8): thin over service::AbciService. The gate in front
// of them (caller, scope, rate limit, audit) is the router's.

#include <httplib.h>

#include <functional>

#include "core/service/service.hpp"
#include "serve/log.hpp"
#include "serve/router.hpp"
#include "serve/routes/routes.hpp"

namespace abci::serve {

namespace {

Reply answer(service::Answer a) { return Reply::json(a.status, std::move(a.body)); }

service::MintOptions mint_options(const RequestContext& ctx) {
    service::MintOptions options;
    options.actor = ctx.caller().actor();
    if (ctx.request.has_header("Idempotency-Key")) options.idempotency_key = ctx.request.get_header_value("Idempotency-Key");
    return options;
}

// A mint holds its connection until its block, seconds later, and a client
// seldom sends another request on it; cpp-httplib would keep a thread polling
// the idle connection for the whole keep-alive timeout (after a burst of 1000
// mints, that polling took the CPU the node and the next block's answers
// needed), so a mint's answer closes the connection.
// The request's log line names the mint's transaction, so an operator can
// follow a request to the chain; also when its outcome is not known yet.
Reply mint_answer(RequestContext& ctx, const std::function<service::Answer()>& mint) {
    ctx.response.set_header("Connection", "close");
    try {
        auto a = mint();
        if (const auto hash = a.body.value("/data/transactionHash"_json_pointer, nlohmann::json()); hash.is_string())
            add_request_log_field("transaction_hash", hash);
        return answer(std::move(a));
    } catch (const service::MintUnsettled& e) {
        add_request_log_field("mint_id", e.mint_id());
        add_request_log_field("transaction_hashes", e.transaction_hashes());
        throw;
    }
}

Reply mint_role_token(RequestContext& ctx) {
    // Spec 5.2 rule 4: an API key's scopes never reach this route.
    require(ctx.caller().is_admin(), "minting a role token requires the admin role");
    return mint_answer(ctx, [&] { return ctx.services.abci.mint_role(ctx.json_body(), mint_options(ctx)); });
}

Reply mint_entity_token(RequestContext& ctx) {
    return mint_answer(ctx, [&] { return ctx.services.abci.mint_entity(ctx.json_body(), mint_options(ctx)); });
}

Reply token_balance(RequestContext& ctx) {
    return Reply::json(200, ctx.services.abci.token_balance(ctx.query("userAddress"), ctx.query("tokenId"),
                                                            ctx.query("blockchainId")));
}

Reply user_balance(RequestContext& ctx) {
    return Reply::json(200, ctx.services.abci.user_balance(ctx.query("userAddress"), ctx.query("blockchainId")));
}

Reply blockchains(RequestContext& ctx) { return Reply::json(200, ctx.services.abci.blockchains()); }

Reply blockchain_status(RequestContext& ctx) {
    return Reply::json(200, ctx.services.abci.blockchain_status(ctx.path_match(1)));
}

Reply token_metadata(RequestContext& ctx) {
    return Reply::json(200, ctx.services.abci.token_metadata(ctx.path_match(1), ctx.query("blockchainId"),
                                                             ctx.query("entityId"), ctx.query("userAddress")));
}

Reply health(RequestContext& ctx) { return answer(ctx.services.abci.health()); }

// An admin may look at anyone's mint by id; everyone else at their own.
Reply mint_status(RequestContext& ctx) {
    return Reply::json(200, ctx.services.abci.mint_status(ctx.path_match(1), ctx.caller().actor(), ctx.caller().is_admin()));
}

Reply mint_status_by_key(RequestContext& ctx) {
    const auto key = ctx.query("idempotencyKey");
    if (!key) throw Error(ErrorKind::invalid_input, "invalid request", {"idempotencyKey is required"});
    return Reply::json(200, ctx.services.abci.mint_status_by_key(*key, ctx.caller().actor()));
}

}  // namespace

void add_abci_routes(Router& router) {
    router.abci("POST", "/abci/contracts/mint-role-token", mint_role_token);
    router.abci("POST", "/abci/contracts/mint-entity-token", mint_entity_token);
    router.abci("GET", "/abci/contracts/token-balance", token_balance);
    router.abci("GET", "/abci/tokens/user-balance", user_balance);
    router.abci("GET", "/abci/blockchains/list", blockchains);
    router.abci("GET", "/abci/blockchains/([^/]+)/status", blockchain_status);
    router.abci("GET", "/abci/tokens/metadata/([^/]+)", token_metadata);
    router.abci("GET", "/abci/health", health);
    router.abci("GET", "/abci/contracts/mints/([^/]+)", mint_status);
    router.abci("GET", "/abci/contracts/mints", mint_status_by_key);
}

}  // namespace abci::serve
