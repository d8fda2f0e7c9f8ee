// `abcictl mint status ID | --idempotency-key KEY`: what became of a mint
// (GET /abci/contracts/mints/{id}, or ?idempotencyKey= for the caller's own):
// its state and transactions and, once mined, what the mint command itself
// prints. Exit 0 when mined or still pending (the state says which), 1 when
// it failed.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>

#include "cli/api_call.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/exit_code.hpp"
#include "cli/mint_output.hpp"

namespace abci::cli {
namespace {

struct MintStatusSettings {
    std::string id;
    std::string idempotency_key;
};

Record status_record(const nlohmann::json& data, const std::string& explorer) {
    const std::string state = cell(data["state"]);
    Record record;
    record.essential = state;
    record.fields = {{"mintId", cell(data["mintId"])},
                     {"state", state},
                     {"route", cell(data["route"])},
                     {"blockchainId", cell(data["blockchainId"])},
                     {"idempotencyKey", cell(data["idempotencyKey"])},
                     {"createdAt", cell(data["createdAt"])},
                     {"updatedAt", cell(data["updatedAt"])}};
    for (const auto& tx : data.value("transactions", nlohmann::json::array()))
        record.fields.emplace_back("transaction", cell(tx["hash"]) + " nonce " + cell(tx["nonce"]) + " " +
                                                      cell(tx["status"]) +
                                                      (tx["blockNumber"].is_null() ? "" : " in block " + cell(tx["blockNumber"])));
    if (const auto& error = data["error"]; error.is_object())
        record.fields.emplace_back("error", cell(error.value("message", nlohmann::json(nullptr))) + " (" +
                                                cell(error.value("kind", nlohmann::json(nullptr))) + ")");
    if (const auto& result = data["result"]; result.is_object()) {
        // Once mined: what the mint command printed, -q its transaction hash.
        const Record mint = mint_record(result, explorer);
        record.essential = mint.essential;
        record.fields.insert(record.fields.end(), mint.fields.begin(), mint.fields.end());
    }
    return record;
}

void mint_status(Context& ctx, const MintStatusSettings& s) {
    if (s.id.empty() == s.idempotency_key.empty())
        throw Error(ErrorKind::invalid_input, "name the mint: its ID, or --idempotency-key KEY (not both)");
    const bool plain_id = std::all_of(s.id.begin(), s.id.end(), [](unsigned char c) { return std::isxdigit(c) || c == '-'; });
    if (!plain_id) throw Error(ErrorKind::invalid_input, "a mint id is a UUID like 3f2c9a4e-…, not '" + s.id + "'");
    const auto answer = s.id.empty() ? api_call(ctx, "GET", "/abci/contracts/mints", {{"idempotencyKey", s.idempotency_key}})
                                     : api_call(ctx, "GET", "/abci/contracts/mints/" + s.id);
    const auto& data = answer.at("data");
    const bool mined = data["result"].is_object();
    ctx.print(status_record(data, mined ? explorer_of(ctx, cell(data["blockchainId"])) : ""), data_and_metadata(answer));
    if (data.value("state", "") == "failed") ctx.exit_code = kExitError;
}

}  // namespace

void add_mint_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "mint", "A mint's outcome", [&ctx](CLI::App& mint) {
        mint.require_subcommand(1);
        auto s = std::make_shared<MintStatusSettings>();
        auto* cmd = mint.add_subcommand(
            "status",
            "A mint's state (pending, mined, failed), its transactions and, once mined, its answer; exit 0 mined or "
            "pending, 1 failed (-q: the transaction hash once mined, else the state)");
        cmd->add_option("ID", s->id, "The mint id (from an error of mint-role or mint-entity, or the API)");
        set_examples(*cmd, {{"What became of a mint whose answer was lost",
                             "abcictl mint status --idempotency-key abcictl-0b6f8a52-2c1e-4d0a-9f3b-7e5d4c3b2a19"}});
        cmd->add_option("--idempotency-key", s->idempotency_key, "The Idempotency-Key the mint was sent with (your own mints)");
        cmd->callback([s, &ctx] { mint_status(ctx, *s); });
    });
}

}  // namespace abci::cli
