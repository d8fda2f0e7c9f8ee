// `abcictl balance`: a wallet's tokens on one chain (GET /abci/tokens/user-balance),
// or one token (GET /abci/contracts/token-balance with --token).

#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/api_call.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/validators.hpp"

namespace abci::cli {
namespace {

struct BalanceSettings {
    std::string address;
    std::string chain;
    std::string token;
};

void balance(Context& ctx, const BalanceSettings& s) {
    if (!s.token.empty()) {
        const auto answer = api_call(ctx, "GET", "/abci/contracts/token-balance",
                                     {{"userAddress", s.address}, {"tokenId", token_id_argument(s.token)}, {"blockchainId", s.chain}});
        const auto& d = answer.at("data");
        Record record;
        record.essential = cell(d["balance"]);
        for (const char* key : {"userAddress", "tokenId", "tokenName", "tokenType", "balance", "isSoulbound", "mintedAt", "lastUpdated"})
            record.fields.emplace_back(key, cell(d.value(key, nlohmann::json(nullptr))));
        record.fields.emplace_back("contract", cell(answer["metadata"].value("contractAddress", nlohmann::json(nullptr))));
        ctx.print(record, data_and_metadata(answer));
        return;
    }
    const auto answer = api_call(ctx, "GET", "/abci/tokens/user-balance", {{"userAddress", s.address}, {"blockchainId", s.chain}});
    std::vector<std::vector<std::string>> rows;
    for (const auto& b : answer.at("data").at("balances")) {
        const auto& minted = b.contains("mintedAt") ? b["mintedAt"] : b.value("lastMinted", nlohmann::json(nullptr));
        rows.push_back({cell(b["tokenId"]), cell(b["name"]), cell(b["tokenType"]), cell(b["category"]), cell(b["balance"]),
                        b.value("isSoulbound", false) ? "yes" : "no", cell(minted)});
    }
    if (rows.empty() && !ctx.options.json && !ctx.options.quiet)
        std::cout << "no tokens: " << s.address << " holds none on " << s.chain << "\n";
    else
        ctx.print_table({"TOKEN", "NAME", "TYPE", "CATEGORY", "BALANCE", "SOULBOUND", "MINTED"}, rows, data_and_metadata(answer));
    if (!ctx.options.json && !ctx.options.quiet)
        ctx.note("synced with the chain at " + cell(answer["metadata"].value("lastSynced", nlohmann::json(nullptr))));
}

}  // namespace

void add_balance_command(CLI::App& app, Context& ctx) {
    const char* description = "A wallet's tokens on a chain, reconciled with the chain";
    add_lazy_subcommand(app, "balance", description, [&ctx](CLI::App& cmd) {
        set_examples(cmd, {
                     {"A wallet's tokens on Sepolia", "abcictl balance --address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --chain sepolia"},
                     {"Only its producer token", "abcictl balance --address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --chain sepolia --token 10000"}});
        auto s = std::make_shared<BalanceSettings>();
        evm_address(cmd.add_option("--address", s->address, "Wallet (0x…)"))->required();
        cmd.add_option("--chain", s->chain, "Blockchain id (see: abcictl chains list)")->required();
        cmd.add_option("--token", s->token, "Only this token: its id (10000) or name (producer, report…)");
        cmd.callback([s, &ctx] { balance(ctx, *s); });
    });
}

}  // namespace abci::cli
