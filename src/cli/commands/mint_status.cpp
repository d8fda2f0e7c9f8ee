// `abcictl mint status ID | --idempotency-key KEY`: what became of a mint
// (GET /abci/contracts/mints/{id}, or ?idempotencyKey= for the caller's own):
// its state and transactions and, once mined, what the mint command itself
// prints. Exit 0 when mined or still pending (the state says which), 1 when
// it failed. With --wait it asks again until the mint is mined or failed (a
// mint of `mint-role|mint-entity --no-wait`), and a failure exits as that
// mint command would have had it waited.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

#include "cli/api_call.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/exit_code.hpp"
#include "cli/mint_call.hpp"
#include "cli/mint_output.hpp"
#include "cli/progress.hpp"
#include "cli/validators.hpp"

namespace abci::cli {
namespace {

struct MintStatusSettings {
    std::string id;
    std::string idempotency_key;
    bool wait = false;
    unsigned timeout_seconds = kDefaultMintTimeoutSeconds;
};

// --wait asks the status route again after half a second, then each pause
// half as long again, up to 5 s: a mint takes a block or a few, and each
// question costs the server a read.
constexpr std::chrono::milliseconds kFirstPause{500};
constexpr std::chrono::milliseconds kLongestPause{5000};

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

bool pending(const nlohmann::json& answer) { return answer.at("data").value("state", "") == "pending"; }

// The status asked again until the mint is final, a progress line on a terminal meanwhile.
nlohmann::json await_outcome(Context& ctx, const MintStatusSettings& s, nlohmann::json answer) {
    const auto mint_id = cell(answer.at("data").value("mintId", nlohmann::json(nullptr)));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(s.timeout_seconds);
    Spinner spinner(ctx, "waiting for mint " + mint_id + " to be mined");
    for (auto pause = kFirstPause; pending(answer); pause = std::min(pause * 3 / 2, kLongestPause)) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left <= std::chrono::milliseconds(0))
            throw Error(ErrorKind::timeout, "mint " + mint_id + " is still pending after " +
                                                std::to_string(s.timeout_seconds) + " s; wait again: " +
                                                mint_status_command(ctx, mint_id, "", true));
        std::this_thread::sleep_for(std::min(pause, left));
        answer = api_call(ctx, "GET", "/abci/contracts/mints/" + mint_id);
    }
    return answer;
}

void mint_status(Context& ctx, const MintStatusSettings& s) {
    if (s.id.empty() == s.idempotency_key.empty())
        throw Error(ErrorKind::invalid_input, "name the mint: its ID, or --idempotency-key KEY (not both)");
    const bool plain_id = std::all_of(s.id.begin(), s.id.end(), [](unsigned char c) { return std::isxdigit(c) || c == '-'; });
    if (!plain_id) throw Error(ErrorKind::invalid_input, "a mint id is a UUID like 3f2c9a4e-…, not '" + s.id + "'");
    auto answer = s.id.empty() ? api_call(ctx, "GET", "/abci/contracts/mints", {{"idempotencyKey", s.idempotency_key}})
                               : api_call(ctx, "GET", "/abci/contracts/mints/" + s.id);
    if (s.wait) answer = await_outcome(ctx, s, std::move(answer));
    const auto& data = answer.at("data");
    const bool mined = data["result"].is_object();
    ctx.print(status_record(data, mined ? explorer_of(ctx, cell(data["blockchainId"])) : ""), data_and_metadata(answer));
    if (data.value("state", "") != "failed") return;
    const auto kind = data["error"].is_object() ? error_kind_named(data["error"].value("kind", "")) : std::nullopt;
    ctx.exit_code = s.wait ? exit_code_for_failed_mint(kind.value_or(ErrorKind::internal)) : kExitError;
}

}  // namespace

void add_mint_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "mint", "A mint's outcome", [&ctx](CLI::App& mint) {
        mint.require_subcommand(1);
        auto s = std::make_shared<MintStatusSettings>();
        auto* cmd = mint.add_subcommand(
            "status",
            "A mint's state (pending, mined, failed), its transactions and, once mined, its answer; exit 0 mined or "
            "pending, 1 failed (-q: the transaction hash once mined, else the state). --wait: until mined or failed, "
            "then exit as the mint command would have (1 when --timeout passes first)");
        cmd->add_option("ID", s->id, "The mint id (from mint-role or mint-entity --no-wait, an error of theirs, or the API)");
        set_examples(*cmd, {{"What became of a mint whose answer was lost",
                             "abcictl mint status --idempotency-key abcictl-0b6f8a52-2c1e-4d0a-9f3b-7e5d4c3b2a19"},
                            {"Wait for the outcome of a mint sent with --no-wait",
                             "abcictl mint status 3f2c9a4e-8b1d-4c6e-9a7f-2d5b8e1c0a93 --wait"}});
        cmd->add_option("--idempotency-key", s->idempotency_key, "The Idempotency-Key the mint was sent with (your own mints)");
        auto* wait = cmd->add_flag("--wait", s->wait,
                      "Ask again until the mint is mined or failed (after 0.5 s, then 1.5 times longer each time, at "
                      "most 5 s apart); a progress line on a terminal");
        whole_number(cmd->add_option("--timeout", s->timeout_seconds, "Seconds --wait waits at most"), 1, 86'400)
            ->capture_default_str()
            ->needs(wait);
        cmd->callback([s, &ctx] { mint_status(ctx, *s); });
    });
}

}  // namespace abci::cli
