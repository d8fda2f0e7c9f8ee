// Request counts per caller and window, one atomic upsert per hit.

#include <atomic>

#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

// Deleting what ended costs a pass over the table: once every this many hits.
constexpr std::uint32_t kPruneEvery = 1024;

template <class Db>
class SqlRateWindows final : public RateWindows {
public:
    explicit SqlRateWindows(Db& db) : db_(db) {}

    RateWindow hit(const std::string& key, std::chrono::milliseconds window, TimePoint now) override {
        const std::int64_t at = to_millis(now);
        const std::int64_t length = window.count();
        const bool prune = hits_.fetch_add(1, std::memory_order_relaxed) % kPruneEvery == kPruneEvery - 1;
        return db_.run({}, [&](auto& c) {
            if (prune) execute(c, "DELETE FROM rate_windows WHERE started_at + length_ms <= ?", at);
            // One statement: the row lock (PostgreSQL) or the write lock
            // (SQLite) orders concurrent hits, each counting on the last.
            return *query_one(c,
                              "INSERT INTO rate_windows (key, started_at, length_ms, count) VALUES (?1, ?2, ?3, 1) "
                              "ON CONFLICT (key) DO UPDATE SET "
                              "count = CASE WHEN rate_windows.started_at + ?3 <= ?2 THEN 1 "
                              "ELSE rate_windows.count + 1 END, "
                              "started_at = CASE WHEN rate_windows.started_at + ?3 <= ?2 THEN ?2 "
                              "ELSE rate_windows.started_at END, length_ms = ?3 "
                              "RETURNING started_at, count",
                              [](const auto& row) {
                                  return RateWindow{.started_at = row.time_at("started_at"),
                                                    .count = static_cast<std::uint32_t>(row.integer("count"))};
                              },
                              key, at, length);
        });
    }

    void forgive(const std::string& key, TimePoint now) override {
        db_.run({}, [&](auto& c) {
            execute(c, "UPDATE rate_windows SET count = count - 1 WHERE key = ? AND count > 0 AND started_at + length_ms > ?",
                    key, to_millis(now));
        });
    }

    std::optional<TimePoint> open_until(const std::string& key, TimePoint now) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c,
                             "SELECT started_at + length_ms AS ends_at FROM rate_windows "
                             "WHERE key = ? AND started_at + length_ms > ?",
                             [](const auto& row) { return row.time_at("ends_at"); }, key, to_millis(now));
        });
    }

private:
    Db& db_;
    std::atomic<std::uint32_t> hits_{0};
};

}  // namespace

template <class Db>
std::unique_ptr<RateWindows> make_rate_windows(Db& db) {
    return std::make_unique<SqlRateWindows<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_rate_windows, RateWindows)

}  // namespace abci::store::sql
