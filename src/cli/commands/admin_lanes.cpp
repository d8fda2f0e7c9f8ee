// `abcictl admin lanes`: which server sends for each (chain, signer) lane of
// the servers on one database (DESIGN.md §9), under which epoch, until when
// its lease runs, and what its journal holds unsettled; read from the store
// as /abci/health's lane:<id> checks read it.

#include <CLI/CLI.hpp>
#include <chrono>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/data_dir_option.hpp"
#include "cli/examples.hpp"
#include "core/store/store.hpp"
#include "core/util/time.hpp"

namespace abci::cli {
namespace {

using nlohmann::json;

// "held 2s more" or "ran out 5s ago": a lease is judged by its seconds.
std::string lease_text(std::chrono::milliseconds left) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(left).count();
    return left.count() > 0 ? "held " + std::to_string(seconds) + "s more" : "ran out " + std::to_string(-seconds) + "s ago";
}

void show_lanes(const Context& ctx, store::Store& store) {
    std::vector<std::vector<std::string>> rows;
    json out = json::array();
    const auto now = std::chrono::system_clock::now();
    for (const auto& lane : store.lanes().list()) {
        const auto chain = lane.lane.substr(0, lane.lane.find('/'));
        const auto pending = store.journal().pending(chain).size();
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(lane.lease_until - now);
        rows.push_back({lane.lane, lane.owner, std::to_string(lane.epoch), lease_text(left),
                        std::to_string(pending), lane.halted.empty() ? "-" : lane.halted});
        out.push_back({{"lane", lane.lane},
                       {"owner", lane.owner},
                       {"epoch", lane.epoch},
                       {"leaseUntil", util::format_iso8601_utc(lane.lease_until)},
                       {"leaseHeld", left.count() > 0},
                       {"pendingTransactions", pending},
                       {"halted", lane.halted.empty() ? json(nullptr) : json(lane.halted)}});
    }
    ctx.print_table({"LANE", "OWNER", "EPOCH", "LEASE", "PENDING", "HALTED"}, rows, out);
}

}  // namespace

void add_admin_lanes_command(CLI::App& admin, Context& ctx) {
    auto* command = add_store_command(admin, "lanes", "Which server sends for each chain and signer, and since which epoch",
                                      [&ctx](store::Store& store) { show_lanes(ctx, store); });
    set_examples(*command, {{"The lanes of the replicas on one database",
                             "abcictl admin lanes --database-url postgresql://abci@db.example/abci"}});
}

}  // namespace abci::cli
