#include "support/haproxy.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <string_view>

#include <fmt/format.h>

#include "support/tools.hpp"

namespace abci::test {
namespace {

constexpr const char* kHaproxy = "/usr/sbin/haproxy";
constexpr const char* kExample = "examples/haproxy-replicas.cfg";

std::string_view trimmed(std::string_view line) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return line.substr(first, line.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::string haproxy_config(std::uint16_t port, const std::vector<std::uint16_t>& replica_ports,
                           bool health_checks) {
    std::ifstream in(source_path(kExample));
    if (!in) FAIL("cannot read " << source_path(kExample));
    std::string servers;
    for (const auto replica : replica_ports)
        servers += fmt::format("    server replica-{0} 127.0.0.1:{0}{1}\n", replica, health_checks ? " check" : "");
    // The example's lines (as it writes them, indentation aside) and what each
    // becomes: all of them must be there, each once.
    std::map<std::string_view, std::string> replacements{
        {"bind 127.0.0.1:8080", fmt::format("    bind 127.0.0.1:{}\n", port)},
        {"server replica-8081 127.0.0.1:8081 check", servers},
        {"server replica-8082 127.0.0.1:8082 check", ""},
    };
    if (!health_checks)
        for (const auto* check : {"option httpchk GET /readyz", "http-check expect status 200",
                                  "default-server inter 1s fall 2 rise 2"})
            replacements.emplace(check, "");
    std::map<std::string_view, int> found;
    std::string config;
    for (std::string line; std::getline(in, line);) {
        if (const auto replacement = replacements.find(trimmed(line)); replacement != replacements.end()) {
            ++found[replacement->first];
            config += replacement->second;
        } else {
            config += line + "\n";
        }
    }
    for (const auto& [line, replacement] : replacements)
        if (found[line] != 1)
            FAIL(kExample << " has the line \"" << line << "\" " << found[line]
                          << " times, not once: tests/support/haproxy.cpp cannot set the test's ports in it");
    return config;
}

Haproxy::Haproxy(Options options) {
    const auto log = dir_ / "haproxy.log";
    for (int attempt = 0; attempt < (options.port ? 1 : 3); ++attempt) {
        port_ = options.port ? options.port : os::free_loopback_port();
        const auto config =
            dir_.write("haproxy.cfg", haproxy_config(port_, options.replica_ports, options.health_checks));
        const auto checked = os::run_command({kHaproxy, "-c", "-f", config});
        INFO("haproxy -c: " << checked.out << checked.err);
        REQUIRE(checked.exit_code == 0);
        process_.emplace(std::vector<std::string>{kHaproxy, "-db", "-f", config}, log);
        if (os::wait_for_port(port_, std::chrono::seconds(5)) && process_->running()) return;
        process_->stop();
    }
    FAIL("haproxy did not start on " << host() << "; its log:\n" << file_tail(log, 40));
}

Haproxy::~Haproxy() {
    if (std::uncaught_exceptions() > 0 || !Catch::getResultCapture().lastAssertionPassed())
        std::cerr << "---- haproxy on " << host() << ", last lines of its log ----\n"
                  << file_tail(dir_ / "haproxy.log", 60) << "---- end of haproxy log ----\n";
    if (process_) process_->stop();
}

std::string Haproxy::host() const { return "127.0.0.1:" + std::to_string(port_); }

}  // namespace abci::test
