// `abcictl admin audit`: the server's append-only audit log (one entry per
// API request), read directly from its data directory.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/data_dir_option.hpp"
#include "core/error.hpp"
#include "core/store/store.hpp"
#include "core/util/time.hpp"
#include "cli/validators.hpp"

namespace abci::cli {
namespace {

// --since: an RFC 3339 / ISO 8601 time ("2026-11-22T10:00:00Z"), or a
// duration before `now`: digits and one of s, m, h, d, w ("15m", "2h", "7d").
store::TimePoint parse_since(const std::string& text, store::TimePoint now) {
    using std::chrono::seconds;
    const std::size_t digits = static_cast<std::size_t>(
        std::find_if_not(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }) - text.begin());
    // Nine digits keep the product in range (10^9 weeks is far past any clock's epoch anyway).
    if (digits > 0 && digits <= 9 && digits + 1 == text.size()) {
        static constexpr std::pair<char, long long> kUnits[] = {
            {'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 7 * 86400}};
        for (const auto& [unit, unit_seconds] : kUnits)
            if (text.back() == unit) return now - seconds(std::stoll(text.substr(0, digits)) * unit_seconds);
    }
    try {
        return util::parse_rfc3339(text);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::invalid_input) throw;
        throw Error(ErrorKind::invalid_input, "--since '" + text + "' is neither a duration like 15m, 2h or 7d" +
                                                  " (units s, m, h, d, w) nor an ISO 8601 time like " +
                                                  "2026-01-31T12:00:00Z: " + e.what());
    }
}

struct AuditSettings {
    std::string since;
    std::size_t limit = 1000;
};

void show_audit(const Context& ctx, store::Store& store, const AuditSettings& s) {
    const std::optional<store::TimePoint> since =
        s.since.empty() ? std::nullopt : std::optional(parse_since(s.since, std::chrono::system_clock::now()));
    const auto or_dash = [](const std::string& text) { return text.empty() ? std::string("-") : text; };
    std::vector<std::vector<std::string>> rows;
    auto json = nlohmann::json::array();
    for (const auto& entry : store.list_audit(since, s.limit)) {
        const std::string time = util::format_iso8601_utc(entry.time);
        rows.push_back({time, or_dash(entry.actor), entry.method, entry.path, std::to_string(entry.status),
                        or_dash(entry.client_address), or_dash(entry.request_id)});
        json.push_back({{"id", entry.id},
                        {"time", time},
                        {"actor", entry.actor},
                        {"method", entry.method},
                        {"path", entry.path},
                        {"status", entry.status},
                        {"clientAddress", entry.client_address},
                        {"requestId", entry.request_id}});
    }
    ctx.print_table({"TIME", "ACTOR", "METHOD", "PATH", "STATUS", "CLIENT", "REQUEST-ID"}, rows, json);
}

}  // namespace

void add_admin_audit_command(CLI::App& admin, Context& ctx) {
    auto s = std::make_shared<AuditSettings>();
    auto* command = add_store_command(admin, "audit", "The API request audit log, oldest first",
                                      [s, &ctx](store::Store& store) { show_audit(ctx, store, *s); });
    set_examples(*command, {
                 {"The last day's requests", "abcictl admin audit --data-dir /var/lib/abcictl --since 1d"}});
    command
        ->add_option("--since", s->since,
                     "Only entries at or after this time: ISO 8601, or a duration ago (15m, 2h, 7d)")
        ->type_name("TIME");
    whole_number(command->add_option("--limit", s->limit, "Show at most this many entries (the oldest that match)"),
                 1, 1'000'000)
        ->capture_default_str();
}

}  // namespace abci::cli
