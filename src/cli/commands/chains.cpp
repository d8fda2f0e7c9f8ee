// `abcictl chains list|status`: the server's networks. The list is cached in
// state.db for five minutes (also for completing chain ids); --refresh skips it.

#include <CLI/CLI.hpp>

#include "cli/api_call.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/session.hpp"

namespace abci::cli {
namespace {

constexpr auto kChainCacheTtl = std::chrono::minutes(5);

nlohmann::json chain_list(Context& ctx, bool refresh) {
    StateDb state(StateDb::default_path());
    auto client = authenticated_client(ctx.options, state);
    const auto now = std::chrono::system_clock::now();
    if (!refresh)
        if (const auto cached = state.cached_chains(client->base_url()); cached && now - cached->second < kChainCacheTtl)
            return nlohmann::json::parse(cached->first);
    auto answer = client->call("GET", "/abci/blockchains/list");
    state.cache_chains(client->base_url(), answer.dump(), now);
    return answer;
}

void list(Context& ctx, bool refresh) {
    const auto answer = chain_list(ctx, refresh);
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : answer.at("data"))
        rows.push_back({cell(c["id"]), cell(c["name"]), cell(c["chainId"]), cell(c["network"]), cell(c["status"]),
                        cell(c["contractAddress"]), cell(c["rpcUrl"])});
    ctx.print_table({"ID", "NAME", "CHAIN ID", "NETWORK", "STATUS", "CONTRACT", "RPC"}, rows, data_and_metadata(answer));
}

void status(Context& ctx, const std::string& id) {
    const auto answer = api_call(ctx, "GET", "/abci/blockchains/" + id + "/status");
    const auto& d = answer.at("data");
    const auto& contract = d.at("contractStatus");
    const auto& gas = d.at("gasPrice");
    Record record;
    record.essential = cell(d["status"]);
    record.fields = {{"id", cell(d["id"])},
                     {"name", cell(d["name"])},
                     {"status", cell(d["status"])},
                     {"latestBlock", cell(d["latestBlock"])},
                     {"blockTime", cell(d["blockTime"]) + " s"},
                     {"gasPrice", cell(gas["current"]) + " wei"},
                     {"contract", cell(contract["address"]) + (contract.value("deployed", false) ? " v" + cell(contract["version"]) : " (not deployed)")},
                     {"lastUpgrade", cell(contract["lastUpgrade"])},
                     {"rpc", cell(d["health"]["rpcConnectivity"])},
                     {"contractAccess", cell(d["health"]["contractAccessible"])}};
    ctx.print(record, data_and_metadata(answer));
}

}  // namespace

void add_chains_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "chains", "The server's blockchains", [&ctx](CLI::App& chains) {
        chains.require_subcommand(1);
        auto refresh = std::make_shared<bool>(false);
        auto* list_cmd = chains.add_subcommand("list", "List the networks (-q: their ids)");
        set_examples(*list_cmd, {
                     {"The networks the server mints on", "abcictl chains list"},
                     {"Their ids only, for a script", "abcictl chains list -q"}});
        list_cmd->add_flag("--refresh", *refresh, "Ask the server even when the cached list is fresh");
        list_cmd->callback([refresh, &ctx] { list(ctx, *refresh); });
        auto id = std::make_shared<std::string>();
        auto* status_cmd = chains.add_subcommand("status", "A network's head, gas prices, contract and health");
        set_examples(*status_cmd, {
                     {"Sepolia's head, gas prices and contract", "abcictl chains status sepolia"}});
        status_cmd->add_option("ID", *id, "Blockchain id")->required();
        status_cmd->callback([id, &ctx] { status(ctx, *id); });
    });
}

}  // namespace abci::cli
