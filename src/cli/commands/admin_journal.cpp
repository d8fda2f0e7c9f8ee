// `abcictl admin journal list|show|abandon`: the server's transaction journal,
// read from its data directory (like `admin audit`). What is pending or
// stuck, what each transaction is for (its mints and their Idempotency-Keys),
// and giving up one whose nonce the chain proves consumed by something else,
// or, with --force, on a chain that was reset. The logic is core's
// (core/service/journal_admin.hpp); this file parses and prints.

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/confirm.hpp"
#include "cli/context.hpp"
#include "cli/data_dir_option.hpp"
#include "cli/validators.hpp"
#include "core/service/journal_admin.hpp"
#include "core/chain/tx_state.hpp"
#include "core/error.hpp"
#include "core/util/time.hpp"

namespace abci::cli {
namespace {

/// Every status a journaled transaction can have, as the journal names them.
std::vector<std::string> tx_status_names() {
    std::vector<std::string> names;
    for (auto s = chain::TxStatus::pending; s <= chain::TxStatus::abandoned; s = static_cast<chain::TxStatus>(static_cast<int>(s) + 1))
        names.emplace_back(chain::to_string(s));
    return names;
}

using nlohmann::json;

constexpr const char* kServeNote =
    "A running serve keeps sending what it adopted from the journal until its next start: restart it after an abandon.";

// "45s", "12m05s", "3h05m", "2d04h": how long ago.
std::string format_age(std::chrono::seconds age) {
    const long long s = std::max<long long>(0, age.count());
    const auto two = [](long long n) { return (n < 10 ? "0" : "") + std::to_string(n); };
    if (s < 60) return std::to_string(s) + "s";
    if (s < 3600) return std::to_string(s / 60) + "m" + two(s % 60) + "s";
    if (s < 86400) return std::to_string(s / 3600) + "h" + two(s % 3600 / 60) + "m";
    return std::to_string(s / 86400) + "d" + two(s % 86400 / 3600) + "h";
}

std::chrono::seconds age_of(const store::JournalEntry& e) {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now() - e.created_at);
}

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) text += (text.empty() ? "" : ",") + item;
    return text.empty() ? "-" : text;
}

json entry_json(const store::JournalEntry& e, bool with_raw) {
    const auto purpose = service::read_purpose(e.purpose);
    const auto parsed = json::parse(e.purpose, nullptr, false);
    json out = {{"hash", e.hash},
                {"blockchainId", e.blockchain_id},
                {"sender", e.sender},
                {"nonce", e.nonce},
                {"status", chain::to_string(e.status)},
                {"blockNumber", e.block_number == 0 ? json(nullptr) : json(e.block_number)},
                {"createdAt", util::format_iso8601_utc(e.created_at)},
                {"updatedAt", util::format_iso8601_utc(e.updated_at)},
                {"ageSeconds", age_of(e).count()},
                {"op", purpose.op},
                {"mints", purpose.mints},
                {"mintIds", purpose.mint_ids},
                {"idempotencyKeys", purpose.idempotency_keys},
                {"purpose", parsed.is_discarded() ? json(e.purpose) : parsed}};
    if (with_raw) out["raw"] = e.raw;
    return out;
}

struct ListSettings {
    bool all = false;
    std::vector<std::string> statuses;
    std::string chain;
    std::size_t limit = 1000;
};

void list(const Context& ctx, store::Store& store, const ListSettings& s) {
    const std::vector<std::string> statuses = s.all ? std::vector<std::string>{}
                                              : s.statuses.empty() ? std::vector<std::string>{"pending"}
                                                                   : s.statuses;
    std::vector<std::vector<std::string>> rows;
    json out = json::array();
    for (const auto& e : service::list_journal(store, s.chain, statuses, s.limit)) {
        const auto purpose = service::read_purpose(e.purpose);
        const std::string op = purpose.op.empty() ? "-" : purpose.op + (purpose.mints > 1 ? " x" + std::to_string(purpose.mints) : "");
        rows.push_back({e.hash, e.blockchain_id, std::to_string(e.nonce), chain::to_string(e.status), format_age(age_of(e)), op,
                        joined(purpose.mint_ids), joined(purpose.idempotency_keys)});
        out.push_back(entry_json(e, false));
    }
    ctx.print_table({"HASH", "CHAIN", "NONCE", "STATUS", "AGE", "OP", "MINTS", "KEYS"}, rows, out);
}

void show(const Context& ctx, store::Store& store, const std::string& hash) {
    const auto e = service::find_journal_entry(store, hash);
    const auto purpose = service::read_purpose(e.purpose);
    Record record;
    record.essential = chain::to_string(e.status);
    record.fields = {{"hash", e.hash},
                     {"blockchainId", e.blockchain_id},
                     {"sender", e.sender},
                     {"nonce", std::to_string(e.nonce)},
                     {"status", chain::to_string(e.status)},
                     {"blockNumber", e.block_number == 0 ? "-" : std::to_string(e.block_number)},
                     {"createdAt", util::format_iso8601_utc(e.created_at)},
                     {"updatedAt", util::format_iso8601_utc(e.updated_at)},
                     {"age", format_age(age_of(e))},
                     {"op", purpose.op.empty() ? "-" : purpose.op},
                     {"mints", std::to_string(purpose.mints)},
                     {"mintIds", joined(purpose.mint_ids)},
                     {"idempotencyKeys", joined(purpose.idempotency_keys)},
                     {"purpose", e.purpose},
                     {"raw", e.raw}};
    ctx.print(record, entry_json(e, true));
}

struct AbandonSettings {
    std::string hash;
    std::string rpc_url;
    bool force = false;
};

void abandon(const Context& ctx, store::Store& store, const AbandonSettings& s) {
    if (!s.force && s.rpc_url.empty())
        throw Error(ErrorKind::invalid_input,
                    "abandoning needs the chain's proof that the nonce is consumed by another transaction: "
                    "give --rpc-url URL of the chain's node (or --force if the chain was reset)");
    const auto plan = service::plan_abandon(store, s.hash);
    std::string reason;
    if (s.force) {
        const std::string question =
            "Abandon transaction " + s.hash + " (nonce " + std::to_string(plan.entry.nonce) + " of " + plan.entry.sender +
            " on " + plan.entry.blockchain_id + ", " + std::to_string(plan.versions.size()) +
            " version(s)) without the chain's proof, and fail its mints " + joined(plan.mint_ids) +
            "? Only if the chain was reset (if it can still be mined, a retry of its mints mints twice).";
        if (!confirm(ctx.options, question)) throw Error(ErrorKind::conflict, "nothing abandoned");
        reason = "given up by the operator without the chain's proof (--force)";
    } else {
        const auto latest = service::prove_nonce_consumed(plan, s.rpc_url);
        reason = "its nonce was consumed on chain by another transaction (the account's latest nonce is " +
                 std::to_string(latest) + ")";
    }
    const auto result = service::abandon(store, plan, reason);
    Record record;
    record.essential = joined(result.abandoned);
    record.fields = {{"abandoned", joined(result.abandoned)},
                     {"releasedMints", joined(result.released_mints)},
                     {"keptMints", joined(result.kept_mints)},
                     {"reason", reason}};
    ctx.print(record, {{"abandoned", result.abandoned},
                       {"releasedMints", result.released_mints},
                       {"keptMints", result.kept_mints},
                       {"reason", reason}});
    ctx.note(kServeNote);
}

}  // namespace

void add_admin_journal_command(CLI::App& admin, Context& ctx) {
    auto* journal = admin.add_subcommand(
        "journal", std::string("The transaction journal: pending and stuck transactions, and giving one up. ") + kServeNote);
    journal->require_subcommand(1);

    auto l = std::make_shared<ListSettings>();
    auto* list_cmd = add_store_command(*journal, "list", "Journaled transactions, newest first (default: the pending ones)",
                                       [l, &ctx](store::Store& store) { list(ctx, store, *l); });
    set_examples(*list_cmd, {
                 {"Transactions still pending", "abcictl admin journal list --data-dir /var/lib/abcictl"},
                 {"The reverted ones on Amoy", "abcictl admin journal list --data-dir /var/lib/abcictl --status reverted --chain amoy"}});
    auto* all = list_cmd->add_flag("--all", l->all, "Every status, not only pending");
    one_of(list_cmd->add_option("--status", l->statuses, "Only this status (repeatable)"),
           tx_status_names())
        ->excludes(all)
        ->allow_extra_args(false);
    list_cmd->add_option("--chain", l->chain, "Only this blockchain id");
    whole_number(list_cmd->add_option("--limit", l->limit, "Show at most this many (the newest)"), 1, 1'000'000)
        ->capture_default_str();

    auto hash = std::make_shared<std::string>();
    auto* show_cmd = add_store_command(*journal, "show", "One journaled transaction, every field (-q: its status)",
                                       [hash, &ctx](store::Store& store) { show(ctx, store, *hash); });
    set_examples(*show_cmd, {
                 {"Every field of one transaction", "abcictl admin journal show --data-dir /var/lib/abcictl 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060"}});
    show_cmd->add_option("HASH", *hash, "The transaction hash (0x…)")->required();

    auto a = std::make_shared<AbandonSettings>();
    auto* abandon_cmd = add_store_command(
        *journal, "abandon",
        std::string("Give up a pending transaction (and the other versions of its nonce), failing its mints so that "
                    "a retry mints anew: only once the node at --rpc-url proves its nonce consumed by another "
                    "transaction, or with --force on a chain that was reset (asks first; -y). ") + kServeNote,
        [a, &ctx](store::Store& store) { abandon(ctx, store, *a); });
    set_examples(*abandon_cmd, {
                 {"Give up a transaction the node proves replaced", "abcictl admin journal abandon --data-dir /var/lib/abcictl --rpc-url https://rpc.sepolia.org 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060"}});
    abandon_cmd->add_option("HASH", a->hash, "The transaction hash (0x…)")->required();
    auto* rpc = abandon_cmd->add_option("--rpc-url", a->rpc_url, "JSON-RPC endpoint of the chain, for the proof");
    abandon_cmd->add_flag("--force", a->force, "No proof: the chain was reset (asks for confirmation unless -y)")->excludes(rpc);
}

}  // namespace abci::cli
