// `abcictl admin journal list|show|abandon`: the server's transaction journal,
// read from its data directory (like `admin audit`). What is pending or
// stuck, what each transaction is for (its mints and their Idempotency-Keys),
// and giving up one whose nonce the chain it was sent to proves consumed by
// something else, or, with --force, on a chain that was reset. The logic is core's
// (core/service/journal_admin.hpp); this file parses and prints.

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
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

#ifdef ABCI_WITH_SERVE
#include "serve/settings.hpp"
#endif

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
    // A bare header would leave the reader wondering whether the filter or the journal is empty.
    if (rows.empty() && !ctx.options.json && !ctx.options.quiet) {
        std::string which;
        for (const auto& status : statuses) which += (which.empty() ? " with status " : " or ") + status;
        std::cout << "no transactions in the journal" << which << (s.chain.empty() ? "" : " on " + s.chain)
                  << (s.all ? "" : " (--all lists every status)") << "\n";
        return;
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
    bool even_while_serving = false;
};

// The node the chain is asked through: --rpc-url, else the one the server's
// config names for the transaction's chain (--config or ABCI_CONFIG, else
// the devnet's own config in the data directory); nothing when neither is given.
std::optional<service::ChainNode> chain_node(const AbandonSettings& s, const DataDirOption& where,
                                             const std::string& blockchain_id) {
    if (!s.rpc_url.empty()) return service::ChainNode{{s.rpc_url}, false};
#ifdef ABCI_WITH_SERVE
    serve::FlagSettings flags;
    flags.config_file = where.config_file;
    auto env = serve::abci_environment();
    if (flags.config_file.empty() && !env.contains("ABCI_CONFIG")) {
        const auto devnet = where.directory(false).root() / "devnet" / "config.toml";
        if (!std::filesystem::exists(devnet)) return std::nullopt;
        flags.config_file = devnet.string();
    }
    const auto settings = serve::load_settings(flags, env);
    for (const auto& chain : settings.chains)
        if (chain.id == blockchain_id) return service::ChainNode{chain.rpc_urls, true};
    throw Error(ErrorKind::not_found, "the server's config " + settings.config_file + " names no chain " + blockchain_id +
                                          ": give --rpc-url URL of its node");
#else
    (void)where, (void)blockchain_id;
    if (where.config_file.empty()) return std::nullopt;
    throw Error(ErrorKind::unavailable, "this abcictl was built without the server and cannot read its config: give --rpc-url");
#endif
}

// What the node holds, before anything is done: the operator sees what the
// decision rests on.
void print_findings(const Context& ctx, const service::AbandonPlan& plan, const service::ChainFindings& found) {
    std::string mined;
    for (const auto& [hash, block] : found.mined) mined += (mined.empty() ? "" : ", ") + hash + " in block " + std::to_string(block);
    ctx.note("The node at " + found.node + " (block 0 " + found.genesis + "): the account's latest nonce is " +
             std::to_string(found.latest_nonce) + "; of the " + std::to_string(plan.versions.size()) + " version(s) of nonce " +
             std::to_string(plan.entry.nonce) + ", " + (mined.empty() ? "none is mined" : mined) + ".");
}

// A server sending for the chain keeps sending what --force gives up: the
// data directory's lock (SQLite), or the lane's running lease (a database
// that replicas share). The lock is held, when taken, until the abandon is done.
std::optional<store::DataDirLock> refuse_while_serving(const AbandonSettings& s, const DataDirOption& where,
                                                       store::Store& store, const service::AbandonPlan& plan) {
    std::string holder;
    std::optional<store::DataDirLock> lock;
    if (where.database.url.empty()) {
        try {
            lock.emplace(where.directory(false).lock_for_server("abcictl admin journal abandon"));
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::invalid_input) throw;
            holder = e.what();
        }
    } else if (const auto owner = service::lane_owner(store, plan)) {
        holder = "the server " + *owner + " sends for lane " + plan.lane;
    }
    if (holder.empty() || s.even_while_serving) return lock;
    throw Error(ErrorKind::conflict,
                holder + ": a server would keep sending the transaction --force gives up, and a retry of its mints "
                         "would mint twice. Stop it first (or add --even-while-serving if you must)");
}

void abandon(const Context& ctx, store::Store& store, const DataDirOption& where, const AbandonSettings& s) {
    const auto plan = service::plan_abandon(store, s.hash);
    const auto lock = s.force ? refuse_while_serving(s, where, store, plan) : std::nullopt;
    const auto node = chain_node(s, where, plan.entry.blockchain_id);
    if (!node && !s.force)
        throw Error(ErrorKind::invalid_input,
                    "abandoning needs the chain's proof that the nonce is consumed by another transaction: give "
                    "--config FILE (the server's config, for its node of the chain) or --rpc-url URL (or --force if "
                    "the chain was reset)");
    std::optional<service::ChainFindings> found;
    if (node) {
        try {
            found = service::ask_chain(plan, *node);
            print_findings(ctx, plan, *found);
        } catch (const Error& e) {
            // Under --force a node that is down or on another chain (one reset
            // since) proves nothing either way: the operator's word stands.
            if (!s.force || e.kind() == ErrorKind::internal) throw;
            ctx.note(std::string(e.what()) + ": going on without the chain's word.");
        }
    }
    std::string reason;
    if (s.force) {
        if (found) service::require_none_mined(plan, *found);
        const std::string question =
            "Abandon transaction " + s.hash + " (nonce " + std::to_string(plan.entry.nonce) + " of " + plan.entry.sender +
            " on " + plan.entry.blockchain_id + ", " + std::to_string(plan.versions.size()) +
            " version(s)) without the chain's proof, and fail its mints " + joined(plan.mint_ids) +
            "? Only if the chain was reset (if it can still be mined, a retry of its mints mints twice).";
        if (!confirm(ctx.options, question)) throw Error(ErrorKind::conflict, "nothing abandoned");
        reason = "given up by the operator without the chain's proof (--force)";
    } else {
        service::require_nonce_consumed(plan, *found);
        reason = "its nonce was consumed on chain by another transaction (the account's latest nonce is " +
                 std::to_string(found->latest_nonce) + ")";
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
                    "a retry mints anew: only once a node of the chain it was sent to (the same block 0) proves its "
                    "nonce consumed by another transaction, or with --force on a chain that was reset (asks first; -y; "
                    "refused while a server sends for the chain, and when a node shows it mined). ") + kServeNote,
        [a, &ctx](store::Store& store, const DataDirOption& where) { abandon(ctx, store, where, *a); });
    set_examples(*abandon_cmd, {
                 {"Give up a transaction the server's node proves replaced", "abcictl admin journal abandon --data-dir /var/lib/abcictl --config /etc/abcictl/serve.toml 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060"},
                 {"Ask another node of the same chain", "abcictl admin journal abandon --data-dir /var/lib/abcictl --rpc-url https://rpc.sepolia.org 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060"}});
    abandon_cmd->add_option("HASH", a->hash, "The transaction hash (0x…)")->required();
    abandon_cmd->add_option("--rpc-url", a->rpc_url,
                            "JSON-RPC endpoint of the chain, for the proof; it must have the block 0 the server "
                            "recorded for the chain (default: the server's node, from --config)");
    auto* force = abandon_cmd->add_flag(
        "--force", a->force,
        "No proof: the chain was reset (asks for confirmation unless -y). The chain is still asked when a node "
        "answers, and a version it shows mined is not abandoned");
    abandon_cmd->add_flag("--even-while-serving", a->even_while_serving,
                          "With --force: go on although a server sends for the chain (it keeps sending the "
                          "transaction; a retry of its mints may mint twice)")
        ->needs(force);
}

}  // namespace abci::cli
