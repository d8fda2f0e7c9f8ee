#include "support/prometheus.hpp"

#include <catch2/catch.hpp>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>

#include "support/eventually.hpp"
#include "support/tools.hpp"
#include "support/unprivileged.hpp"

namespace abci::test {
namespace {

namespace fs = std::filesystem;

// The scrape configuration, written as JSON, which is YAML: every string
// quoted, so no target or path can be read as another YAML type.
std::string config_yaml(const Prometheus::Options& options, const std::string& token_file) {
    nlohmann::json job{{"job_name", "abcictl"},
                       {"metrics_path", "/metrics"},
                       {"scrape_interval", "1s"},
                       {"scrape_timeout", "1s"},
                       {"static_configs", nlohmann::json::array({{{"targets", options.targets}}})}};
    if (!token_file.empty()) job["authorization"] = {{"type", "Bearer"}, {"credentials_file", token_file}};
    return nlohmann::json{{"global", {{"scrape_interval", "1s"}, {"evaluation_interval", "1s"}}},
                          {"rule_files", options.rule_files},
                          {"scrape_configs", nlohmann::json::array({job})}}
        .dump(2);
}

}  // namespace

std::string promtool_binary() { return source_path(".cache/prometheus/usr/bin/promtool"); }

std::string prometheus_binary() { return source_path(".cache/prometheus/usr/bin/prometheus"); }

os::CommandResult promtool(const std::vector<std::string>& args, const std::string& input) {
    INFO("run scripts/setup if promtool is missing: " << promtool_binary());
    REQUIRE(fs::exists(promtool_binary()));
    std::vector<std::string> argv{promtool_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return os::run_command(argv, input);
}

Prometheus::Prometheus(Options options) : targets_(options.targets.size()) {
    INFO("run scripts/setup if prometheus is missing: " << prometheus_binary());
    REQUIRE(fs::exists(prometheus_binary()));
    let_unprivileged_traverse(dir_.path());
    std::string token_file;
    if (!options.bearer_token.empty()) {
        token_file = dir_.write("scrape.token", options.bearer_token);
        give_to_unprivileged(token_file);
    }
    const auto config = dir_.write("prometheus.yml", config_yaml(options, token_file));
    give_to_unprivileged(config);
    const auto data = dir_ / "data";
    fs::create_directory(data);
    give_to_unprivileged(data);
    const auto log = dir_ / "prometheus.log";
    for (int attempt = 0; attempt < 3; ++attempt) {
        port_ = os::free_loopback_port();
        process_.emplace(unprivileged({prometheus_binary(), "--config.file=" + config, "--storage.tsdb.path=" + data,
                                       "--web.listen-address=127.0.0.1:" + std::to_string(port_)}),
                         log);
        const Http http(url());
        if (eventually([&] { return http.get("/-/ready").status == 200 || !process_->running(); },
                       std::chrono::seconds(20)) &&
            process_->running())
            return;
        process_->stop();
    }
    FAIL("prometheus did not become ready on " << url() << "; its log:\n" << log_tail());
}

Prometheus::~Prometheus() {
    if (std::uncaught_exceptions() > 0 || !Catch::getResultCapture().lastAssertionPassed())
        std::cerr << "---- prometheus on " << url() << ", last lines of its log ----\n"
                  << log_tail() << "---- end of prometheus log ----\n";
    if (process_) process_->stop();
}

std::string Prometheus::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::string Prometheus::log_tail() const { return file_tail(dir_ / "prometheus.log", 40); }

nlohmann::json Prometheus::query(const std::string& promql) const {
    const auto answer = Http(url()).get("/api/v1/query?query=" + url_encode(promql));
    INFO("query " << promql << " → " << answer.status << " " << answer.body);
    REQUIRE(answer.status == 200);
    REQUIRE(answer.json.value("status", "") == "success");
    REQUIRE(answer.json.at("data").value("resultType", "") == "vector");
    return answer.json.at("data").at("result");
}

std::optional<double> Prometheus::value(const std::string& promql) const {
    const auto samples = query(promql);
    INFO("query " << promql << " → " << samples.dump());
    REQUIRE(samples.size() <= 1);
    if (samples.empty()) return std::nullopt;
    return std::stod(samples.at(0).at("value").at(1).get<std::string>());
}

bool Prometheus::wait_for_fresh_scrape(std::chrono::milliseconds limit) const {
    const auto began =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return eventually(
        [&] {
            // timestamp(up) is each target's last scrape (its start), up its outcome.
            std::map<std::string, double> scraped;
            for (const auto& sample : query("timestamp(up{job=\"abcictl\"})"))
                scraped[sample.at("metric").at("instance").get<std::string>()] =
                    std::stod(sample.at("value").at(1).get<std::string>());
            std::size_t fresh = 0;
            for (const auto& sample : query("up{job=\"abcictl\"}")) {
                const auto instance = sample.at("metric").at("instance").get<std::string>();
                if (sample.at("value").at(1).get<std::string>() == "1" && scraped[instance] > began) ++fresh;
            }
            return fresh == targets_;
        },
        limit);
}

}  // namespace abci::test
