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
#include "core/error.hpp"
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

void resume_lane(const Context& ctx, store::Store& store, const std::string& lane) {
    if (!store.lanes().find(lane))
        throw Error(ErrorKind::not_found, "there is no lane " + lane + ": `abcictl admin lanes` lists them");
    if (!store.lanes().resume(lane))
        throw Error(ErrorKind::conflict, "the lane " + lane + " is not halted: nothing to resume");
    ctx.note("resumed " + lane + ": its owner takes the signer's nonce on chain as the lane's start within a second");
}

}  // namespace

void add_admin_lanes_command(CLI::App& admin, Context& ctx) {
    // Not add_store_command(): the listing must not open a store when `resume` runs with its own options.
    auto data_dir = std::make_shared<DataDirOption>();
    auto* command = admin.add_subcommand("lanes", "Which server sends for each chain and signer, and since which epoch");
    data_dir->add_to(*command);
    set_examples(*command, {{"The lanes of the replicas on one database",
                             "abcictl admin lanes --database-url postgresql://abci@db.example/abci"}});
    auto lane = std::make_shared<std::string>();
    auto* resume = add_store_command(*command, "resume",
                                     "Let a halted lane send again, once whatever else used its signer's key is stopped",
                                     [&ctx, lane](store::Store& store) { resume_lane(ctx, store, *lane); });
    set_examples(*resume, {{"Resume the lane of the devnet's signer",
                            "abcictl admin lanes resume devnet/0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 --data-dir /var/lib/abcictl"}});
    resume->add_option("LANE", *lane, "The lane, as `abcictl admin lanes` names it (<blockchain id>/<signer address>)")
        ->required();
    command->callback([&ctx, data_dir, resume] {
        if (!resume->parsed()) show_lanes(ctx, *data_dir->open(false));
    });
}

}  // namespace abci::cli
