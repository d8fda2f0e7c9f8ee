// `abcictl role-requests list|approve|reject` (admin): the role-request
// workflow of spec §1 without curl — GET /v1/admin/role-requests, PUT
// /v1/admin/role-requests/{id}/approve (which mints the role token) and
// …/reject. No confirmation: each says what it did, and the server's own
// rules (and its refusals) decide.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <unordered_map>

#include "cli/api_call.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/examples.hpp"
#include "cli/mint_call.hpp"
#include "cli/session.hpp"
#include "cli/validators.hpp"
#include "core/eth/address.hpp"

namespace abci::cli {
namespace {

std::string wallet_text(const nlohmann::json& wallet) {
    return wallet.is_string() && !wallet.get<std::string>().empty()
               ? eth::Address::parse(wallet.get<std::string>()).checksummed()
               : cell(wallet);
}

void list(Context& ctx, const std::string& status) {
    QueryParams query;
    if (!status.empty()) query.emplace_back("status", status);
    const auto answer = api_call(ctx, "GET", "/v1/admin/role-requests", query);
    // Requesters by e-mail: an admin knows people by it, not by their UUID.
    std::unordered_map<std::string, std::string> emails;
    if (!ctx.options.json && !ctx.options.quiet) {
        const auto users = api_call(ctx, "GET", "/api/admin/users");
        for (const auto& user : users.at("data")) emails[user.value("id", "")] = user.value("email", "");
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : answer.at("data")) {
        const auto email = emails.find(r.value("userId", ""));
        rows.push_back({cell(r["id"]), cell(r["status"]), cell(r["roleType"]), wallet_text(r["walletAddress"]),
                        cell(r["blockchainId"]), email == emails.end() ? cell(r["userId"]) : email->second,
                        cell(r["createdAt"]), r.value("note", "").empty() ? "-" : r["note"].get<std::string>(),
                        cell(r.value("failure", nlohmann::json(nullptr)))});
    }
    if (rows.empty() && !ctx.options.json && !ctx.options.quiet) {
        std::cout << "no role requests" << (status.empty() ? "" : " with status " + status) << "\n";
        return;
    }
    ctx.print_table({"ID", "STATUS", "ROLE", "WALLET", "CHAIN", "REQUESTED BY", "CREATED", "NOTE", "FAILURE"}, rows,
                    data_and_metadata(answer));
}

Record request_record(const nlohmann::json& r) {
    Record record;
    record.essential = cell(r["status"]);
    record.fields = {{"id", cell(r["id"])},
                     {"status", cell(r["status"])},
                     {"role", cell(r["roleType"])},
                     {"wallet", wallet_text(r["walletAddress"])},
                     {"chain", cell(r["blockchainId"])},
                     {"transactionHash", cell(r["transactionHash"])},
                     {"blockNumber", cell(r["blockNumber"])},
                     {"failure", cell(r.value("failure", nlohmann::json(nullptr)))}};
    return record;
}

void decide(Context& ctx, const std::string& id, const std::string& decision) {
    // The id goes into the path: nothing but a UUID's characters may reach it.
    if (id.empty() || !std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isxdigit(c) || c == '-'; }))
        throw Error(ErrorKind::invalid_input,
                    "a role request id is a UUID like 3f2c9a4e-…, not '" + id + "': see abcictl role-requests list");
    StateDb state(StateDb::default_path());
    // Approving mints the role token and waits for its receipt, as mint-role does.
    auto client = authenticated_client(ctx.options, state, std::chrono::seconds(kDefaultMintTimeoutSeconds));
    const auto answer = client->call("PUT", "/v1/admin/role-requests/" + id + "/" + decision);
    const auto& data = answer.at("data");
    const auto& request = data.at("roleRequest");
    Record record = request_record(request);
    if (decision == "approve") {
        record.essential = cell(request["transactionHash"]);
        const bool minted_now = data.contains("mint") && !data["mint"].is_null();
        ctx.note("approved role request " + cell(request["id"]) + ": the " + cell(request["roleType"]) + " role token " +
                 (minted_now ? "was minted" : "had been minted before") + " to " + wallet_text(request["walletAddress"]) +
                 " on " + cell(request["blockchainId"]));
    } else {
        ctx.note("rejected role request " + cell(request["id"]) + " (" + cell(request["roleType"]) + " for " +
                 wallet_text(request["walletAddress"]) + "): nothing was minted");
    }
    ctx.print(record, data_and_metadata(answer));
}

}  // namespace

void add_role_requests_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "role-requests", "Users' requests for a role token: list, approve (mints), reject (admin)",
                        [&ctx](CLI::App& cmd) {
        cmd.require_subcommand(1);
        auto status = std::make_shared<std::string>();
        auto* list_cmd = cmd.add_subcommand("list", "The role requests, oldest first (-q: their ids)");
        one_of(list_cmd->add_option("--status", *status, "Only those in this status"),
               {"pending", "approved", "minted", "rejected", "failed"});
        set_examples(*list_cmd, {{"The requests waiting for an admin", "abcictl role-requests list --status pending"}});
        list_cmd->callback([status, &ctx] { list(ctx, *status); });
        for (const auto& [decision, description] :
             {std::pair<std::string, std::string>{"approve", "Approve a request: mints its role token to its wallet "
                                                             "(-q: the transaction hash)"},
              {"reject", "Reject a pending or failed request: nothing is minted (-q: its status)"}}) {
            auto id = std::make_shared<std::string>();
            auto* sub = cmd.add_subcommand(decision, description);
            sub->add_option("ID", *id, "The request's id (see: abcictl role-requests list)")->required();
            set_examples(*sub, {{decision == "approve" ? "Approve a request, minting its token" : "Reject a request",
                                 "abcictl role-requests " + decision + " 3f6c2a9e-8d1b-4c7e-9a55-0b2d4e6f8a10"}});
            sub->callback([id, path = decision, &ctx] { decide(ctx, *id, path); });
        }
    });
}

}  // namespace abci::cli
