#pragma once
// The SQLite backend of the store's repositories (core/store/sql/sql.hpp says
// what a backend offers): one connection pool per database, statements with
// bound parameters, rows read by column name, and SQLite's failures mapped to
// abci::Error in one place (Db::run()).

#include <SQLiteCpp/SQLiteCpp.h>
#include <SQLiteCpp/Savepoint.h>
#include <SQLiteCpp/Transaction.h>

#include <atomic>
#include <condition_variable>
#include <exception>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "core/store/connection_pool.hpp"
#include "core/store/sql/sql.hpp"
#include "core/store/store_metrics.hpp"

namespace abci::store::sqlite {

using Database = Connection;
using SQLite::Statement;
using sql::Meaning;

// --- binding -----------------------------------------------------------------

// Text only (sql::bound_text): the same values as PostgreSQL stores.
inline void bind_value(Statement& s, int i, const std::string& v) { s.bind(i, sql::bound_text(v)); }
inline void bind_value(Statement& s, int i, std::int64_t v) { s.bind(i, v); }
// uint64 columns hold the two's-complement int64 (read back by unsigned_integer()).
inline void bind_value(Statement& s, int i, std::uint64_t v) { s.bind(i, static_cast<std::int64_t>(v)); }
inline void bind_value(Statement& s, int i, int v) { s.bind(i, v); }
inline void bind_value(Statement& s, int i, bool v) { s.bind(i, v ? 1 : 0); }
inline void bind_value(Statement& s, int i, const char* v) { s.bind(i, sql::bound_text(v)); }
/// A store enum (status, state, outcome) is stored by its name (its to_string).
template <class Enum>
    requires std::is_enum_v<Enum>
void bind_value(Statement& s, int i, Enum v) {
    s.bind(i, to_string(v));
}
template <class T>
void bind_value(Statement& s, int i, const std::optional<T>& v) {
    if (v) {
        bind_value(s, i, *v);
    } else {
        s.bind(i);
    }
}

/// `sql` prepared (or reused) with `args` bound to ?1, ?2, … in order.
template <class... Args>
Database::Statement prepare(Database& db, const std::string& sql, const Args&... args) {
    auto s = db.prepare(sql);
    int i = 0;
    (bind_value(*s, ++i, args), ...);
    return s;
}

/// Runs a statement that returns no rows; the number of rows it changed.
template <class... Args>
int execute(Database& db, const std::string& sql, const Args&... args) {
    return prepare(db, sql, args...)->exec();
}

/// No other server shares an SQLite database (the data directory's lock):
/// nobody to wake.
inline void notify(Database&, const char* /*channel*/, const std::string& /*payload*/) {}

/// A result row, read by column name.
class Row : public sql::RowReader<Row> {
public:
    explicit Row(const Statement& s) : s_(s) {}
    [[nodiscard]] std::string text(const char* column) const { return s_.getColumn(column).getString(); }
    [[nodiscard]] std::int64_t integer(const char* column) const { return s_.getColumn(column).getInt64(); }
    [[nodiscard]] bool boolean(const char* column) const { return integer(column) != 0; }
    [[nodiscard]] bool is_null(const char* column) const { return s_.getColumn(column).isNull(); }

private:
    const Statement& s_;
};

/// Every row, each turned into a T by `read`.
template <class Read, class... Args>
auto query_all(Database& db, const std::string& sql, Read read, const Args&... args) {
    const auto s = prepare(db, sql, args...);
    std::vector<decltype(read(Row(*s)))> rows;
    while (s->executeStep()) rows.push_back(read(Row(*s)));
    return rows;
}

/// The first row, if any.
template <class Read, class... Args>
auto query_one(Database& db, const std::string& sql, Read read, const Args&... args) {
    const auto s = prepare(db, sql, args...);
    std::optional<decltype(read(Row(*s)))> row;
    if (s->executeStep()) row = read(Row(*s));
    return row;
}

/// Whether `sql` finds a row.
template <class... Args>
bool exists(Database& db, const std::string& sql, const Args&... args) {
    return query_one(db, sql, [](const Row&) { return true; }, args...).has_value();
}

// --- errors --------------------------------------------------------------------

Error translate(const SQLite::Exception& e, const Meaning& meaning);

/// `work` in a savepoint: its error, with what it wrote undone; nothing when it succeeded.
template <class Work>
std::exception_ptr savepoint(Database& db, Work&& work) {
    SQLite::Savepoint savepoint(db, "work");
    try {
        work();
        savepoint.release();
        return nullptr;
    } catch (const SQLite::Exception& e) {
        savepoint.rollback();
        return std::make_exception_ptr(translate(e, {}));
    } catch (...) {
        savepoint.rollback();
        return std::current_exception();
    }
}

/// One database: its connection pool, shared by its repositories.
class Db {
public:
    static constexpr const char* kBackend = "sqlite";

    explicit Db(const std::string& path);

    /// Where transactions are recorded (Store::set_metrics); null until set.
    void set_metrics(StoreMetrics* metrics) noexcept { metrics_.store(metrics, std::memory_order_release); }
    [[nodiscard]] StoreMetrics* metrics() const noexcept { return metrics_.load(std::memory_order_acquire); }

    /// Runs `work` on a leased connection; SQLite's exceptions leave as
    /// abci::Error, constraint violations worded by `meaning`.
    template <class Work>
    auto run(const Meaning& meaning, Work&& work) {
        try {
            auto lease = pool_.acquire();
            return work(*lease);
        } catch (const SQLite::Exception& e) {
            throw translate(e, meaning);
        }
    }

    /// `work` in an IMMEDIATE transaction: SQLite runs one writer at a time.
    /// Writers that arrive while one commits are committed together, in the
    /// order they came, by whichever of them finds no commit under way (the
    /// others sleep until theirs is done): each work in a savepoint of one
    /// transaction, so that a work that fails is undone alone and its error
    /// is its caller's. Each writer taking SQLite's lock by itself woke every
    /// waiting writer at every commit to race for it, and under a burst of
    /// mints a writer preempted while holding the lock stalled all of them.
    /// A commit that fails is the error of every work in it. Never called
    /// from inside another transaction's work (Error(internal)).
    template <class Work>
    auto transaction(const Meaning& meaning, Work&& work) {
        const TransactionTimer timer(metrics());
        using Result = std::invoke_result_t<Work&, Database&>;
        [[maybe_unused]] std::conditional_t<std::is_void_v<Result>, std::monostate, std::optional<Result>> result;
        auto attempt = [&](Database& db) {
            SQLite::Savepoint savepoint(db, "turn");
            try {
                if constexpr (std::is_void_v<Result>) {
                    work(db);
                } else {
                    result.emplace(work(db));
                }
                savepoint.release();
            } catch (const SQLite::Exception& e) {
                savepoint.rollback();
                throw translate(e, meaning);
            } catch (...) {
                savepoint.rollback();
                throw;
            }
        };
        using Attempt = decltype(attempt);
        Turn turn{[](void* self, Database& db) { (*static_cast<Attempt*>(self))(db); }, &attempt};
        take_turn(turn);
        if (turn.error) std::rethrow_exception(turn.error);
        if constexpr (!std::is_void_v<Result>) return std::move(*result);
    }

    /// As transaction(): SQLite's one writer at a time is serializable anyway
    /// (postgresql::Db runs these at READ COMMITTED).
    template <class Work>
    auto row_transaction(const Meaning& meaning, Work&& work) {
        return transaction(meaning, std::forward<Work>(work));
    }

    /// The time now in stored milliseconds, as SQL: the one server's own clock.
    static std::string clock_millis() { return "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"; }

    static std::string json_array_values(const std::string& parameter) {
        return "SELECT value FROM json_each(" + parameter + ")";
    }

private:
    // One transaction()'s work, queued for a commit.
    struct Turn {
        void (*run)(void* attempt, Database& db);  // the work in its savepoint; throws its error
        void* attempt;
        std::exception_ptr error;  // the work's, or the commit's
        bool done = false;
    };
    // Queues `turn` and returns once it is committed or failed: commits the
    // queue itself when no other caller is committing.
    void take_turn(Turn& turn);
    // Runs `turns` in one IMMEDIATE transaction and commits it.
    void commit(const std::vector<Turn*>& turns);

    ConnectionPool pool_;
    std::mutex turns_mutex_;  // guards the three below
    std::vector<Turn*> queued_;
    bool committing_ = false;
    std::condition_variable committed_;
    std::atomic<StoreMetrics*> metrics_{nullptr};  // the audit writer's thread reads it too
};

}  // namespace abci::store::sqlite
