// A real Prometheus (tests/support/prometheus.hpp) scraping a real serve on
// a real chain, with the example rules loaded (examples/prometheus): what it
// counts agrees with the chain and the journal, across a kill -9 too; every
// query of the example dashboard (examples/grafana) evaluates on what the
// server exports; and a scrape taken after mints through JSON-RPC faults
// passes `promtool check metrics`.

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <future>
#include <regex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "core/chain/tx_state.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "support/prometheus.hpp"
#include "support/random.hpp"
#include "support/tools.hpp"

namespace abci::test::prometheus_tests {
namespace {

using namespace std::chrono_literals;

constexpr const char* kRoute = "/abci/contracts/mint-entity-token";
// The token id of entity type "report" (spec 2.3).
constexpr std::uint64_t kReportToken = 1000;
constexpr const char* kConfirmed = R"(abcictl_mints_total{chain="devnet", outcome="confirmed"})";

// A ChainServer whose metrics listener is on a port fixed before it starts,
// so that it listens there again after a restart (Prometheus' target stays
// the same), and a Prometheus scraping it with the example rules loaded.
struct Scraped {
    explicit Scraped(ChainServer::Options options = {})
        : metrics_port(os::free_loopback_port()),
          chain([&] {
              options.env["ABCI_METRICS_LISTEN"] = metrics_host();
              return options;
          }()),
          prometheus({.targets = {metrics_host()},
                      .rule_files = {source_path("examples/prometheus/abcictl-rules.yml")}}) {
        // Prometheus holds the counters at zero before the test moves them:
        // a rate and an increase() start from there.
        REQUIRE(prometheus.wait_for_fresh_scrape());
    }

    [[nodiscard]] std::string metrics_host() const { return "127.0.0.1:" + std::to_string(metrics_port); }
    [[nodiscard]] Http metrics() const { return Http("http://" + metrics_host()); }

    std::uint16_t metrics_port;
    ChainServer chain;
    Prometheus prometheus;
};

// `n` entity mints of one "report" token each, to addresses of their own.
std::vector<nlohmann::json> report_mints(Random& random, std::size_t n, const std::string& prefix) {
    std::vector<nlohmann::json> bodies;
    for (std::size_t i = 0; i < n; ++i)
        bodies.push_back(entity_mint_body(random.address().checksummed(), "report", prefix + std::to_string(i), 1));
    return bodies;
}

std::vector<std::string> recipients_of(const std::vector<nlohmann::json>& bodies) {
    std::vector<std::string> out;
    for (const auto& body : bodies) out.push_back(body["userAddress"].get<std::string>());
    return out;
}

// The report tokens the chain holds for `bodies`' recipients, read by cast.
std::uint64_t tokens_on_chain(const ChainServer& chain, const std::vector<nlohmann::json>& bodies) {
    std::uint64_t total = 0;
    for (const auto& balance : chain.chain_balances(recipients_of(bodies), kReportToken)) total += std::stoull(balance);
    return total;
}

// Every mint's answer: each its own thread, as concurrent clients.
std::vector<HttpResponse> post_all(const Http& http, const std::vector<nlohmann::json>& bodies,
                                   const std::string& token) {
    std::vector<std::future<HttpResponse>> pending;
    for (const auto& body : bodies)
        pending.push_back(std::async(std::launch::async, [&http, body, token] { return http.post(kRoute, body, token); }));
    std::vector<HttpResponse> answers;
    for (auto& answer : pending) answers.push_back(answer.get());
    return answers;
}

// Each mint in turn, each answered 200 (mined: the node mines each transaction at once).
void mint_each(const Http& http, const std::vector<nlohmann::json>& bodies, const std::string& token) {
    for (const auto& body : bodies) {
        const auto answer = http.post(kRoute, body, token);
        INFO(answer.status << " " << answer.body);
        REQUIRE(answer.status == 200);
    }
}

// The journal's mined transactions on the devnet (one mint each: no batching here).
std::size_t mined_in_journal(const Server& server) {
    return server.open_store()->journal().list(ChainServer::blockchain_id, {chain::TxStatus::mined}, 100000).size();
}

// Each query of examples/grafana/abcictl.json ("<panel title> <refId>",
// PromQL), its variables as their "All" and Grafana's intervals as a minute
// (this Prometheus holds less).
std::vector<std::pair<std::string, std::string>> dashboard_queries() {
    std::ifstream in(source_path("examples/grafana/abcictl.json"));
    const auto dashboard = nlohmann::json::parse(in);
    std::vector<std::pair<std::string, std::string>> queries;
    for (const auto& panel : dashboard.at("panels"))
        for (const auto& target : panel.value("targets", nlohmann::json::array())) {
            auto promql = std::regex_replace(target.at("expr").get<std::string>(),
                                             std::regex(R"(\$__rate_interval|\$__interval|\$__range)"), "1m");
            promql = std::regex_replace(promql, std::regex(R"(\$\{?(job|chain)\}?)"), ".*");
            queries.emplace_back(panel.at("title").get<std::string>() + " " + target.at("refId").get<std::string>(),
                                 promql);
        }
    return queries;
}

}  // namespace

TEST_CASE("prometheus: Prometheus scrapes serve's listener, evaluates every example rule and dashboard query", "[serve][prometheus]") {
    Scraped scraped;
    const auto& prometheus = scraped.prometheus;
    CHECK(prometheus.value(R"(abcictl_build_info{job="abcictl"})") == 1.0);

    // Every rule of examples/prometheus/abcictl-rules.yml loaded and, once
    // evaluated on what the server exports, healthy (a vector matching that
    // real labels make ambiguous would be an error here, not in promtool's tests).
    const Http api(prometheus.url());
    nlohmann::json rules;
    const auto evaluated = eventually([&] {
        rules = nlohmann::json::array();
        const auto answer = api.get("/api/v1/rules");
        for (const auto& group : answer.json.at("data").at("groups"))
            for (const auto& rule : group.at("rules")) rules.push_back(rule);
        return !rules.empty() && std::all_of(rules.begin(), rules.end(),
                           [](const nlohmann::json& rule) { return rule.value("health", "") != "unknown"; });
    }, 10s);
    INFO(rules.dump(2));
    REQUIRE(evaluated);
    CHECK(rules.size() == 19);  // every rule of examples/prometheus/abcictl-rules.yml
    for (const auto& rule : rules) {
        INFO(rule.value("name", "") << ": " << rule.value("lastError", ""));
        CHECK(rule.value("health", "") == "ok");
    }

    // Every query of the dashboard evaluates.
    for (const auto& [panel, query] : dashboard_queries()) {
        INFO("panel " << panel << ": " << query);
        (void)prometheus.query(query);
    }
}

TEST_CASE("prometheus: a real Prometheus scraping serve counts exactly the mints the chain holds", "[serve][prometheus]") {
    Scraped scraped;
    auto& chain = scraped.chain;
    const auto& prometheus = scraped.prometheus;
    const auto admin = chain.server().login_admin();
    Random random(3201);
    const auto bodies = report_mints(random, 8, "PROM-");
    mint_each(chain.http(), bodies, admin.token);

    REQUIRE(prometheus.wait_for_fresh_scrape());
    CHECK(prometheus.value(fmt::format("sum({})", kConfirmed)) == 8.0);
    CHECK(tokens_on_chain(chain, bodies) == 8);
    CHECK(mined_in_journal(chain.server()) == 8);
    CHECK(prometheus.value(R"(sum(abcictl_mints_total{outcome!="confirmed"}))").value_or(0) == 0.0);
    // The recording rules (evaluated every second) read what the server
    // exports: its one server owns the lane, and mints are counted.
    CHECK(eventually([&] { return prometheus.value(R"(chain:abcictl_lane_owner:sum{chain="devnet"})") == 1.0; }, 5s));
    CHECK(eventually([&] {
        return prometheus.value(R"(chain_outcome:abcictl_mints:rate5m{chain="devnet", outcome="confirmed"})")
                   .value_or(0) > 0;
    }, 5s));

    // Each panel of the dashboard has data after mints: a query can parse and
    // evaluate and still name a series nobody exports. But for two, which a
    // healthy run leaves empty: no JSON-RPC call failed, no alert fires.
    const std::set<std::string> empty_when_healthy{"JSON-RPC errors per second by result A",
                                                   "Replicas scraped, and abcictl alerts firing B"};
    for (const auto& [panel, query] : dashboard_queries()) {
        INFO("panel " << panel << ": " << query);
        if (!empty_when_healthy.contains(panel)) CHECK(!prometheus.query(query).empty());
    }
}

TEST_CASE("prometheus: kill -9 and restart in the middle of mints loses no confirmed mint from increase()", "[serve][prometheus]") {
    Scraped scraped;
    auto& chain = scraped.chain;
    const auto& prometheus = scraped.prometheus;
    const auto admin = chain.server().login_admin();
    Random random(3202);

    // Before the kill: mints confirmed and scraped.
    const auto before = report_mints(random, 5, "BEFORE-");
    mint_each(chain.http(), before, admin.token);
    REQUIRE(prometheus.wait_for_fresh_scrape());
    REQUIRE(prometheus.value(fmt::format("sum({})", kConfirmed)) == 5.0);

    // Mints sent and not yet mined when the server dies: anvil holds them in
    // its pool until the test mines them.
    chain.node_rpc("evm_setAutomine", {false});
    const auto signer_nonce = chain.nonce(ChainServer::signer());
    const auto during = report_mints(random, 5, "DURING-");
    auto answers = std::async(std::launch::async, [&] { return post_all(chain.http(), during, admin.token); });
    REQUIRE(eventually([&] { return chain.nonce(ChainServer::signer(), true) == signer_nonce + during.size(); }, 20s));
    chain.kill_server();
    (void)answers.get();  // cut off by the kill

    // The restarted server's counters start from zero, and Prometheus sees
    // them there before the mints it settles move them: a counter that passed
    // its old value between two scrapes would hide its reset from any query.
    chain.server().restart();
    REQUIRE(prometheus.wait_for_fresh_scrape());
    REQUIRE(prometheus.value(fmt::format("sum({})", kConfirmed)) == 0.0);
    chain.node_rpc("evm_mine");
    chain.node_rpc("evm_setAutomine", {true});
    REQUIRE(eventually([&] { return mined_in_journal(chain.server()) == before.size() + during.size(); }, 30s));
    REQUIRE(prometheus.wait_for_fresh_scrape());

    // increase() over the whole run, at the last scrape (so nothing is
    // extrapolated past it), adds both lives: exactly what the journal confirmed.
    const auto last_scrape = prometheus.value(fmt::format("max(timestamp({}))", kConfirmed));
    REQUIRE(last_scrape);
    const auto increase = prometheus.value(fmt::format("sum(increase({}[1h] @ {:.3f}))", kConfirmed, *last_scrape));
    REQUIRE(increase);
    INFO("increase() = " << *increase);
    CHECK(std::abs(*increase - 10.0) < 1e-9);
    CHECK(prometheus.value(fmt::format("sum({})", kConfirmed)) == 5.0);  // the new process's own
    CHECK(tokens_on_chain(chain, before) + tokens_on_chain(chain, during) == 10);
}

TEST_CASE("prometheus: promtool check metrics is clean on a scrape taken after mints through JSON-RPC faults", "[serve][prometheus]") {
    ChainServer::Options options;
    options.fault_proxy = FaultProxy::Options{.seed = 32, .hang_for = 1s, .slow_by = 200ms};
    Scraped scraped(options);
    auto& chain = scraped.chain;
    const auto admin = chain.server().login_admin();
    Random random(3203);

    chain.proxy().set_all_rates(0.08);
    (void)post_all(chain.http(), report_mints(random, 12, "FAULT-"), admin.token);
    chain.proxy().set_all_rates(0);

    const auto scrape = scraped.metrics().get("/metrics");
    REQUIRE(scrape.status == 200);
    const auto checked = promtool({"check", "metrics"}, scrape.body);
    INFO("promtool check metrics:\n" << checked.out << checked.err << "\non:\n" << scrape.body);
    CHECK(checked.exit_code == 0);
    CHECK(checked.out + checked.err == "");
    // The scrape holds what the faults made: calls counted by a failed result.
    CHECK(std::regex_search(scrape.body, std::regex(R"re(abcictl_rpc_requests_total\{[^}]*result="(timeout|http_5xx|rate_limited|dropped)")re")));
}

}  // namespace abci::test::prometheus_tests
