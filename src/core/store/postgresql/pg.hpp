#pragma once
// The PostgreSQL backend of the store's repositories (core/store/sql/sql.hpp
// says what a backend offers): a pool of libpq connections, statements with
// bound parameters, rows read by column name, constraint violations worded by
// the repository (Db::run()), and write transactions that behave as SQLite's
// (one writer at a time): SERIALIZABLE, retried when the server found a
// conflicting one (docs/decisions.md).

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/store/postgresql/connection.hpp"
#include "core/store/sql/sql.hpp"
#include "core/store/store_metrics.hpp"

namespace abci::store::postgresql {

using sql::Meaning;

/// The common dialect's parameters (?N, or ? numbered in order) as
/// PostgreSQL's $N; quoted text and names are left as they are.
std::string dollar_parameters(std::string_view sql);

// --- binding -----------------------------------------------------------------

// Text only (sql::bound_text): libpq would cut a value at its first NUL.
inline Param to_param(const std::string& v) { return sql::bound_text(v); }
inline Param to_param(const char* v) { return std::string(sql::bound_text(v)); }
inline Param to_param(std::int64_t v) { return std::to_string(v); }
// uint64 columns hold the two's-complement int64 (read back by unsigned_integer()).
inline Param to_param(std::uint64_t v) { return std::to_string(static_cast<std::int64_t>(v)); }
inline Param to_param(int v) { return std::to_string(v); }
inline Param to_param(bool v) { return std::string(v ? "true" : "false"); }
/// A store enum (status, state, outcome) is stored by its name (its to_string).
template <class Enum>
    requires std::is_enum_v<Enum>
Param to_param(Enum v) {
    return std::string(to_string(v));
}
template <class T>
Param to_param(const std::optional<T>& v) {
    return v ? to_param(*v) : std::nullopt;
}

template <class... Args>
Result run_statement(Connection& c, const std::string& sql, const Args&... args) {
    return c.exec(dollar_parameters(sql), {to_param(args)...});
}

/// Runs a statement that returns no rows; the number of rows it changed.
template <class... Args>
std::int64_t execute(Connection& c, const std::string& sql, const Args&... args) {
    return static_cast<std::int64_t>(run_statement(c, sql, args...).affected());
}

/// NOTIFY `channel` with `payload` when the transaction commits (notifications.hpp).
inline void notify(Connection& c, const char* channel, const std::string& payload) {
    (void)run_statement(c, "SELECT pg_notify(?, ?)", channel, payload);
}

/// A result row, read by column name.
class Row : public sql::RowReader<Row> {
public:
    Row(const Result& result, int row) : result_(result), row_(row) {}
    [[nodiscard]] std::string text(const char* column) const { return result_.text(row_, column); }
    [[nodiscard]] std::int64_t integer(const char* column) const { return result_.integer(row_, column); }
    [[nodiscard]] bool boolean(const char* column) const { return text(column) == "t"; }
    [[nodiscard]] bool is_null(const char* column) const { return result_.is_null(row_, column); }

private:
    const Result& result_;
    int row_;
};

/// Every row, each turned into a T by `read`.
template <class Read, class... Args>
auto query_all(Connection& c, const std::string& sql, Read read, const Args&... args) {
    const Result result = run_statement(c, sql, args...);
    std::vector<decltype(read(Row(result, 0)))> rows;
    rows.reserve(static_cast<std::size_t>(result.rows()));
    for (int i = 0; i < result.rows(); ++i) rows.push_back(read(Row(result, i)));
    return rows;
}

/// The first row, if any.
template <class Read, class... Args>
auto query_one(Connection& c, const std::string& sql, Read read, const Args&... args) {
    const Result result = run_statement(c, sql, args...);
    std::optional<decltype(read(Row(result, 0)))> row;
    if (result.rows() > 0) row = read(Row(result, 0));
    return row;
}

/// Whether `sql` finds a row.
template <class... Args>
bool exists(Connection& c, const std::string& sql, const Args&... args) {
    return run_statement(c, sql, args...).rows() > 0;
}

// --- errors and transactions ------------------------------------------------------

/// A constraint violation in the repository's words; other errors as they are.
Error reworded(const StatementError& e, const Meaning& meaning);

/// `work` in a savepoint: its error, with what it wrote undone; nothing when
/// it succeeded. A serialization failure dooms the whole transaction: thrown.
template <class Work>
std::exception_ptr savepoint(Connection& c, Work&& work) {
    (void)c.exec("SAVEPOINT work");
    std::exception_ptr error;
    try {
        work();
        (void)c.exec("RELEASE SAVEPOINT work");
        return nullptr;
    } catch (const StatementError& e) {
        if (e.retryable()) throw;
        error = std::make_exception_ptr(reworded(e, {}));
    } catch (...) {
        error = std::current_exception();
    }
    (void)c.exec("ROLLBACK TO SAVEPOINT work");
    return error;
}

/// One database: its connection pool, shared by its repositories.
class Db {
public:
    static constexpr const char* kBackend = "postgresql";

    /// Connects once (so that a wrong URL or password fails here) and applies
    /// the schema's migrations.
    explicit Db(const PostgresqlSettings& settings);
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    /// Where transactions are recorded (Store::set_metrics); null until set.
    void set_metrics(StoreMetrics* metrics) noexcept { metrics_.store(metrics, std::memory_order_release); }
    [[nodiscard]] StoreMetrics* metrics() const noexcept { return metrics_.load(std::memory_order_acquire); }

    /// Runs `work` on a pooled connection; constraint violations leave worded by `meaning`.
    template <class Work>
    auto run(const Meaning& meaning, Work&& work) {
        Lease lease = acquire();
        try {
            return work(*lease.connection);
        } catch (const StatementError& e) {
            if (e.kind() == ErrorKind::conflict || e.kind() == ErrorKind::not_found) throw reworded(e, meaning);
            throw;
        }
    }

    /// `work` in a SERIALIZABLE transaction, run again (up to a limit) when the
    /// server reports a serialization failure or deadlock.
    template <class Work>
    auto transaction(const Meaning& meaning, Work&& work) {
        return transaction_from("BEGIN ISOLATION LEVEL SERIALIZABLE", meaning, std::forward<Work>(work));
    }

    /// `work`, whose statements guard themselves row by row (a compare-and-set
    /// UPDATE, a delete by key), in a READ COMMITTED transaction: many at once
    /// on different rows never fail each other, as SERIALIZABLE ones sharing an
    /// index page do (each read of a key that is absent locks its page).
    /// Run again when the server reports a deadlock.
    template <class Work>
    auto row_transaction(const Meaning& meaning, Work&& work) {
        return transaction_from("BEGIN ISOLATION LEVEL READ COMMITTED", meaning, std::forward<Work>(work));
    }

    /// The time now in stored milliseconds, as SQL: the database server's
    /// clock, the one clock every replica's lease is measured by. Rounded
    /// down, as the program's own clock is: a CAST alone rounds to the
    /// nearest, up to half a millisecond into the future (a lease given up
    /// "now" read back as still running).
    static std::string clock_millis() {
        return "CAST(floor(extract(epoch FROM clock_timestamp()) * 1000) AS BIGINT)";
    }

    /// A connection of its own, outside the pool (session locks, LISTEN).
    [[nodiscard]] std::unique_ptr<Connection> dedicated_connection() const { return connect(); }

    static std::string json_array_values(const std::string& parameter) {
        return "SELECT jsonb_array_elements_text(CAST(" + parameter + " AS jsonb))";
    }

private:
    template <class Work>
    auto transaction_from(const char* begin, const Meaning& meaning, Work&& work) {
        const TransactionTimer timer(metrics());
        for (int attempt = 1;; ++attempt) {
            try {
                return run(meaning, [&](Connection& c) {
                    (void)c.exec(begin);
                    try {
                        if constexpr (std::is_void_v<decltype(work(c))>) {
                            work(c);
                            (void)c.exec("COMMIT");
                        } else {
                            auto result = work(c);
                            (void)c.exec("COMMIT");
                            return result;
                        }
                    } catch (...) {
                        roll_back(c);
                        throw;
                    }
                });
            } catch (const StatementError& e) {
                if (!e.retryable() || attempt == kTransactionAttempts) throw;
                pause_before_retry(attempt);
            }
        }
    }

    static constexpr int kTransactionAttempts = 50;
    std::atomic<StoreMetrics*> metrics_{nullptr};  // the audit writer's thread reads it too

    struct Lease {
        Db* db;
        std::unique_ptr<Connection> connection;
        Lease(Db& owner, std::unique_ptr<Connection> c) : db(&owner), connection(std::move(c)) {}
        Lease(Lease&&) = delete;
        ~Lease() { db->release(std::move(connection)); }
    };

    [[nodiscard]] Lease acquire();
    void release(std::unique_ptr<Connection> connection) noexcept;
    [[nodiscard]] std::unique_ptr<Connection> connect() const;
    static void roll_back(Connection& c) noexcept;
    static void pause_before_retry(int attempt);

    const std::string url_;
    std::string password_;  // read once from the password file: replacing a lost connection needs it
    std::mutex mutex_;
    std::condition_variable returned_;
    std::vector<std::unique_ptr<Connection>> idle_;
    std::size_t open_ = 0;  // idle plus leased
};

}  // namespace abci::store::postgresql
