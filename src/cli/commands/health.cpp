// `abcictl health`: GET /abci/health as a monitoring check. Exit codes follow
// the monitoring-plugin convention (Nagios, Icinga, Sensu): 0 OK, 1 WARNING
// (healthy, but a node answered slowly), 2 CRITICAL (degraded: HTTP 503; or
// the server cannot be reached, as check_http says), 3 UNKNOWN (bad
// arguments, refused credentials, an answer that is no health report). Works with
// ABCICTL_TOKEN (an API key with abci:health) so a cron line needs no login.

#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/exit_code.hpp"
#include "cli/session.hpp"
#include "cli/validators.hpp"

namespace abci::cli {
namespace {

constexpr int kOk = kExitHealthOk, kWarning = kExitHealthWarning, kCritical = kExitHealthCritical,
              kUnknown = kExitHealthUnknown;
constexpr const char* kStateNames[] = {"OK", "WARNING", "CRITICAL", "UNKNOWN"};

struct HealthSettings {
    std::string format = "text";
    double timeout_seconds = 10;
    long warn_latency_ms = 1000;
};

struct Verdict {
    int code = kUnknown;
    nlohmann::json body;  // the server's health body, when it answered
    std::string problem;  // why there is no body: UNKNOWN, or CRITICAL when the server is unreachable
};

Verdict check(Context& ctx, const HealthSettings& s) {
    Verdict v;
    try {
        StateDb state(StateDb::default_path());
        auto client = authenticated_client(ctx.options, state, std::chrono::milliseconds(static_cast<long>(s.timeout_seconds * 1000)));
        const auto answer = client->send("GET", "/abci/health");
        if ((answer.status != 200 && answer.status != 503) || !answer.body.is_object() || !answer.body.contains("checks"))
            throw error_from_response(answer);
        v.body = answer.body;
        if (answer.status == 503 || answer.body.value("status", "") != "healthy") {
            v.code = kCritical;
            return v;
        }
        v.code = kOk;
        for (const auto& [name, c] : answer.body["checks"].items())
            if (c.value("latencyMs", 0L) > s.warn_latency_ms) v.code = kWarning;
    } catch (const Error& e) {
        // A server that does not answer is down for whoever relies on it (check_http: CRITICAL); UNKNOWN
        // is for a check that could not be made (a refused credential, a bad answer).
        const bool unreachable = e.kind() == ErrorKind::unavailable || e.kind() == ErrorKind::timeout;
        v.code = unreachable ? kCritical : kUnknown;
        v.problem = e.what();
    }
    return v;
}

// A check that failed has no latency worth reading: a refused connection takes 0 ms.
bool has_latency(const nlohmann::json& check) { return check.contains("latencyMs") && check.value("healthy", false); }

// A lane's figures (-v), as a dashboard shows them: an operator without
// Prometheus sees a stuck transaction or a nonce drift here too.
void print_lane(const nlohmann::json& lane) {
    if (lane.contains("owner"))
        std::cout << "    owner: " << lane["owner"].get<std::string>() << " (epoch " << lane.value("epoch", 0L)
                  << (lane.value("ownedHere", false) ? ", this server" : "") << ")\n";
    if (lane.contains("pendingTransactions")) {
        std::cout << "    pending: " << lane["pendingTransactions"].get<long>();
        if (lane.contains("pendingByState")) {
            const auto& by = lane["pendingByState"];
            std::cout << " (queued " << by.value("queued", 0L) << ", signed " << by.value("signed", 0L) << ", sent "
                      << by.value("sent", 0L) << ", stuck " << by.value("stuck", 0L) << ")";
        }
        std::cout << ", oldest " << lane.value("oldestPendingSeconds", 0L) << " s\n";
    }
    if (lane.contains("nextNonce")) {
        const auto& n = lane["nextNonce"];
        std::cout << "    next nonce: journal " << n.value("journal", 0L);
        if (n.contains("chainLatest")) std::cout << ", chain latest " << n["chainLatest"].get<long>();
        if (n.contains("chainPending")) std::cout << ", chain pending " << n["chainPending"].get<long>();
        std::cout << "\n";
    }
}

void print_text(const Context& ctx, const Verdict& v) {
    if (!v.problem.empty()) {
        std::cout << ctx.bold(kStateNames[v.code]) << ": " << v.problem << "\n";
        return;
    }
    std::cout << ctx.bold(kStateNames[v.code]) << ": " << v.body.value("status", "") << "\n";
    for (const auto& [name, c] : v.body["checks"].items()) {
        std::cout << "  " << name << ": " << (c.value("healthy", false) ? "healthy" : "unhealthy");
        if (has_latency(c)) std::cout << ", " << c["latencyMs"].get<long>() << " ms";
        if (c.contains("message") && !c["message"].get<std::string>().empty()) std::cout << " (" << c["message"].get<std::string>() << ")";
        std::cout << "\n";
        if (ctx.options.verbosity > 0 && name.rfind("lane:", 0) == 0) print_lane(c);
    }
}

// One line: status text, then perfdata after '|' (label=value[UOM];warn;crit;min;max).
void print_nagios(const Verdict& v, const HealthSettings& s) {
    if (!v.problem.empty()) {
        std::cout << "ABCI " << kStateNames[v.code] << " - " << v.problem << "\n";
        return;
    }
    int total = 0, unhealthy = 0;
    std::string failing, perf;
    for (const auto& [name, c] : v.body["checks"].items()) {
        ++total;
        if (!c.value("healthy", false)) {
            ++unhealthy;
            failing += (failing.empty() ? "" : ", ") + name;
        }
        if (has_latency(c)) {
            std::string label = name;
            for (char& ch : label)
                if (ch == ':') ch = '_';
            perf += " " + label + "_latency=" + std::to_string(c["latencyMs"].get<long>()) + "ms;" + std::to_string(s.warn_latency_ms) + ";;0";
        }
    }
    std::cout << "ABCI " << kStateNames[v.code] << " - " << v.body.value("status", "") << ", " << (total - unhealthy) << "/"
              << total << " checks healthy" << (failing.empty() ? "" : " (failing: " + failing + ")")
              << " | checks=" << total << ";;;0 unhealthy=" << unhealthy << ";;1;0" << perf << "\n";
}

}  // namespace

void add_health_command(CLI::App& app, Context& ctx) {
    const char* description = "Check the server, its chains, contracts, content storage and database "
                              "(exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN)";
    add_lazy_subcommand(app, "health", description, [&ctx](CLI::App& cmd) {
        set_examples(cmd, {
                     {"Is the server well?", "abcictl health"},
                     {"As a Nagios or Icinga check", "abcictl --server https://abci.example.org health --format nagios"}});
        auto s = std::make_shared<HealthSettings>();
        one_of(cmd.add_option("--format", s->format, "Output form (nagios: one line with perfdata)")->capture_default_str(),
               {"text", "json", "nagios"});
        positive_number(cmd.add_option("--timeout", s->timeout_seconds, "Seconds to wait for the server")
                            ->capture_default_str());
        whole_number(cmd.add_option("--warn-latency", s->warn_latency_ms, "A node slower than this many ms is a WARNING")
                         ->capture_default_str(),
                     1, 3'600'000);
        cmd.callback([s, &ctx] {
            const Verdict v = check(ctx, *s);
            const auto no_report = [&v] {
                return nlohmann::json{{"status", v.code == kCritical ? "unreachable" : "unknown"}, {"message", v.problem}};
            };
            if (ctx.options.json || s->format == "json")
                std::cout << (v.problem.empty() ? v.body : no_report()).dump(2) << "\n";
            else if (s->format == "nagios")
                print_nagios(v, *s);
            else if (ctx.options.quiet)
                std::cout << kStateNames[v.code] << "\n";
            else
                print_text(ctx, v);
            ctx.exit_code = v.code;
        });
    });
}

}  // namespace abci::cli
