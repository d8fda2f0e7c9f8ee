// The audit log.

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <mutex>

#include "core/store/sql/backends.hpp"
#include "core/util/batch_writer.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kAuditColumns =
    "id, time, actor, method, path, status, client_address, request_id, refused_window, count, last_time";
// Escaped as written (recordable_text): what a release before text was
// checked wrote (a NUL, a 0xFF in a path) is listed, not refused by a reader.
constexpr auto read_audit = [](const auto& row) {
    return AuditEntry{.id = row.integer("id"),
                      .time = row.time_at("time"),
                      .actor = recordable_text(row.text("actor")),
                      .method = recordable_text(row.text("method")),
                      .path = recordable_text(row.text("path")),
                      .status = static_cast<int>(row.integer("status")),
                      .client_address = recordable_text(row.text("client_address")),
                      .request_id = recordable_text(row.text("request_id")),
                      .refused = !row.is_null("refused_window"),
                      .count = row.integer("count"),
                      .last_time = row.optional_time_at("last_time")};
};

template <class Db>
class SqlAuditLog final : public AuditLog {
public:
    explicit SqlAuditLog(Db& db) : db_(db) {}

    void append(const AuditEntry& entry) override { writer_.append(entry); }

    void set_error_handler(std::function<void(const std::string&, bool)> handler) override {
        std::lock_guard lock(error_mutex_);
        error_handler_ = std::move(handler);
    }

    std::vector<AuditEntry> query(const AuditQuery& query) override {
        // Our own queued entries first, so a request's row is listed by the next request.
        (void)writer_.flush(std::chrono::seconds(5));
        const std::int64_t from = query.since ? to_millis(*query.since) : std::numeric_limits<std::int64_t>::min();
        const auto max_rows =
            static_cast<std::int64_t>(std::min<std::size_t>(query.limit, std::numeric_limits<std::int64_t>::max()));
        // One statement for every combination: an empty filter compares true.
        const std::string sql =
            select_columns(kAuditColumns, std::string("FROM audit_log WHERE time >= ?1 AND (?2 = '' OR actor = ?2) "
                                                      "AND status BETWEEN ?3 AND ?4 AND substr(path, 1, length(CAST(?5 AS TEXT))) "
                                                      "= ?5 ORDER BY id ") +
                                              (query.newest_first ? "DESC" : "ASC") + " LIMIT ?6");
        return db_.run({}, [&](auto& c) {
            return query_all(c, sql, read_audit, from, query.actor, query.status_from, query.status_to,
                             query.path_prefix, max_rows);
        });
    }

    std::map<std::string, TimePoint> api_keys_last_used() override {
        (void)writer_.flush(std::chrono::seconds(5));
        // A range over audit_log_by_actor rather than LIKE: "apikey;" is the first string after every "apikey:…".
        const auto rows = db_.run({}, [&](auto& c) {
            return query_all(c,
                             "SELECT substr(actor, 8) AS key_id, MAX(time) AS last_used FROM audit_log "
                             "WHERE actor >= 'apikey:' AND actor < 'apikey;' GROUP BY actor",
                             [](const auto& row) { return std::pair(row.text("key_id"), row.time_at("last_used")); });
        });
        return {rows.begin(), rows.end()};
    }

private:
    void write(const std::vector<AuditEntry>& entries) {
        db_.transaction({}, [&](auto& c) {
            constexpr auto window = std::chrono::duration_cast<std::chrono::milliseconds>(kRefusedAuditWindow).count();
            for (const auto& entry : entries) {
                const auto time = to_millis(entry.time);
                std::optional<std::int64_t> refused_window, refused_time;
                if (entry.refused) {
                    refused_window = time - time % window;
                    refused_time = time;
                }
                execute(c,
                        "INSERT INTO audit_log (time, actor, method, path, status, client_address, request_id, "
                        "refused_window, count, last_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (refused_window, client_address, actor, method, path, status) "
                        "WHERE refused_window IS NOT NULL "
                        "DO UPDATE SET count = audit_log.count + excluded.count, last_time = CASE WHEN excluded.last_time > "
                        "audit_log.last_time THEN excluded.last_time ELSE audit_log.last_time END",
                        time, recordable_text(entry.actor), recordable_text(entry.method),
                        recordable_text(entry.path), entry.status, recordable_text(entry.client_address),
                        recordable_text(entry.request_id), refused_window, entry.count, refused_time);
            }
        });
        if (auto* metrics = db_.metrics()) metrics->audit_written(entries.size());
    }

    void report(const std::string& error, bool retried) {
        std::lock_guard lock(error_mutex_);
        if (error_handler_) error_handler_(error, retried);
    }

    void report_dropped(const AuditEntry& entry, const std::exception& e) {
        if (auto* metrics = db_.metrics()) metrics->audit_dropped();
        report(fmt::format("the audit row of request {} ({} {}, status {}) was dropped: {}",
                           recordable_text(entry.request_id), recordable_text(entry.method),
                           recordable_text(entry.path), entry.status, e.what()),
               false);
    }

    Db& db_;
    std::mutex error_mutex_;  // guards the handler only
    std::function<void(const std::string&, bool)> error_handler_;
    // Every /abci request appends an audit row. They are committed in batches
    // at most every few milliseconds, off the request's path: each commit
    // would otherwise make every reader's page cache stale (SQLite drops a
    // connection's cache when the WAL changed), so a read route under load
    // re-read its pages from disk on nearly every request. Last member: its
    // destructor writes what is queued.
    util::BatchWriter<AuditEntry> writer_{[this](std::vector<AuditEntry>& batch) { write(batch); },
                                          [this](const std::exception& e) { report(e.what(), true); },
                                          [this](const AuditEntry& entry, const std::exception& e) {
                                              report_dropped(entry, e);
                                          },
                                          std::chrono::milliseconds(5)};
};

}  // namespace

template <class Db>
std::unique_ptr<AuditLog> make_audit_log(Db& db) {
    return std::make_unique<SqlAuditLog<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_audit_log, AuditLog)

}  // namespace abci::store::sql
