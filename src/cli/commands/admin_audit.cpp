// `abcictl admin audit`: the server's append-only audit log (one entry per
// API request), read directly from its data directory: newest first, users
// shown by e-mail, filtered by time, actor, status and path.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <memory>
#include <tuple>
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
    bool oldest_first = false;
    std::string actor;
    std::string status;
    std::string path;
};

// --status: one code (404) or a class (4xx).
std::pair<int, int> status_range(const std::string& text) {
    const bool digits = text.size() == 3 && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
    const bool family = text.size() == 3 && text[0] >= '1' && text[0] <= '5' && (text.substr(1) == "xx" || text.substr(1) == "XX");
    if (digits) return {std::stoi(text), std::stoi(text)};
    if (family) return {(text[0] - '0') * 100, (text[0] - '0') * 100 + 99};
    throw Error(ErrorKind::invalid_input, "--status '" + text + "' is neither an HTTP status like 403 nor a class like 4xx");
}

// --actor: an e-mail names its user; anything else (a user id, apikey:<id>) is the actor as recorded.
std::string actor_of(store::Store& store, const std::string& text) {
    if (text.find('@') == std::string::npos) return text;
    if (const auto user = store.users().find_by_email(text)) return user->id;
    throw Error(ErrorKind::not_found, "no user with e-mail " + text + ": see abcictl admin user list");
}

void show_audit(const Context& ctx, store::Store& store, const AuditSettings& s) {
    store::AuditQuery query;
    if (!s.since.empty()) query.since = parse_since(s.since, std::chrono::system_clock::now());
    query.limit = s.limit;
    query.newest_first = !s.oldest_first;
    if (!s.actor.empty()) query.actor = actor_of(store, s.actor);
    if (!s.status.empty()) std::tie(query.status_from, query.status_to) = status_range(s.status);
    query.path_prefix = s.path;
    // Users by e-mail, as an operator knows them; each looked up once.
    std::map<std::string, std::string> emails;
    const auto shown_actor = [&](const std::string& actor) -> std::string {
        if (actor.empty()) return "-";
        const auto [known, added] = emails.try_emplace(actor, actor);
        if (added)
            if (const auto user = store.users().find_by_id(actor)) known->second = user->email;
        return known->second;
    };
    std::vector<std::vector<std::string>> rows;
    auto json = nlohmann::json::array();
    const auto or_dash = [](const std::string& text) { return text.empty() ? std::string("-") : text; };
    for (const auto& entry : store.audit().query(query)) {
        const std::string time = util::format_iso8601_utc(entry.time);
        const std::string actor = shown_actor(entry.actor);
        rows.push_back({time, actor, entry.method, entry.path, std::to_string(entry.status),
                        or_dash(entry.client_address), or_dash(entry.request_id)});
        json.push_back({{"id", entry.id},
                        {"time", time},
                        {"actor", entry.actor},
                        {"actorEmail", actor != entry.actor && actor != "-" ? nlohmann::json(actor) : nlohmann::json(nullptr)},
                        {"method", entry.method},
                        {"path", entry.path},
                        {"status", entry.status},
                        {"clientAddress", entry.client_address},
                        {"requestId", entry.request_id},
                        {"count", entry.count}});
    }
    ctx.print_table({"TIME", "ACTOR", "METHOD", "PATH", "STATUS", "CLIENT", "REQUEST-ID"}, rows, json);
}

}  // namespace

void add_admin_audit_command(CLI::App& admin, Context& ctx) {
    auto s = std::make_shared<AuditSettings>();
    auto* command = add_store_command(admin, "audit", "The API request audit log, newest first",
                                      [s, &ctx](store::Store& store) { show_audit(ctx, store, *s); });
    set_examples(*command, {
                 {"The last day's requests", "abcictl admin audit --data-dir /var/lib/abcictl --since 1d"}});
    command
        ->add_option("--since", s->since,
                     "Only entries at or after this time: ISO 8601, or a duration ago (15m, 2h, 7d)")
        ->type_name("TIME");
    whole_number(command->add_option("--limit", s->limit, "Show at most this many entries (the newest that match)"),
                 1, 1'000'000)
        ->capture_default_str();
    command->add_flag("--oldest-first", s->oldest_first, "Oldest first (and --limit keeps the oldest)");
    command->add_option("--actor", s->actor, "Only this actor: a user's e-mail or id, or apikey:<id>");
    command->add_option("--status", s->status, "Only this HTTP status (403) or class (4xx)")->type_name("STATUS");
    command->add_option("--path", s->path, "Only paths that start with this (/abci/, /api/auth/login)")->type_name("PREFIX");
}

}  // namespace abci::cli
