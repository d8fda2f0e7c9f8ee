// `abcictl chains list|status`: the server's networks. The list is cached in
// state.db for five minutes (also for completing chain ids), says so with its
// age when shown from there, and is fetched again when the server restarted
// since (its X-Abci-Instance changed) or with --refresh.

#include <CLI/CLI.hpp>

#include "cli/api_call.hpp"
#include "cli/chain_list.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/exit_code.hpp"

namespace abci::cli {
namespace {

void list(Context& ctx, bool refresh) {
    const auto [answer, cached] = chain_list(ctx, refresh);
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : answer.at("data"))
        rows.push_back({cell(c["id"]), cell(c["name"]), cell(c["chainId"]), cell(c["network"]), cell(c["status"]),
                        cell(c["contractAddress"]), cell(c["rpcUrl"])});
    ctx.print_table({"ID", "NAME", "CHAIN ID", "NETWORK", "STATUS", "CONTRACT", "RPC"}, rows, data_and_metadata(answer));
    if (!cached.empty()) ctx.note("(" + cached + "; abcictl chains list --refresh asks the server)");
}

// A fact the server could not learn (its node did not answer) is "unknown", never a guess.
std::string known(const nlohmann::json& value, const std::string& unit = "") {
    return value.is_null() ? "unknown" : cell(value) + unit;
}

std::string contract_text(const nlohmann::json& contract) {
    if (contract["address"].is_null()) return "none configured";
    const auto& deployed = contract["deployed"];
    if (deployed.is_null()) return cell(contract["address"]) + " (unknown: the node did not answer)";
    return cell(contract["address"]) + (deployed.get<bool>() ? " v" + cell(contract["version"]) : " (not deployed)");
}

std::string rpc_text(const nlohmann::json& connectivity) {
    if (connectivity == "wrong-chain") return "wrong chain: the node serves another chain id than configured (see abcictl health)";
    return cell(connectivity);
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
                     {"latestBlock", known(d["latestBlock"])},
                     {"blockTime", known(d["blockTime"], " s")},
                     {"gasPrice", known(gas["current"], " wei")},
                     {"contract", contract_text(contract)},
                     {"lastUpgrade", contract["deployed"].is_null() ? "unknown" : cell(contract["lastUpgrade"])},
                     {"rpc", rpc_text(d["health"]["rpcConnectivity"])},
                     {"contractAccess", cell(d["health"]["contractAccessible"])}};
    ctx.print(record, data_and_metadata(answer));
    // As health's: a script or a monitor can act on a chain without parsing its record.
    ctx.exit_code = d["status"] == "healthy" ? kExitHealthOk : kExitHealthCritical;
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
        auto* status_cmd = chains.add_subcommand(
            "status", "A network's head, gas prices, contract and health (exit 0 healthy, 2 degraded, as health)");
        set_examples(*status_cmd, {
                     {"Sepolia's head, gas prices and contract", "abcictl chains status sepolia"}});
        status_cmd->add_option("ID", *id, "Blockchain id")->required();
        status_cmd->callback([id, &ctx] { status(ctx, *id); });
    });
}

}  // namespace abci::cli
