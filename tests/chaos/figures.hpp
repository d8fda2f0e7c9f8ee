#pragma once
// The chaos suite's size (from the environment) and its figures: one row per
// scenario run, printed as it is recorded and again as a table with totals
// when the test run ends (what `make chaos` shows).

#include <array>
#include <cstdint>
#include <string>

#include "support/fault_proxy.hpp"

namespace abci::test::chaos {

/// How much each scenario does. The reduced size (the default) keeps the
/// suite within `make test`'s budget, twice (release and ASan);
/// ABCI_CHAOS_SCALE=full is `make chaos`. ABCI_CHAOS_RUNS (kill -9 runs of
/// keyed mints) and ABCI_CHAOS_MINTS (mints per burst) override either.
struct Scale {
    unsigned kill_runs;
    unsigned fault_runs;
    unsigned node_restart_runs;
    unsigned keyless_runs;  // kill -9 runs of mints without keys
    unsigned reorg_runs;
    unsigned reset_runs;
    unsigned funds_runs;
    std::size_t mints_per_burst;
    bool full;
    /// A scenario's `runs` split by mint mode: with one transaction per mint,
    /// then with the server's batching mode on. Full: all of them, then half
    /// as many again batched. Reduced (within the suite's budget): one in
    /// each mode when there are two, else one in the mode base_seed() picks,
    /// so that repeated suites meet both.
    struct Split {
        unsigned plain;
        unsigned batched;
    };
    [[nodiscard]] Split split(unsigned runs) const;
};
[[nodiscard]] const Scale& scale();

/// The seed of a scenario's first run (each further run adds 1):
/// ABCI_CHAOS_SEED when set, else a fresh one each time the suite runs, so
/// that repeated runs reach different points; printed, to replay a failure.
[[nodiscard]] std::uint64_t base_seed();

struct Figures {
    std::string scenario;  // "+batch" at its end: with [mint_batching] on
    std::uint64_t seed = 0;
    unsigned kills = 0;          // kill -9 of serve
    unsigned node_restarts = 0;  // anvil stopped and started with its state
    unsigned reorgs = 0;         // anvil_rollback of 1..confirmations+1 blocks
    unsigned resets = 0;         // the chain reset to genesis, the token deployed again
    unsigned unfunded = 0;       // the signer's balance set to 0 for a while
    std::array<std::uint64_t, kFaultKinds> faults{};  // injected by the FaultProxy, by kind
    std::size_t mints = 0;
    std::size_t answered = 0;    // settled with a 200 (a keyless mint's maybe learned through its status)
    // Keyless mints sent and never answered, so that nothing names them: no
    // loss when the chain shows none or exactly the amount asked, but the
    // caller cannot know which.
    std::size_t unknown = 0;
    std::size_t duplicates = 0;  // mints beyond the one asked for, by the recipients' balances on chain
    std::size_t lost = 0;        // recipients holding less than asked for
    std::size_t stray = 0;       // the signer's transactions to the token that no 200 answer names
    // 200 answers naming no successful transaction of the signer, and repeats answered otherwise than first
    std::size_t wrong = 0;
    double worst_answer_s = 0;   // from a mint's first attempt to its 200
};

/// Prints `row` and keeps it for the table printed at the end of the run.
void record(const Figures& row);

}  // namespace abci::test::chaos
