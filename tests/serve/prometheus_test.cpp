// A real Prometheus (tests/support/prometheus.hpp) scraping a real serve on
// a real chain, with the example rules loaded (examples/prometheus): every
// rule and every query of the example dashboard (examples/grafana) evaluates
// on what the server exports.

#include <catch2/catch.hpp>
#include <algorithm>
#include <fstream>
#include <regex>

#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "support/prometheus.hpp"
#include "support/tools.hpp"

namespace abci::test::prometheus_tests {
namespace {

using namespace std::chrono_literals;

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

    std::uint16_t metrics_port;
    ChainServer chain;
    Prometheus prometheus;
};

// `promql` with the dashboard's variables as its "All" and Grafana's
// intervals as scripts/check-dashboard replaces them.
std::string with_dashboard_variables(std::string promql) {
    promql = std::regex_replace(promql, std::regex(R"(\$__rate_interval|\$__interval)"), "1m");
    promql = std::regex_replace(promql, std::regex(R"(\$__range)"), "1h");
    return std::regex_replace(promql, std::regex(R"(\$\{?(job|chain)\}?)"), ".*");
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
    CHECK(rules.size() == 16);
    for (const auto& rule : rules) {
        INFO(rule.value("name", "") << ": " << rule.value("lastError", ""));
        CHECK(rule.value("health", "") == "ok");
    }

    // Every query of the dashboard evaluates.
    std::ifstream in(source_path("examples/grafana/abcictl.json"));
    const auto dashboard = nlohmann::json::parse(in);
    for (const auto& panel : dashboard.at("panels"))
        for (const auto& target : panel.value("targets", nlohmann::json::array())) {
            const auto promql = with_dashboard_variables(target.at("expr").get<std::string>());
            INFO("panel " << panel.at("title") << " " << target.at("refId") << ": " << promql);
            (void)prometheus.query(promql);
        }
}

}  // namespace abci::test::prometheus_tests
