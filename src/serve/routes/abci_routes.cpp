// /abci/* (spec 4.1–4.8): thin over service::AbciService. The gate in front
// of them (caller, scope, rate limit, audit) is the router's.

#include <httplib.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/service/service.hpp"
#include "core/webhooks/subscriptions.hpp"
#include "core/wire/requests.hpp"
#include "serve/log.hpp"
#include "serve/prefer.hpp"
#include "serve/router.hpp"
#include "serve/routes/abci_views.hpp"
#include "serve/routes/routes.hpp"

namespace abci::serve {

namespace {

service::MintOptions mint_options(const RequestContext& ctx) {
    service::MintOptions options;
    options.actor = ctx.caller().actor();
    if (ctx.request.has_header("Idempotency-Key")) options.idempotency_key = ctx.request.get_header_value("Idempotency-Key");
    std::vector<std::string> prefer;
    for (std::size_t i = 0; i < ctx.request.get_header_value_count("Prefer"); ++i)
        prefer.push_back(ctx.request.get_header_value("Prefer", i));
    if (has_preference(prefer, "respond-async")) options.wait = service::MintWait::no;
    return options;
}

// A mint holds its connection until its block, seconds later, and a client
// seldom sends another request on it; cpp-httplib would keep a thread polling
// the idle connection for the whole keep-alive timeout (after a burst of 1000
// mints, that polling took the CPU the node and the next block's answers
// needed), so a mint's answer closes the connection.
// The request's log line names the mint's transaction, so an operator can
// follow a request to the chain; also when its outcome is not known yet.
// A mint that does not wait (Prefer: respond-async, RFC 7240) answers 202
// with where its outcome will be, and keeps the connection as any quick answer.
Reply mint_answer(RequestContext& ctx, const service::MintOptions& options,
                  const std::function<service::MintResult(const service::MintOptions&)>& mint) {
    ctx.response.set_header("Vary", "Prefer");
    if (options.wait == service::MintWait::yes) ctx.response.set_header("Connection", "close");
    try {
        const auto result = mint(options);
        if (result.pending) {
            add_request_log_field("mint_id", result.mint_id);
            ctx.response.set_header("Location", "/abci/contracts/mints/" + result.mint_id);
            ctx.response.set_header("Preference-Applied", "respond-async");
            return Reply::data(202, mint_accepted_view(result, options.idempotency_key));
        }
        add_request_log_field("transaction_hash", result.transaction_hash);
        // The spec's body has no place for the mint's id: the header names where its status lives.
        ctx.response.set_header("Content-Location", "/abci/contracts/mints/" + result.mint_id);
        return Reply::json(200, mint_result_view(result));
    } catch (const service::MintUnsettled& e) {
        add_request_log_field("mint_id", e.mint_id());
        add_request_log_field("transaction_hashes", e.transaction_hashes());
        throw;
    }
}

Reply mint_role_token(RequestContext& ctx) {
    return mint_answer(ctx, mint_options(ctx), [&](const service::MintOptions& options) {
        return ctx.services.abci.mint_role(wire::parse_mint_role(ctx.json_body()), options);
    });
}

Reply mint_entity_token(RequestContext& ctx) {
    return mint_answer(ctx, mint_options(ctx), [&](const service::MintOptions& options) {
        return ctx.services.abci.mint_entity(wire::parse_mint_entity(ctx.json_body()), options);
    });
}

Reply token_balance(RequestContext& ctx) {
    const auto query = service::TokenBalanceQuery::parse(ctx.query("userAddress"), ctx.query("tokenId"),
                                                         ctx.query("blockchainId"));
    return Reply::json(200, token_balance_view(ctx.services.abci.token_balance(query)));
}

Reply user_balance(RequestContext& ctx) {
    const auto query = service::UserBalanceQuery::parse(ctx.query("userAddress"), ctx.query("blockchainId"));
    return Reply::json(200, user_balance_view(ctx.services.abci.user_balance(query)));
}

Reply blockchains(RequestContext& ctx) { return Reply::json(200, blockchains_view(ctx.services.abci.blockchains())); }

Reply blockchain_status(RequestContext& ctx) {
    return Reply::json(200, blockchain_status_view(ctx.services.abci.blockchain_status(ctx.path_match(1))));
}

Reply token_metadata(RequestContext& ctx) {
    const auto query = service::TokenMetadataQuery::parse(ctx.path_match(1), ctx.query("blockchainId"),
                                                          ctx.query("entityId"), ctx.query("userAddress"));
    return Reply::json(200, token_metadata_view(ctx.services.abci.token_metadata(query)));
}

Reply health(RequestContext& ctx) {
    auto report = ctx.services.abci.health();
    // Healthy all the same: what is there is delivered; only new secrets wait for the setting.
    if (auto why = ctx.services.webhooks.why_not_creating())
        report.checks.push_back({.name = "webhookSecrets", .healthy = true, .message = std::move(why)});
    return Reply::json(health_status(report), health_view(report, "healthy", "degraded"));
}

// An admin may look at anyone's mint by id; everyone else at their own.
Reply mint_status(RequestContext& ctx) {
    return Reply::json(200, mint_status_view(ctx.services.abci.mint_status(ctx.path_match(1), ctx.caller().actor(),
                                                                            ctx.caller().is_admin())));
}

Reply mint_status_by_key(RequestContext& ctx) {
    const auto key = ctx.query("idempotencyKey");
    if (!key) throw Error(ErrorKind::invalid_input, "invalid request", {"idempotencyKey is required"});
    return Reply::json(200, mint_status_view(ctx.services.abci.mint_status_by_key(*key, ctx.caller().actor())));
}

}  // namespace

std::vector<Route> abci_routes() {
    // Spec 5.2: each route's API-key scope; none, the admin role only (rule 4:
    // no scope reaches mint-role-token). A key that mints may learn what
    // became of its own mints.
    const auto gate = [](Method method, std::string pattern, std::optional<std::string> scope, Route::Handler handler) {
        return Route{method, std::move(pattern), Access::abci, std::move(scope), std::move(handler)};
    };
    std::vector<Route> routes{
        gate(Method::post, "/abci/contracts/mint-role-token", std::nullopt, mint_role_token),
        gate(Method::post, "/abci/contracts/mint-entity-token", "abci:mint-entity", mint_entity_token),
        gate(Method::get, "/abci/contracts/token-balance", "abci:read", token_balance),
        gate(Method::get, "/abci/tokens/user-balance", "abci:read", user_balance),
        gate(Method::get, "/abci/blockchains/list", "abci:read", blockchains),
        gate(Method::get, "/abci/blockchains/([^/]+)/status", "abci:read", blockchain_status),
        gate(Method::get, "/abci/tokens/metadata/([^/]+)", "abci:read", token_metadata),
        gate(Method::get, "/abci/health", "abci:health", health),
        gate(Method::get, "/abci/contracts/mints/([^/]+)", "abci:mint-entity", mint_status),
        gate(Method::get, "/abci/contracts/mints", "abci:mint-entity", mint_status_by_key),
    };
    // The rest of /abci/* answers 404, still behind the gate (admin only), so
    // probing is limited and audited.
    for (const auto method : kRouteMethods)
        routes.push_back(gate(method, "/abci(/.*)?", std::nullopt, [](RequestContext& ctx) -> Reply {
            throw Error(ErrorKind::not_found, "no ABCI route " + ctx.request.method + " " + ctx.request.path);
        }));
    return routes;
}

}  // namespace abci::serve
