// The metrics exposition is a library of ours over prometheus-cpp that
// `serve` dlopens when its metrics listener is on (issue 32 item 6,
// docs/decisions.md): only then does the process map prometheus-cpp; without
// the library beside the binary, serve with metrics on refuses to start,
// naming where it looked.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "serve/expect.hpp"
#include "support/cli_runner.hpp"
#include "support/metrics_scrape.hpp"

namespace abci::test {

namespace {

/// What /proc/<pid>/maps lists: every file the process has mapped now.
std::string maps_of(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("metrics library: serve maps prometheus-cpp with its metrics listener on, and only then", "[serve][metrics]") {
    Server on({.env = metrics_env()});
    const auto scrape = Http(metrics_url(on)).get("/metrics");
    REQUIRE(scrape.status == 200);
    CHECK(scrape.body.find("# TYPE abcictl_build_info gauge\n") != std::string::npos);
    const auto mapped = maps_of(on.pid());
    REQUIRE(mapped.find("/abcictl") != std::string::npos);  // the maps of the server, not of nothing
    CHECK(mapped.find("/lib/abcictl/libabcictl-prometheus.so") != std::string::npos);
    CHECK(mapped.find("libprometheus-cpp-core") != std::string::npos);

    Server off;
    REQUIRE(off.http().get("/livez").status == 200);
    const auto unmapped = maps_of(off.pid());
    REQUIRE(unmapped.find("/abcictl") != std::string::npos);
    CHECK(unmapped.find("prometheus") == std::string::npos);
}

TEST_CASE("metrics library: serve with metrics on and no library beside the binary says where it looked", "[serve][metrics]") {
    TempDir dir;
    std::filesystem::create_directories(dir / "bin");
    const auto binary = dir / "bin/abcictl";
    std::filesystem::copy_file(abcictl_binary(), binary);
    const Env env{{"ABCI_METRICS_LISTEN", "127.0.0.1:0"}, {"ABCI_DATA_DIR", dir / "data"}};
    auto argv = abcictl_argv({"serve", "--listen", "127.0.0.1:0"}, env);
    std::replace(argv.begin(), argv.end(), abcictl_binary(), binary);
    const auto r = os::run_command(argv, {}, std::chrono::seconds(30), env);
    INFO(r.out << r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find(dir / "lib/abcictl/libabcictl-prometheus.so") != std::string::npos);
    CHECK(r.err.find("metrics.listen") != std::string::npos);
}

}  // namespace abci::test
