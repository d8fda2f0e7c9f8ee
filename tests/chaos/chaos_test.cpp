// Exactly once under crashes and node faults: bursts of role and entity
// mints, each with its own Idempotency-Key and re-sent with it until settled,
// while serve is killed with SIGKILL, while every kind of JSON-RPC fault hits
// the calls between serve and anvil, and while anvil is stopped and restarted
// with its state. The chain is the oracle (oracle.hpp). The size comes from
// the environment (figures.hpp); `make chaos` runs the full one.

#include <functional>
#include <iostream>
#include <thread>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "chaos/burst.hpp"
#include "chaos/figures.hpp"
#include "chaos/oracle.hpp"

namespace abci::test::chaos {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Long enough for a mint whose first attempt died with the server or the node
// to settle after the restart; an unsettled key after it is a finding.
constexpr auto kSettleWithin = 90s;

ChainServer::Options one_second_blocks() {
    ChainServer::Options options;
    // As a public chain mines: many mints wait for the same block, and a crash finds some sent, not yet mined.
    options.anvil.block_time = 1000ms;
    return options;
}

// Where a burst started: the chain then, and the moment.
struct BurstStart {
    ChainMark chain;
    Clock::time_point time;
};

// Returns at a random moment of the burst's first block time (it starts right
// after a block): mints being sent, or sent and not yet mined, or a few
// already answered.
void reach_random_point(ChainServer& chain, Random& random, const BurstStart& start) {
    const auto at = std::chrono::milliseconds(random.below(900));
    std::this_thread::sleep_until(start.time + at);
    std::cout << fmt::format("chaos: disruption {} ms into the burst, {} of {} mints sent to the node\n", at.count(),
                             chain.nonce(ChainServer::signer(), true) - start.chain.nonce, scale().mints_per_burst);
}

// One run: a fresh burst of mints; `during` once it is under way; `after`
// once every mint settled, before the chain is read; then the verdict.
void run(ChainServer& chain, Figures figures, const std::function<void(Random&, const BurstStart&)>& during,
         const std::function<void(Figures&)>& after = {}) {
    Random random(figures.seed);
    const auto token = chain.server().login_admin().token;
    const auto http = chain.http();
    auto mints = make_mints(chain, random, fmt::format("{}-{}", figures.scenario, figures.seed),
                            scale().mints_per_burst);
    // Right after a block, so that the next is a block time away: a
    // disruption within it finds mints sent and not yet mined.
    BurstStart start{mark(chain), Clock::now()};
    for (const auto deadline = Clock::now() + 3s; Clock::now() < deadline;) {
        std::this_thread::sleep_for(20ms);
        if (const auto now = mark(chain); now.block != start.chain.block) {
            start = {now, Clock::now()};
            break;
        }
    }
    Burst burst(http, token, std::move(mints), kSettleWithin);
    during(random, start);
    const auto settled = burst.wait();
    if (after) after(figures);
    judge(chain, start.chain, http, token, burst, settled, figures);
    require_exactly_once(figures);
}

}  // namespace

TEST_CASE("kill -9 of serve at random points of mint bursts, restart, every key settles to its one mint",
          "[chaos]") {
    ChainServer chain(one_second_blocks());
    for (unsigned i = 0; i < scale().kill_runs; ++i)
        run(chain, {.scenario = "kill-9", .seed = base_seed() + i, .kills = 1},
            [&](Random& random, const BurstStart& start) {
                reach_random_point(chain, random, start);
                chain.kill_server();
                chain.server().restart();
            });
}

TEST_CASE("every kind of JSON-RPC fault between serve and anvil during mint bursts, every key settles to its "
          "one mint",
          "[chaos]") {
    auto options = one_second_blocks();
    // A hang shorter than the server's 10 s per attempt, so that it is seen as
    // a connection lost after the request went out, not as a timeout.
    options.fault_proxy = FaultProxy::Options{.seed = base_seed(), .hang_for = 2s, .slow_by = 300ms};
    ChainServer chain(options);
    auto& proxy = chain.proxy();
    for (unsigned i = 0; i < scale().fault_runs; ++i) {
        std::array<std::uint64_t, kFaultKinds> before{};
        for (const auto fault : kAllFaults) before[static_cast<std::size_t>(fault)] = proxy.injected(fault);
        run(
            chain, {.scenario = "rpc-faults", .seed = base_seed() + i},
            // 5 % of requests each, three in ten faulty: the server batches and
            // coalesces its calls into few requests, so that a lower rate
            // leaves some kinds unmet in a burst.
            [&](Random&, const BurstStart&) { proxy.set_all_rates(0.05); },
            [&](Figures& figures) {
                proxy.set_all_rates(0);
                for (const auto fault : kAllFaults) {
                    const auto kind = static_cast<std::size_t>(fault);
                    figures.faults[kind] = proxy.injected(fault) - before[kind];
                }
            });
    }
}

TEST_CASE("anvil stopped and restarted with its state in the middle of mint bursts, every key settles to its "
          "one mint",
          "[chaos]") {
    auto options = one_second_blocks();
    // anvil dumps its chain on SIGTERM and loads it again; its pool of unmined
    // transactions is lost, as a real node's may be: the journal must carry them.
    options.anvil.persist_state = true;
    ChainServer chain(options);
    for (unsigned i = 0; i < scale().node_restart_runs; ++i)
        run(chain, {.scenario = "anvil-restart", .seed = base_seed() + i, .node_restarts = 1},
            [&](Random& random, const BurstStart& start) {
                reach_random_point(chain, random, start);
                const auto down = std::chrono::milliseconds(500 + random.below(2501));
                chain.anvil().stop();
                std::this_thread::sleep_for(down);
                chain.anvil().start();
                std::cout << fmt::format("chaos: anvil down for {} ms\n", down.count());
            });
}

}  // namespace abci::test::chaos
