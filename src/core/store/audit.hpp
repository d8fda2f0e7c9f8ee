#pragma once
// The audit log: one row per request, append-only.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/store/records.hpp"

namespace abci::store {

struct AuditEntry {
    std::int64_t id = 0;  // assigned by the store, increasing
    TimePoint time;
    std::string actor;       // user id, "apikey:<id>", or "" when unauthenticated
    std::string method;
    std::string path;
    int status = 0;
    std::string client_address;
    std::string request_id;
    /// Refused before the request was let in (no valid caller, or over the
    /// rate limit): the client chose the volume, so such requests are
    /// counted into one row per client address, actor, method, path and
    /// status per minute (kRefusedAuditWindow) instead of a row each. The
    /// row's time is the first request's; `count` and `last_time` grow.
    bool refused = false;
    std::int64_t count = 1;                // requests this row stands for
    std::optional<TimePoint> last_time{};  // refused rows: the latest request counted
};

/// Which audit entries to list (AuditLog::query): each filter left empty matches all.
struct AuditQuery {
    std::optional<TimePoint> since;  // at or after
    std::size_t limit = 1000;
    bool newest_first = true;  // and the limit keeps the newest; else the oldest
    std::string actor;         // exactly this actor (a user id, "apikey:<id>")
    int status_from = 0, status_to = 999;  // status within [from, to]
    std::string path_prefix;
};

/// The window of a refused-requests audit row.
inline constexpr std::chrono::minutes kRefusedAuditWindow{1};

class AuditLog {
public:
    virtual ~AuditLog() = default;
    /// Queues the entry and returns without waiting for the disk: entries are
    /// committed in batches by a writer of their own, within a few
    /// milliseconds, and at the latest when the store is destroyed. Text that
    /// is not text (a NUL, invalid UTF-8) is recorded escaped
    /// (util::escape_text), never refused. A commit that fails because the
    /// database cannot be reached is retried (and reported to the error
    /// handler); a row the database refuses for itself is dropped, reported
    /// once, and the rows after it are written. Only a crash can lose the
    /// entries of the last few milliseconds, as with any commit under
    /// synchronous=NORMAL.
    virtual void append(const AuditEntry& entry) = 0;
    /// Who hears of a failed audit commit (the server logs it): `retried`
    /// when the rows are kept for another try, false when a row was dropped.
    /// Called on the writer's thread; must not throw. Until set, failures
    /// are only retried or dropped.
    virtual void set_error_handler(std::function<void(const std::string& error, bool retried)> handler) = 0;
    /// The entries `query` selects, in its order; entries this store queued before the call are included.
    [[nodiscard]] virtual std::vector<AuditEntry> query(const AuditQuery& query) = 0;
    /// When each API key was last used: the time of its newest audit entry, by key id.
    [[nodiscard]] virtual std::map<std::string, TimePoint> api_keys_last_used() = 0;

    /// Entries at or after `since` (all when empty), oldest first, at most `limit`.
    [[nodiscard]] std::vector<AuditEntry> list(std::optional<TimePoint> since, std::size_t limit) {
        AuditQuery oldest_first;
        oldest_first.since = since;
        oldest_first.limit = limit;
        oldest_first.newest_first = false;
        return query(oldest_first);
    }
};

}  // namespace abci::store
