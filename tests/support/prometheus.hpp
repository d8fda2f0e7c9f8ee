#pragma once
// A real Prometheus server (Debian's, unpacked by scripts/setup into the
// checkout's .cache/prometheus, never installed as the packaged service)
// scraping given targets every second, and the paths of its binaries for the
// tests that run promtool. RAII like the other fixtures: the server is
// stopped and its directory (config, TSDB, log) removed when the fixture goes
// away; when a test is failing the tail of its log is printed first. When the
// tests run as root, the server runs as `nobody` through setpriv, as
// PostgreSQL does (postgres.hpp): a test's Prometheus has no business with
// root's powers.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/os/process.hpp"
#include "support/cli_runner.hpp"
#include "support/serve.hpp"

namespace abci::test {

/// <checkout>/.cache/prometheus/usr/bin/promtool (scripts/setup).
[[nodiscard]] std::string promtool_binary();
/// <checkout>/.cache/prometheus/usr/bin/prometheus (scripts/setup).
[[nodiscard]] std::string prometheus_binary();

/// `promtool args…`; its exit status and output (60 s at most).
[[nodiscard]] os::CommandResult promtool(const std::vector<std::string>& args, const std::string& input = {});

class Prometheus {
public:
    struct Options {
        /// "host:port" of each listener to scrape at /metrics, one job
        /// ("abcictl") for all, every second.
        std::vector<std::string> targets;
        /// Rule files to load (evaluated every second), e.g.
        /// source_path("examples/prometheus/abcictl-rules.yml").
        std::vector<std::string> rule_files{};
        /// The bearer token the scrapes send ([metrics] tokenFile); none when empty.
        std::string bearer_token{};
    };

    /// Fails the test (Catch2) with the log's tail when the server is not
    /// ready (GET /-/ready) within 20 s.
    explicit Prometheus(Options options);
    ~Prometheus();
    Prometheus(const Prometheus&) = delete;
    Prometheus& operator=(const Prometheus&) = delete;

    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    /// "http://127.0.0.1:<port>".
    [[nodiscard]] std::string url() const;

    /// GET /api/v1/query?query=`promql` (evaluated now): data.result, the
    /// instant vector's samples. Fails the test unless the answer is a
    /// success with a vector.
    [[nodiscard]] nlohmann::json query(const std::string& promql) const;
    /// The value of query()'s one sample; nullopt when the vector is empty.
    /// Fails the test when it has more than one sample.
    [[nodiscard]] std::optional<double> value(const std::string& promql) const;
    /// Waits until every target was scraped successfully after this call
    /// began (GET /api/v1/targets: lastScrape later, health "up"), so a query
    /// then sees what the targets exported when it was made. False after `limit`.
    [[nodiscard]] bool wait_for_fresh_scrape(std::chrono::milliseconds limit = std::chrono::seconds(15)) const;

private:
    [[nodiscard]] std::string log_tail() const;

    std::size_t targets_ = 0;
    TempDir dir_;  // prometheus.yml, scrape.token, data/, prometheus.log
    std::uint16_t port_ = 0;
    std::optional<os::Process> process_;
};

}  // namespace abci::test
