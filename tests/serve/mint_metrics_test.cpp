// The mint path's metrics of a real `abcictl serve` (issue 32, docs/metrics.md):
// mints counted once each, on their request's state change, whatever a reorg
// does to their transactions afterwards; the stages of a mint; the JSON-RPC
// calls by result through the fault proxy, and failovers; and the lane's
// gauges exported by its owner only, two replicas on one PostgreSQL.

#include <future>
#include <sstream>
#include <thread>

#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "support/metrics_scrape.hpp"
#include "support/postgres.hpp"

namespace abci::test::mint_metrics_tests {
namespace {

using namespace std::chrono_literals;

constexpr const char* kConfirmed = R"(abcictl_mints_total{chain="devnet",kind="entity",outcome="confirmed"})";

// The value of `series` (name{labels} as exposed) in a scrape; nothing when it is not there.
std::optional<double> sample(const std::string& scrape, const std::string& series) {
    std::istringstream lines(scrape);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
    return std::nullopt;
}

// The sum of `family`'s devnet series whose labels include `label` (e.g. result="timeout").
double sum_of(const std::string& scrape, const std::string& family, const std::string& label) {
    double sum = 0;
    std::istringstream lines(scrape);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind(family + "{", 0) == 0 && line.find(R"(chain="devnet")") != std::string::npos &&
            line.find(label) != std::string::npos)
            sum += std::stod(line.substr(line.rfind(' ') + 1));
    return sum;
}

// Whether the scrape holds any devnet series of `family`.
bool exports(const std::string& scrape, const std::string& family) {
    return scrape.find(family + R"({chain="devnet")") != std::string::npos;
}

constexpr const char* kStages[] = {"queued_to_signed", "signed_to_sent", "sent_to_mined", "mined_to_confirmed",
                                   "request_to_confirmed"};

std::string stage_count(const std::string& stage) {
    return R"(abcictl_mint_stage_duration_seconds_count{chain="devnet",stage=")" + stage + "\"}";
}

// The cumulative count of `stage`'s devnet histogram bucket whose upper bound is `le`.
std::optional<double> bucket(const std::string& scrape, const std::string& stage, double le) {
    const auto prefix = R"(abcictl_mint_stage_duration_seconds_bucket{chain="devnet",stage=")" + stage + R"(",le=")";
    std::istringstream lines(scrape);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind(prefix, 0) == 0 && line[prefix.size()] != '+' && std::stod(line.substr(prefix.size())) == le)
            return std::stod(line.substr(line.rfind(' ') + 1));
    return std::nullopt;
}

constexpr const char* kOwnerOnly[] = {"abcictl_lane_owner_epoch", "abcictl_lane_pending_transactions",
                                      "abcictl_lane_oldest_pending_age_seconds", "abcictl_lane_next_nonce",
                                      "abcictl_mint_jobs_queued"};

}  // namespace

TEST_CASE("metrics: N mints count N confirmed once each, a deep reorg's re-broadcast mined again counts none, stages of "
          "waiting and queued mints and the owner's lane figures",
          "[serve][metrics][anvil]") {
    ChainServer chain({.env = metrics_env()});
    const Http metrics(metrics_url(chain.server()));
    const auto admin = chain.server().login_admin();
    const auto holder = Anvil::dev_accounts()[4].address;
    const auto scrape = [&] { return metrics.get("/metrics").body; };
    CHECK(sample(scrape(), kConfirmed) == 0.0);

    constexpr int kMints = 3;  // and one more that does not wait
    for (int i = 0; i < kMints; ++i) {
        const auto r = chain.http().post("/abci/contracts/mint-entity-token",
                                         entity_mint_body(holder, "report", "M-" + std::to_string(i)), admin.token);
        INFO(r.body);
        REQUIRE(r.status == 200);
    }
    auto body = scrape();
    CHECK(sample(body, kConfirmed) == kMints);
    CHECK(sample(body, R"(abcictl_mints_total{chain="devnet",kind="entity",outcome="failed"})") == 0.0);
    for (const auto* stage : kStages) CHECK(sample(body, stage_count(stage)) == kMints);

    // One that does not wait (a queued job, sent as a forwarded mint is): each stage once more, when it is confirmed.
    const auto accepted = chain.http().post("/abci/contracts/mint-entity-token",
                                            entity_mint_body(holder, "report", "M-async"), admin.token,
                                            Headers{{"Prefer", "respond-async"}});
    INFO(accepted.body);
    REQUIRE(accepted.status == 202);
    REQUIRE(eventually([&] {
        body = scrape();
        return sample(body, kConfirmed) == kMints + 1 && sample(body, stage_count("request_to_confirmed")) == kMints + 1;
    }, 15s));
    for (const auto* stage : kStages) CHECK(sample(body, stage_count(stage)) == kMints + 1);
    CHECK(sum_of(body, "abcictl_rpc_requests_total", R"(method="eth_sendRawTransaction",result="ok")") >= kMints);

    // The owner's figures, as its lanes round publishes them (chain nonces: every 5 s).
    const auto nonce = static_cast<double>(chain.nonce(ChainServer::signer()));
    CHECK(eventually([&] {
        body = scrape();
        return sample(body, R"(abcictl_lane_next_nonce{chain="devnet",source="chain_latest"})") == nonce &&
               sample(body, R"(abcictl_lane_next_nonce{chain="devnet",source="chain_pending"})") == nonce;
    }, 15s));
    INFO(body);
    CHECK(sample(body, R"(abcictl_lane_owner{chain="devnet"})") == 1.0);
    CHECK(sample(body, R"(abcictl_lane_owner_epoch{chain="devnet"})") == 1.0);
    CHECK(sample(body, R"(abcictl_lane_next_nonce{chain="devnet",source="journal"})") == nonce);
    CHECK(sample(body, R"(abcictl_lane_pending_transactions{chain="devnet",state="sent"})") == 0.0);
    CHECK(sample(body, R"(abcictl_lane_oldest_pending_age_seconds{chain="devnet"})") == 0.0);
    // The database's queues, counted at the scrape: the async mint's job is gone once journaled.
    CHECK(sample(body, R"(abcictl_mint_jobs_queued{chain="devnet"})") == 0.0);
    CHECK(sample(body, R"(abcictl_webhook_deliveries{state="pending"})") == 0.0);
    CHECK(sample(body, R"(abcictl_webhook_deliveries{state="failed"})") == 0.0);

    // The last mint's block replaced by an empty one: the sender sends the
    // same bytes again and the chain mines them anew.
    (void)chain.node_rpc("anvil_rollback", {1});
    (void)chain.node_rpc("evm_mine");
    REQUIRE(chain.chain_balance(holder, 1000) == std::to_string(kMints));
    REQUIRE(eventually([&] {
        body = scrape();
        return sample(body, R"(abcictl_lane_reorg_rebroadcasts_total{chain="devnet"})") >= 1.0 &&
               sample(body, stage_count("sent_to_mined")) == kMints + 2;
    }, 30s));
    CHECK(chain.chain_balance(holder, 1000) == std::to_string(kMints + 1));
    // Settled again as mined, its mint final already: no second success and
    // no second confirmation of the mint, now or a moment later (its
    // re-broadcast's journey to a block is one more sent_to_mined).
    for (const auto until = std::chrono::steady_clock::now() + 2s; std::chrono::steady_clock::now() < until;) {
        body = scrape();
        REQUIRE(sample(body, kConfirmed) == kMints + 1);
        REQUIRE(sample(body, stage_count("mined_to_confirmed")) == kMints + 1);
        REQUIRE(sample(body, stage_count("request_to_confirmed")) == kMints + 1);
        std::this_thread::sleep_for(200ms);
    }
}

TEST_CASE("metrics: JSON-RPC calls counted by result through the fault proxy (timeout, http_5xx, rate_limited, "
          "dropped) and a failover to the next rpcUrls endpoint",
          "[serve][metrics][anvil][faults]") {
    // A read-only chain whose first endpoint refuses connections: its first call fails over to anvil.
    ChainServer chain({.extra_config = R"(
[[chains]]
id = "backup"
name = "Backup"
chainId = 31337
network = "ethereum"
rpcUrls = ["http://127.0.0.1:1", "{anvil}"]
status = "testnet"
)",
                       .env = metrics_env(),
                       .fault_proxy = FaultProxy::Options{.hang_for = 1'500ms}});
    const Http metrics(metrics_url(chain.server()));
    const auto admin = chain.server().login_admin();
    auto& proxy = chain.proxy();
    const auto scrape = [&] { return metrics.get("/metrics").body; };
    // Each fault on every request for one health check, whose probes neither retry nor wait past a second.
    const auto under = [&](Fault fault) {
        proxy.set_rate(fault, 1.0);
        (void)chain.http().get("/abci/health", admin.token);
        proxy.set_rate(fault, 0.0);
    };
    for (const auto fault : {Fault::bad_gateway, Fault::too_many_requests, Fault::drop_before, Fault::hang}) under(fault);
    REQUIRE(chain.http().get("/abci/health", admin.token).status == 200);

    const auto body = scrape();
    INFO(body);
    // Every exchange the proxy spoiled was one of the server's, each counted (a batch: each of its requests).
    CHECK(sum_of(body, "abcictl_rpc_requests_total", R"(result="http_5xx")") >= proxy.injected(Fault::bad_gateway));
    CHECK(sum_of(body, "abcictl_rpc_requests_total", R"(result="rate_limited")") >= proxy.injected(Fault::too_many_requests));
    CHECK(sum_of(body, "abcictl_rpc_requests_total", R"(result="dropped")") >= proxy.injected(Fault::drop_before));
    CHECK(proxy.injected(Fault::bad_gateway) > 0);
    CHECK(proxy.injected(Fault::drop_before) > 0);
    CHECK(sum_of(body, "abcictl_rpc_requests_total", R"(result="timeout")") > 0);
    CHECK(sum_of(body, "abcictl_rpc_requests_total", R"(method="eth_chainId",result="ok")") > 0);
    CHECK(sample(body, R"(abcictl_rpc_request_duration_seconds_count{chain="devnet",method="eth_chainId"})") > 0);
    CHECK(sample(body, R"(abcictl_rpc_failovers_total{chain="backup"})") >= 1.0);
    CHECK(sample(body, R"(abcictl_rpc_failovers_total{chain="devnet"})").has_value());
    CHECK(sample(body, R"(abcictl_lane_owner{chain="devnet"})") == 1.0);
    // No URL, address or hash in any label: the methods are the code's own.
    CHECK(body.find("127.0.0.1") == std::string::npos);
}

TEST_CASE("metrics: two replicas on one PostgreSQL: only the lane's owner exports its figures and the signer's funds and "
          "observes a forwarded mint's stages, after a kill -9 the other exports them",
          "[serve][metrics][postgres][anvil][lanes]") {
    const Postgres pg;
    const auto url = pg.create_database("lane_metrics");
    Env env = metrics_env();
    env["ABCI_DATABASE_URL"] = url;
    ChainServer a({.env = env});
    Server b({.config = a.config(), .env = env});
    const Http metrics_a(metrics_url(a.server()));
    const Http metrics_b(metrics_url(b));
    const auto admin = a.server().login_admin();
    // Each reads the signer's balance in its health check; only the owner exports it.
    for (const auto* server : {&a.server(), &b}) (void)server->http().get("/abci/health", admin.token);

    std::string owner, other;
    REQUIRE(eventually([&] {
        owner = metrics_a.get("/metrics").body;
        other = metrics_b.get("/metrics").body;
        return sample(owner, R"(abcictl_lane_owner{chain="devnet"})") == 1.0 && exports(owner, "abcictl_lane_next_nonce") &&
               exports(owner, "abcictl_signer_balance_ether");
    }, 15s));
    INFO(owner << "\n----\n" << other);
    CHECK(sample(other, R"(abcictl_lane_owner{chain="devnet"})") == 0.0);
    for (const auto* family : kOwnerOnly) {
        CHECK(exports(owner, family));
        CHECK_FALSE(exports(other, family));
    }
    CHECK_FALSE(exports(other, "abcictl_signer_balance_ether"));
    // The deliveries have no owner: every replica counts the same rows.
    for (const auto* scrape : {&owner, &other})
        CHECK(sample(*scrape, R"(abcictl_webhook_deliveries{state="pending"})") == 0.0);
    CHECK_FALSE(exports(other, "abcictl_signer_mints_affordable"));
    // anvil's dev account holds 10,000 ether less what deploying cost.
    const auto ether = sample(owner, R"(abcictl_signer_balance_ether{chain="devnet"})");
    REQUIRE(ether);
    CHECK(*ether > 9'000);
    CHECK(*ether < 10'000);
    CHECK(sample(owner, R"(abcictl_signer_mints_affordable{chain="devnet"})") > 1'000);

    // A mint taken by the other: the owner sends it and observes its stages, from the request's time the job holds.
    const auto forwarded = b.http().post("/abci/contracts/mint-entity-token",
                                         entity_mint_body(Anvil::dev_accounts()[4].address, "report", "F-1"), admin.token);
    INFO(forwarded.body);
    REQUIRE(forwarded.status == 200);
    // Answered by b once a stored the outcome, a moment before a observes it.
    CHECK(eventually([&] {
        owner = metrics_a.get("/metrics").body;
        return sample(owner, stage_count("request_to_confirmed")) == 1.0;
    }, 5s));
    other = metrics_b.get("/metrics").body;
    for (const auto* stage : kStages) {
        CHECK(sample(owner, stage_count(stage)) == 1.0);
        CHECK(sample(other, stage_count(stage)) == 0.0);
    }

    // The queues' count waits behind a lock another session holds: the
    // scrape answers within its second without them, then has them again.
    auto locked = std::async(std::launch::async, [&] {
        return pg.psql("lane_metrics", "BEGIN; LOCK TABLE mint_jobs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(2); COMMIT;");
    });
    REQUIRE(eventually([&] {
        return pg.psql("lane_metrics", "SELECT count(*) FROM pg_locks WHERE relation = 'mint_jobs'::regclass AND "
                                       "mode = 'AccessExclusiveLock' AND granted").starts_with("1");
    }, 5s));
    const auto asked = std::chrono::steady_clock::now();
    const auto blocked = metrics_a.get("/metrics").body;
    CHECK(std::chrono::steady_clock::now() - asked < 2'500ms);
    CHECK(exports(blocked, "abcictl_lane_owner"));
    CHECK_FALSE(exports(blocked, "abcictl_mint_jobs_queued"));
    CHECK(blocked.find("abcictl_webhook_deliveries") == std::string::npos);
    locked.get();
    CHECK(eventually([&] { return exports(metrics_a.get("/metrics").body, "abcictl_mint_jobs_queued"); }, 5s));

    a.kill_server();
    REQUIRE(eventually([&] {
        other = metrics_b.get("/metrics").body;
        return sample(other, R"(abcictl_lane_owner{chain="devnet"})") == 1.0;
    }, 15s));
    INFO(other);
    CHECK(sample(other, R"(abcictl_lane_owner_epoch{chain="devnet"})") == 2.0);
    for (const auto* family : kOwnerOnly) CHECK(exports(other, family));
}

TEST_CASE("metrics: with 3 confirmations on 1 s blocks, mined_to_confirmed is observed once per mint and spans the "
          "blocks on top of the mint's",
          "[serve][metrics][anvil]") {
    ChainServer chain({.anvil = {.block_time = 1000ms}, .devnet_keys = "confirmations = 3\n", .env = metrics_env()});
    const Http metrics(metrics_url(chain.server()));
    const auto admin = chain.server().login_admin();
    const auto holder = Anvil::dev_accounts()[4].address;
    constexpr int kMints = 2;
    std::vector<std::future<HttpResponse>> mints;
    for (int i = 0; i < kMints; ++i)
        mints.push_back(std::async(std::launch::async, [&, i] {
            return chain.http().post("/abci/contracts/mint-entity-token",
                                     entity_mint_body(holder, "report", "C-" + std::to_string(i)), admin.token);
        }));
    for (auto& mint : mints) {
        const auto r = mint.get();
        INFO(r.body);
        REQUIRE(r.status == 200);
    }
    // Two more blocks: a mint counted twice would be counted by now.
    std::this_thread::sleep_for(2s);
    const auto body = metrics.get("/metrics").body;
    INFO(body);
    CHECK(sample(body, stage_count("mined_to_confirmed")) == kMints);
    CHECK(sample(body, stage_count("sent_to_mined")) == kMints);
    // Each waited for two blocks on top of its own, a second apart: none
    // took a second or less (the mint's own block is not its confirmation).
    CHECK(bucket(body, "mined_to_confirmed", 1.0) == 0.0);
    CHECK(bucket(body, "mined_to_confirmed", 600.0) == kMints);
    const auto sum = sample(body, R"(abcictl_mint_stage_duration_seconds_sum{chain="devnet",stage="mined_to_confirmed"})");
    REQUIRE(sum);
    CHECK(*sum / kMints > 1.0);
}

TEST_CASE("metrics: a mint queued while the node answers slowly is a non-zero abcictl_mint_jobs_queued until it is "
          "journaled, then 0 again",
          "[serve][metrics][anvil][faults]") {
    ChainServer chain({.env = metrics_env(), .fault_proxy = FaultProxy::Options{.slow_by = 3'000ms}});
    const Http metrics(metrics_url(chain.server()));
    const auto admin = chain.server().login_admin();
    const auto holder = Anvil::dev_accounts()[4].address;
    const auto scrape = [&] { return metrics.get("/metrics").body; };
    const auto queued = [&](const std::string& body) { return sample(body, R"(abcictl_mint_jobs_queued{chain="devnet"})"); };
    // A first mint at full speed: what the server reads once is read.
    REQUIRE(chain.http().post("/abci/contracts/mint-entity-token", entity_mint_body(holder, "report", "Q-0"), admin.token)
                .status == 200);
    CHECK(queued(scrape()) == 0.0);

    // Every call to the node now takes 3 s: the mint that does not wait is a
    // job in the database until the lane signs and journals it.
    chain.proxy().set_rate(Fault::slow, 1.0);
    const auto accepted = chain.http().post("/abci/contracts/mint-entity-token", entity_mint_body(holder, "report", "Q-1"),
                                            admin.token, Headers{{"Prefer", "respond-async"}});
    INFO(accepted.body);
    REQUIRE(accepted.status == 202);
    std::string body;
    CHECK(eventually([&] { return queued(body = scrape()) == 1.0; }, 10s));
    INFO(body);
    chain.proxy().set_rate(Fault::slow, 0.0);
    CHECK(eventually([&] {
        body = scrape();
        return queued(body) == 0.0 && sample(body, kConfirmed) == 2.0;
    }, 30s));
}

}  // namespace abci::test::mint_metrics_tests
