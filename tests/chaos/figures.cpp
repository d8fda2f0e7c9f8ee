#define CATCH_CONFIG_EXTERNAL_INTERFACES  // for the listener that prints the table
#include "chaos/figures.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <random>
#include <vector>

#include <fmt/format.h>

namespace abci::test::chaos {
namespace {

std::mutex g_mutex;
std::vector<Figures> g_rows;

unsigned env_number(const char* name, unsigned fallback) {
    const char* value = std::getenv(name);
    return value && *value ? static_cast<unsigned>(std::stoul(value)) : fallback;
}

std::string header() {
    std::string line = fmt::format("{:<20} {:>4} {:>6} {:>5} {:>5} {:>5} {:>8}", "scenario", "runs", "kill-9",
                                   "anvil", "reorg", "reset", "unfunded");
    for (const auto fault : kAllFaults) line += fmt::format(" {:>11}", fault_name(fault));
    return line + fmt::format(" {:>6} {:>8} {:>7} {:>4} {:>4} {:>5} {:>5} {:>7}", "mints", "answered", "unknown",
                              "dup", "lost", "stray", "wrong", "worst s");
}

std::string line(const Figures& row, std::size_t runs) {
    std::string out = fmt::format("{:<20} {:>4} {:>6} {:>5} {:>5} {:>5} {:>8}", row.scenario, runs, row.kills,
                                  row.node_restarts, row.reorgs, row.resets, row.unfunded);
    for (const auto count : row.faults) out += fmt::format(" {:>11}", count);
    return out + fmt::format(" {:>6} {:>8} {:>7} {:>4} {:>4} {:>5} {:>5} {:>7.1f}", row.mints, row.answered,
                             row.unknown, row.duplicates, row.lost, row.stray, row.wrong, row.worst_answer_s);
}

void add(Figures& total, const Figures& row) {
    total.kills += row.kills;
    total.node_restarts += row.node_restarts;
    total.reorgs += row.reorgs;
    total.resets += row.resets;
    total.unfunded += row.unfunded;
    total.unknown += row.unknown;
    for (std::size_t i = 0; i < kFaultKinds; ++i) total.faults[i] += row.faults[i];
    total.mints += row.mints;
    total.answered += row.answered;
    total.duplicates += row.duplicates;
    total.lost += row.lost;
    total.stray += row.stray;
    total.wrong += row.wrong;
    total.worst_answer_s = std::max(total.worst_answer_s, row.worst_answer_s);
}

struct TablePrinter : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;
    void testRunEnded(Catch::TestRunStats const& stats) override {
        TestEventListenerBase::testRunEnded(stats);
        std::lock_guard lock(g_mutex);
        if (g_rows.empty()) return;
        Figures total{.scenario = "total"};
        std::cout << "\nchaos figures (seeds: " << base_seed() << " + run)\n" << header() << "\n";
        for (const auto& row : g_rows) {
            std::cout << line(row, 1) << "\n";
            add(total, row);
        }
        std::cout << line(total, g_rows.size()) << "\n" << std::flush;
    }
};

}  // namespace

CATCH_REGISTER_LISTENER(TablePrinter)

const Scale& scale() {
    static const Scale value = [] {
        const char* size = std::getenv("ABCI_CHAOS_SCALE");
        const bool full = size && std::string(size) == "full";
        // Full: 20 kill -9 runs of 300 keyed mints and 5 of keyless ones, 5
        // runs under JSON-RPC faults (a burst meets only about 20: the server
        // batches its calls), 3 anvil restarts, 3 runs of reorgs, 3 chain
        // resets and 3 unfunded signers, and half as many again of each in
        // batching mode: 66 runs, 19,800 mints; reduced: one short burst
        // each (see split()), a second kill -9 run because where the kill
        // lands matters most, and a second chain reset: the first leaves
        // the journal holding the fillers of the nonces the second fills
        // again (docs/decisions.md, chain reset).
        Scale s = full ? Scale{20, 5, 3, 5, 3, 3, 3, 300, true} : Scale{2, 1, 1, 1, 1, 2, 1, 40, false};
        s.kill_runs = env_number("ABCI_CHAOS_RUNS", s.kill_runs);
        s.mints_per_burst = env_number("ABCI_CHAOS_MINTS", static_cast<unsigned>(s.mints_per_burst));
        return s;
    }();
    return value;
}

Scale::Split Scale::split(unsigned runs) const {
    if (full) return {runs, (runs + 1) / 2};
    if (runs >= 2) return {runs - 1, 1};
    return base_seed() % 2 ? Split{0, runs} : Split{runs, 0};
}

std::uint64_t base_seed() {
    static const std::uint64_t seed = [] {
        const char* value = std::getenv("ABCI_CHAOS_SEED");
        return value && *value ? std::stoull(value) : std::random_device{}() % 1'000'000;
    }();
    return seed;
}

void record(const Figures& row) {
    std::lock_guard lock(g_mutex);
    std::cout << header() << "\n" << line(row, 1) << "  (seed " << row.seed << ")\n" << std::flush;
    g_rows.push_back(row);
}

}  // namespace abci::test::chaos
