// Exactly once under crashes and node faults: bursts of role and entity
// mints, each with its own Idempotency-Key and re-sent with it until settled,
// while serve is killed with SIGKILL, while every kind of JSON-RPC fault hits
// the calls between serve and anvil, while anvil is stopped and restarted
// with its state, while blocks are rolled back (reorgs), while the chain is
// reset to genesis and while the signer has no funds; and mints without keys
// under SIGKILL, whose outcomes can only be learned by mint id. Each scenario
// runs with every mint its own transaction, then again with the server's
// batching mode on, where one kill, fault, reorg or reset meets mintMany
// transactions carrying many mints. The chain is the oracle (oracle.hpp).
// The size comes from the environment (figures.hpp); `make chaos` runs the
// full one.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chaos/burst.hpp"
#include "chaos/figures.hpp"
#include "chaos/oracle.hpp"
#include "support/tools.hpp"

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

// Where a burst started: the chain then, and the moment; and what the
// disruption did to the chain that the oracle must know.
struct BurstStart {
    ChainMark chain;
    Clock::time_point time;
    Circumstances circumstances{};
};

// Returns at a random moment of the burst's first `span` (by default its
// first block time; it starts right after a block): mints being sent, or sent
// and not yet mined, or a few already answered.
void reach_random_point(ChainServer& chain, Random& random, const BurstStart& start,
                        std::chrono::milliseconds span = 900ms) {
    const auto at = std::chrono::milliseconds(random.below(static_cast<std::uint64_t>(span.count())));
    std::this_thread::sleep_until(start.time + at);
    std::cout << fmt::format("chaos: disruption {} ms into the burst, {} of {} mints sent to the node\n", at.count(),
                             chain.nonce(ChainServer::signer(), true) - start.chain.nonce, scale().mints_per_burst);
}

// One run: a fresh burst of mints (with keys unless `keyed` is false);
// `during` once it is under way (it may move where the oracle starts, after a
// reset); `after` once every mint settled, before the chain is read; then the verdict.
void run(ChainServer& chain, Figures figures, const std::function<void(Random&, BurstStart&)>& during,
         const std::function<void(Figures&)>& after = {}, bool keyed = true) {
    Random random(figures.seed);
    const auto token = chain.server().login_admin().token;
    const auto http = chain.http();
    auto mints = make_mints(chain, random, fmt::format("{}-{}", figures.scenario, figures.seed),
                            scale().mints_per_burst, keyed);
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
    judge(chain, start.chain, http, token, burst.mints(), settled, figures, start.circumstances);
    require_exactly_once(figures);
}

// The runs of a scenario, each with its seed, as scale().split(runs) says:
// with every mint its own transaction, then with the server restarted with
// [mint_batching] on.
void each_run(ChainServer& chain, unsigned runs, const Figures& row, const std::function<void(Figures)>& one) {
    const auto [plain, batched] = scale().split(runs);
    for (unsigned i = 0; i < plain + batched; ++i) {
        Figures figures = row;
        figures.seed = base_seed() + i;
        if (i >= plain) figures.scenario += "+batch";
        if (i == plain) chain.restart_server("[mint_batching]\nenabled = true\n");
        one(std::move(figures));
    }
}

// Where a chain just reset starts for the oracle: the block of the signer's
// first transaction (nonce 0, the token's deployment; anvil may have mined
// an empty block before it), with the signer's nonce there.
ChainMark reset_chain_start(ChainServer& chain) {
    for (std::uint64_t block = 1;; ++block) {
        const auto nonce =
            chain.node_rpc("eth_getTransactionCount", {ChainServer::signer(), fmt::format("0x{:x}", block)});
        REQUIRE(nonce.is_string());
        if (const auto n = std::stoull(nonce.get<std::string>(), nullptr, 16); n > 0) return {block, n};
    }
}

// The reorg scenario's chain: anvil mines only when told, and this mines a
// block every 300 ms, as the test's clock; while reorgs are on, it rolls
// back 1..confirmations+1 blocks (anvil_rollback: the blocks and their
// transactions are gone from the node) at random moments, 0.3 to 1.5 s apart
// (the first within 0.6 s), never below the block the run started from (what
// came before was judged already). Calls the node itself: Catch2's assertions are
// not for other threads.
class Miner {
public:
    Miner(ChainServer& chain, unsigned confirmations, std::uint64_t seed)
        : url_(chain.anvil().url()), max_depth_(confirmations + 1), random_(seed) {
        (void)chain.node_rpc("evm_setAutomine", {false});
        thread_ = std::thread([this] { loop(); });
    }
    ~Miner() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        thread_.join();
    }
    Miner(const Miner&) = delete;
    Miner& operator=(const Miner&) = delete;

    /// Reorgs for `span` from now: they end by themselves, so that a burst's
    /// mints can reach their confirmations however slowly the blocks come.
    void start_reorgs(std::uint64_t floor_block, std::chrono::milliseconds span) {
        std::lock_guard lock(mutex_);
        floor_ = floor_block;
        reorging_ = true;
        reorgs_until_ = Clock::now() + span;
        next_reorg_ = Clock::now() + std::chrono::milliseconds(random_.below(600));
        reorgs_ = 0;
    }
    /// Stops the reorgs; how many there were since start_reorgs().
    unsigned stop_reorgs() {
        std::lock_guard lock(mutex_);
        reorging_ = false;
        return reorgs_;
    }
    /// The first call to the node that failed (empty: none did).
    [[nodiscard]] std::string failure() {
        std::lock_guard lock(mutex_);
        return failure_;
    }

private:
    std::chrono::milliseconds pause() { return std::chrono::milliseconds(300 + random_.below(1201)); }

    std::optional<nlohmann::json> node(const std::string& method, const nlohmann::json& params = nlohmann::json::array()) {
        try {
            return json_rpc(url_, method, params);
        } catch (const std::runtime_error& e) {
            std::lock_guard lock(mutex_);
            if (failure_.empty()) failure_ = e.what();
            return std::nullopt;
        }
    }

    void loop() {
        std::unique_lock lock(mutex_);
        while (!stop_) {
            if (reorging_ && Clock::now() >= next_reorg_ && Clock::now() < reorgs_until_) {
                const auto depth = 1 + random_.below(max_depth_);
                const auto floor = floor_;
                next_reorg_ = Clock::now() + pause();
                lock.unlock();
                const auto answer = node("eth_blockNumber");
                const auto head = answer ? std::stoull(answer->get<std::string>(), nullptr, 16) : 0;
                if (head > floor) {
                    const auto d = std::min<std::uint64_t>(depth, head - floor);
                    if (node("anvil_rollback", {d})) {
                        std::cout << fmt::format("chaos: reorg of {} block(s) at block {}\n", d, head);
                        lock.lock();
                        ++reorgs_;
                        lock.unlock();
                    }
                }
                lock.lock();
            }
            lock.unlock();
            (void)node("evm_mine");
            lock.lock();
            wake_.wait_for(lock, 300ms, [this] { return stop_; });
        }
    }

    std::string url_;
    std::uint64_t max_depth_;
    Random random_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    bool reorging_ = false;
    std::uint64_t floor_ = 0;
    Clock::time_point next_reorg_{};
    Clock::time_point reorgs_until_{};
    unsigned reorgs_ = 0;
    std::string failure_;
    std::thread thread_;
};

}  // namespace

TEST_CASE("kill -9 of serve at random points of mint bursts, restart, every key settles to its one mint",
          "[chaos][kill]") {
    ChainServer chain(one_second_blocks());
    each_run(chain, scale().kill_runs, {.scenario = "kill-9", .kills = 1}, [&](Figures figures) {
        run(chain, std::move(figures), [&](Random& random, const BurstStart& start) {
            reach_random_point(chain, random, start);
            chain.kill_server();
            chain.server().restart();
        });
    });
}

TEST_CASE("every kind of JSON-RPC fault between serve and anvil during mint bursts, every key settles to its "
          "one mint",
          "[chaos][rpc]") {
    auto options = one_second_blocks();
    // A hang shorter than the server's 10 s per attempt, so that it is seen as
    // a connection lost after the request went out, not as a timeout.
    options.fault_proxy = FaultProxy::Options{.seed = base_seed(), .hang_for = 2s, .slow_by = 300ms};
    ChainServer chain(options);
    auto& proxy = chain.proxy();
    each_run(chain, scale().fault_runs, {.scenario = "rpc-faults"}, [&](Figures row) {
        std::array<std::uint64_t, kFaultKinds> before{};
        for (const auto fault : kAllFaults) before[static_cast<std::size_t>(fault)] = proxy.injected(fault);
        run(
            chain, std::move(row),
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
    });
}

TEST_CASE("anvil stopped and restarted with its state in the middle of mint bursts, every key settles to its "
          "one mint",
          "[chaos][anvil]") {
    auto options = one_second_blocks();
    // anvil dumps its chain on SIGTERM and loads it again; its pool of unmined
    // transactions is lost, as a real node's may be: the journal must carry them.
    options.anvil.persist_state = true;
    ChainServer chain(options);
    const Figures row{.scenario = "anvil-restart", .node_restarts = 1};
    each_run(chain, scale().node_restart_runs, row, [&](Figures figures) {
        run(chain, std::move(figures), [&](Random& random, const BurstStart& start) {
            reach_random_point(chain, random, start);
            const auto down = std::chrono::milliseconds(500 + random.below(2501));
            chain.anvil().stop();
            std::this_thread::sleep_for(down);
            chain.anvil().start();
            std::cout << fmt::format("chaos: anvil down for {} ms\n", down.count());
        });
    });
}

TEST_CASE("kill -9 of serve during bursts of mints without keys, outcomes learned by mint id, none minted twice",
          "[chaos][keyless]") {
    ChainServer::Options options;
    // 2 s blocks, and mints not mined within 1 s answer 504 with their mint
    // id: the kill within the first 2.5 s finds mints waiting with no answer
    // yet (their callers will never know which mint was theirs), or named by
    // a 504 and not yet mined, or mined (a big burst: all of these at once).
    options.anvil.block_time = 2000ms;
    options.devnet_keys = "receiptTimeoutMs = 1000\n";
    ChainServer chain(options);
    each_run(chain, scale().keyless_runs, {.scenario = "keyless", .kills = 1}, [&](Figures figures) {
        run(
            chain, std::move(figures),
            [&](Random& random, const BurstStart& start) {
                reach_random_point(chain, random, start, 2500ms);
                chain.kill_server();
                chain.server().restart();
            },
            {}, false);
    });
}

TEST_CASE("reorgs of 1 to confirmations+1 blocks at random moments of mint bursts, every key settles to its one "
          "mint",
          "[chaos][reorg]") {
    constexpr unsigned kConfirmations = 2;
    ChainServer::Options options;
    options.devnet_keys = fmt::format("confirmations = {}\n", kConfirmations);
    ChainServer chain(options);
    Miner miner(chain, kConfirmations, base_seed());
    each_run(chain, scale().reorg_runs, {.scenario = "reorg"}, [&](Figures row) {
        Clock::time_point began{};
        run(
            chain, std::move(row),
            // For 5 s, so that a short burst meets some too, and some come
            // after answers, deeper than the confirmations; not longer, or
            // on a slow machine they may undo blocks as fast as they come.
            [&](Random&, const BurstStart& start) {
                began = start.time;
                miner.start_reorgs(start.chain.block, 5s);
            },
            [&](Figures& figures) {
                std::this_thread::sleep_until(began + 5s);
                figures.reorgs = miner.stop_reorgs();
                // Blocks go on: a reorg after the last answer (deeper than the
                // confirmations) is noticed within a few seconds and its mint sent again.
                std::this_thread::sleep_for(6s);
                INFO("the miner: " << miner.failure());
                CHECK(miner.failure().empty());
            });
    });
}

TEST_CASE("a chain reset in the middle of mint bursts, every key retried until answered, none twice on the new "
          "chain",
          "[chaos][reset]") {
    auto options = one_second_blocks();
    // Mints caught by the reset wait for a receipt that never comes: they
    // answer 504 soon, and are retried with their keys.
    options.devnet_keys = "receiptTimeoutMs = 2000\n";
    // The node is out of the server's reach while it is reset and the token
    // deployed again, as a devnet restarting is: else the server, seeing the
    // chain behind it, may fill the deployer's nonce 0 before the token is
    // back at its address.
    options.fault_proxy = FaultProxy::Options{.seed = base_seed()};
    ChainServer chain(options);
    each_run(chain, scale().reset_runs, {.scenario = "reset", .resets = 1}, [&](Figures figures) {
        run(chain, std::move(figures), [&](Random& random, BurstStart& start) {
            // Mostly with mints in flight: before the first block (the
            // reset takes a few hundred ms), now and then after it.
            reach_random_point(chain, random, start, 800ms);
            chain.proxy().set_rate(Fault::drop_before, 1.0);
            chain.reset_chain();
            chain.proxy().set_rate(Fault::drop_before, 0.0);
            start.circumstances.chain_reset_done = Clock::now();
            start.chain = reset_chain_start(chain);
            (void)chain.node_rpc("evm_setIntervalMining", {1});  // 1 s blocks again, as before
        });
    });
}

TEST_CASE("the signer out of funds for a second in the middle of mint bursts, every key settles to its one mint",
          "[chaos][unfunded]") {
    ChainServer chain(one_second_blocks());
    each_run(chain, scale().funds_runs, {.scenario = "unfunded", .unfunded = 1}, [&](Figures figures) {
        run(chain, std::move(figures), [&](Random& random, const BurstStart& start) {
            // While mints are being signed, or wait in the pool: the
            // next block comes while the signer cannot pay.
            reach_random_point(chain, random, start, 500ms);
            const auto balance = chain.node_rpc("eth_getBalance", {ChainServer::signer(), "latest"});
            (void)chain.node_rpc("anvil_setBalance", {ChainServer::signer(), "0x0"});
            std::this_thread::sleep_for(1s);
            (void)chain.node_rpc("anvil_setBalance", {ChainServer::signer(), balance});
        });
    });
}

}  // namespace abci::test::chaos
