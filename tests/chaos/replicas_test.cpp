// Exactly once across replicas (DESIGN.md §9): three `abcictl serve` on one
// PostgreSQL database behind Debian's haproxy (examples/haproxy-replicas.cfg
// on the test's ports, its /readyz checks kept), a steady load of keyed mints
// sent through haproxy, while the replica that owns the chain's lane is killed
// with SIGKILL every few seconds and restarted on its port, frozen once
// (SIGSTOP) for 8 s, and the database is restarted as after a crash. Black
// box: whether a replica that does not own the lane answers 503 (haproxy
// sends the mint on) or hands the mint to the owner through the database, the
// chain must hold each key's mint exactly once, on contiguous nonces. The
// failover times are measured and printed, never asserted.

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chaos/burst.hpp"
#include "chaos/figures.hpp"
#include "chaos/oracle.hpp"
#include "support/eventually.hpp"
#include "support/haproxy.hpp"
#include "support/postgres.hpp"
#include "support/tools.hpp"

// Its own namespace: the suite is one unity translation unit, and the other
// files' anonymous namespaces hold names like run() and Clock.
namespace abci::test::chaos::replicas {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using namespace std::chrono_literals;

constexpr const char* kLaneCheck = "lane:devnet";
constexpr auto kFreeze = 8s;
// Longer than any takeover the design allows (about 7 s for a frozen owner):
// a lane nobody owns after this is a finding, not slowness.
constexpr auto kTakeoverWithin = 30s;

enum class Fault { kill, freeze, database_restart };

// What a run does: its mints, how far apart they start (the load must outlast
// the faults, which wait for each takeover) and the faults in order.
struct Plan {
    std::size_t mints;
    milliseconds spacing;
    std::vector<Fault> faults;
};

Plan plan(std::uint64_t seed) {
    if (scale().full) {
        using enum Fault;
        // About 40 s of faults (each kill: takeover, restart, a pause), more
        // when a takeover is slow; 1,000 mints over 55 s.
        return {1000, 55ms, {kill, kill, kill, freeze, kill, kill, database_restart, kill, kill, kill}};
    }
    // Within the suite's budget: one kill, then by the seed's parity the database
    // restart or the freeze (longer), so that repeated suites meet both.
    if (seed % 2 == 0) return {80, 125ms, {Fault::kill, Fault::database_restart}};
    return {80, 175ms, {Fault::kill, Fault::freeze}};
}

// Who owns the lane, by the replicas' own health: the one saying ownedHere.
struct Owner {
    std::size_t replica;
    std::uint64_t epoch;
};

std::optional<Owner> owner(const std::vector<Server*>& replicas, const std::string& token,
                           std::optional<std::size_t> frozen = {}) {
    for (std::size_t i = 0; i < replicas.size(); ++i) {
        if (i == frozen) continue;  // it would hold the request until it wakes
        const auto health = replicas[i]->http().get("/abci/health", token);
        if (health.status == 0 || !health.json.is_object()) continue;  // down (killed, restarting)
        // A 503 while the database restarts has no checks; and a const json's
        // operator[] on a missing key reads past the map (it does not throw).
        const auto checks = health.json.find("checks");
        if (checks == health.json.end() || !checks->is_object() || !checks->contains(kLaneCheck)) continue;
        const auto& lane = checks->at(kLaneCheck);
        if (lane.is_object() && lane.value("ownedHere", false))
            return Owner{i, lane.value("epoch", std::uint64_t{0})};
    }
    return std::nullopt;
}

// Polls until a replica other than `frozen` owns the lane under an epoch
// after `after`; when, or nothing after kTakeoverWithin.
std::optional<std::pair<Owner, Clock::time_point>> takeover(const std::vector<Server*>& replicas,
                                                            const std::string& token, std::uint64_t after,
                                                            std::optional<std::size_t> frozen = {}) {
    std::optional<std::pair<Owner, Clock::time_point>> taken;
    (void)eventually(
        [&] {
            if (const auto now = owner(replicas, token, frozen); now && now->epoch > after)
                taken.emplace(*now, Clock::now());
            return taken.has_value();
        },
        kTakeoverWithin);
    return taken;
}

double ms_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

// The p-th percentile (nearest rank) of `values`; 0 for none.
double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

std::string times(const std::vector<double>& values) {
    if (values.empty()) return "none";
    std::vector<std::string> each;
    for (const auto v : values) each.push_back(fmt::format("{:.0f}", v));
    return fmt::format("{} ms; p50 {:.0f} ms, p99 {:.0f} ms", fmt::join(each, ", "), percentile(values, 50),
                       percentile(values, 99));
}

// A kill: when, and the signer's next nonce then (counting what the node
// holds unmined): a mint on a nonce from there on was sent after the kill.
struct Kill {
    Clock::time_point at;
    std::uint64_t next_nonce;
};

// For each kill, the time to the first 200 answer naming a transaction sent
// after it (by whichever replica took the lane over): the failover as a
// client sees it. Nonces read from the chain by cast, once per hash.
std::vector<double> first_new_mint(ChainServer& chain, const std::vector<Kill>& kills,
                                   const std::vector<Settled>& settled) {
    std::vector<const Settled*> answered;
    for (const auto& s : settled)
        if (s.answer.status == 200) answered.push_back(&s);
    std::sort(answered.begin(), answered.end(), [](const auto* a, const auto* b) { return a->at < b->at; });
    std::map<std::string, std::uint64_t> nonces;
    const auto nonce_of = [&](const std::string& hash) {
        if (const auto it = nonces.find(hash); it != nonces.end()) return it->second;
        const auto nonce = std::stoull(cast({"tx", hash, "nonce", "--rpc-url", chain.anvil().url()}));
        return nonces[hash] = nonce;
    };
    std::vector<double> out;
    for (const auto& kill : kills)
        for (const auto* s : answered) {
            if (s->at <= kill.at) continue;
            const auto hash =
                s->answer.json.value(nlohmann::json::json_pointer("/data/transactionHash"), std::string{});
            if (!hash.empty() && nonce_of(hash) >= kill.next_nonce) {
                out.push_back(ms_between(kill.at, s->at));
                break;
            }
        }
    return out;
}

}  // namespace

TEST_CASE("three replicas on PostgreSQL behind haproxy, the lane owner killed, frozen and the database restarted "
          "under a steady mint load, every key settles to its one mint",
          "[chaos][replicas][postgres]") {
    const auto seed = base_seed();
    const auto run = plan(seed);
    Random random(seed);
    Postgres pg;
    const auto url = pg.create_database("replicas");
    const Env store_env{{"ABCI_DATABASE_URL", url}};
    ChainServer::Options options;
    // As a public chain mines: a kill finds mints sent and not yet mined.
    options.anvil.block_time = 1000ms;
    options.env = store_env;
    ChainServer chain(options);
    // Under ABCI_TEST_SIGNER=pkcs11 each replica logs in to the one token, as replicas share a real HSM.
    Server b({.config = chain.config(), .env = chain.signer_env(store_env)});
    Server c({.config = chain.config(), .env = chain.signer_env(store_env)});
    const std::vector<Server*> replicas{&chain.server(), &b, &c};
    std::vector<std::uint16_t> replica_ports;
    for (const auto* replica : replicas) replica_ports.push_back(replica->port());
    Haproxy haproxy({.replica_ports = replica_ports});
    const auto http = haproxy.http();
    const auto token = chain.server().login_admin().token;
    REQUIRE(eventually([&] { return http.get("/readyz").status == 200; }));
    auto first = owner(replicas, token);
    REQUIRE(first);

    auto mints = make_mints(chain, random, fmt::format("replicas-{}", seed), run.mints, true, store_env);
    const auto start = mark(chain);
    const auto load_began = Clock::now();
    Burst load(http, token, std::move(mints), 90s, run.spacing);
    std::cout << fmt::format("chaos replicas (seed {}): {} mints, one every {} ms through haproxy; lane owner: "
                             "replica {} (port {}), epoch {}\n",
                             seed, run.mints, run.spacing.count(), first->replica, replicas[first->replica]->port(),
                             first->epoch);

    // Let the load reach the owner first: some of its mints mined.
    REQUIRE(eventually([&] { return chain.nonce(ChainServer::signer()) > start.nonce; }));
    Figures figures{.scenario = "replicas", .seed = seed};
    std::vector<Kill> kills;
    std::vector<double> kill_takeover, freeze_takeover, database_takeover;
    for (const auto fault : run.faults) {
        const auto current = owner(replicas, token);
        INFO("no replica owns the lane before a fault");
        REQUIRE(current);
        auto& victim = *replicas[current->replica];
        switch (fault) {
        case Fault::kill: {
            REQUIRE(::kill(victim.pid(), SIGKILL) == 0);
            const auto at = Clock::now();
            CHECK(victim.stop() == 128 + SIGKILL);  // reaps it
            kills.push_back({at, chain.nonce(ChainServer::signer(), true)});
            ++figures.kills;
            const auto taken = takeover(replicas, token, current->epoch);
            INFO("nobody took the lane over within 30 s of the kill of replica " << current->replica);
            CHECK(taken);
            if (taken) {
                kill_takeover.push_back(ms_between(at, taken->second));
                std::cout << fmt::format("chaos replicas: kill -9 of replica {} (epoch {}) at {:.1f} s; replica {} "
                                         "owns the lane under epoch {} {:.0f} ms later\n",
                                         current->replica, current->epoch, ms_between(load_began, at) / 1000,
                                         taken->first.replica, taken->first.epoch, kill_takeover.back());
            }
            victim.restart();  // on its port, as systemd would
            break;
        }
        case Fault::freeze: {
            REQUIRE(::kill(victim.pid(), SIGSTOP) == 0);
            const auto at = Clock::now();
            // Woken even when a check below throws: a frozen child would hold the fixture's stop for 10 s.
            const auto wake = [&victim] { (void)::kill(victim.pid(), SIGCONT); };
            try {
                const auto taken = takeover(replicas, token, current->epoch, current->replica);
                INFO("nobody took the lane over within 30 s of freezing replica " << current->replica);
                CHECK(taken);
                if (taken) {
                    freeze_takeover.push_back(ms_between(at, taken->second));
                    std::cout << fmt::format("chaos replicas: SIGSTOP of replica {} (epoch {}) at {:.1f} s; replica "
                                             "{} owns the lane under epoch {} {:.0f} ms later\n",
                                             current->replica, current->epoch, ms_between(load_began, at) / 1000,
                                             taken->first.replica, taken->first.epoch, freeze_takeover.back());
                }
                std::this_thread::sleep_until(at + kFreeze);
            } catch (...) {
                wake();
                throw;
            }
            wake();
            break;
        }
        case Fault::database_restart: {
            const auto at = Clock::now();
            pg.restart_immediate();
            const auto taken = takeover(replicas, token, current->epoch);
            INFO("nobody owned the lane within 30 s of the database's restart");
            CHECK(taken);
            if (taken) {
                database_takeover.push_back(ms_between(at, taken->second));
                std::cout << fmt::format("chaos replicas: pg_ctl restart -m immediate at {:.1f} s; replica {} owns "
                                         "the lane under epoch {} {:.0f} ms later\n",
                                         ms_between(load_began, at) / 1000, taken->first.replica, taken->first.epoch,
                                         database_takeover.back());
            }
            break;
        }
        }
        // Every few seconds: the next fault meets the new owner at work.
        std::this_thread::sleep_for(milliseconds(1500 + random.below(1501)));
    }
    const auto faults_done = Clock::now();
    const auto settled = load.wait();
    const auto load_ended = Clock::now();

    judge(chain, start, http, token, load.mints(), settled, figures);
    const auto answered_after_kill = first_new_mint(chain, kills, settled);
    std::cout << fmt::format(
        "chaos replicas (seed {}): {} mints, {} answered, {} duplicates, {} lost, {} stray, {} wrong; {} kill -9, {} "
        "SIGSTOP of {} s, {} database restart(s); faults over at {:.1f} s, every mint settled at {:.1f} s\n"
        "chaos replicas: kill -9 to the lane owned again (health): {}\n"
        "chaos replicas: kill -9 to the first 200 naming a transaction sent after it: {}\n"
        "chaos replicas: SIGSTOP to the lane owned again: {}; database restart to the lane owned again: {}\n",
        seed, figures.mints, figures.answered, figures.duplicates, figures.lost, figures.stray, figures.wrong,
        figures.kills, freeze_takeover.size(), kFreeze.count(), database_takeover.size(),
        ms_between(load_began, faults_done) / 1000, ms_between(load_began, load_ended) / 1000, times(kill_takeover),
        times(answered_after_kill), times(freeze_takeover), times(database_takeover));
    require_exactly_once(figures);
}

}  // namespace abci::test::chaos::replicas
