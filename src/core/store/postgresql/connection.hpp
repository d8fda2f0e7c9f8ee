#pragma once
// One PostgreSQL connection over libpq, for the PostgreSQL store (DESIGN.md
// §9). libpq itself rather than libpqxx 6.4: libpqxx reconnects a broken
// connection behind the program's back, which silently drops the session's
// advisory locks and LISTENs that lane ownership rests on
// (docs/decisions.md). Here a lost connection stays lost: every later call
// fails with Error(unavailable) and broken() says so, and the owner decides
// what a new connection means.
//
// Statements are sent with bound parameters only (the text of a value never
// reaches the SQL parser); values travel as text, NULL as none. Each
// statement is prepared once per connection and executed by name after:
// parsing and planning SQL took more of the server's time than running most
// of the store's one-row statements.
// Errors by SQLSTATE: unique_violation (23505) is Error(conflict),
// foreign_key_violation (23503) Error(not_found), a lost or refused
// connection, a server shutting down or a statement cancelled
// Error(unavailable), anything else Error(internal) with the server's message.
// A connection URL's password never appears in a message.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/store/notifications.hpp"

struct pg_conn;
struct pg_result;

namespace abci::store::postgresql {

class Connection;

/// The rows a statement returned; columns are read by name.
class Result {
public:
    explicit Result(pg_result* result);
    [[nodiscard]] int rows() const noexcept;
    /// Whether column `column` of row `row` is NULL. Error(internal) for a column the statement has not.
    [[nodiscard]] bool is_null(int row, const char* column) const;
    /// The value as text ("" for NULL).
    [[nodiscard]] std::string text(int row, const char* column) const;
    /// The value as a 64-bit integer. Error(internal) when it is NULL or not one.
    [[nodiscard]] std::int64_t integer(int row, const char* column) const;
    /// How many rows an INSERT, UPDATE or DELETE touched.
    [[nodiscard]] std::uint64_t affected() const;

private:
    friend class Connection;
    [[nodiscard]] int column_of(const char* column) const;
    std::unique_ptr<pg_result, void (*)(pg_result*)> result_;
};

/// A statement's parameter: text, or NULL.
using Param = std::optional<std::string>;

/// What the server refused a statement with: its SQLSTATE beside the kind.
class StatementError : public Error {
public:
    StatementError(ErrorKind kind, std::string message, std::string sqlstate)
        : Error(kind, std::move(message)), sqlstate_(std::move(sqlstate)) {}
    [[nodiscard]] const std::string& sqlstate() const noexcept { return sqlstate_; }
    /// A serialization failure or a deadlock: the transaction, run again, may succeed.
    [[nodiscard]] bool retryable() const noexcept { return sqlstate_ == "40001" || sqlstate_ == "40P01"; }

private:
    std::string sqlstate_;
};

class Connection {
public:
    /// Connects to `url` ("postgresql://user@host:port/db?sslmode=…") with
    /// `password`, or when it is empty one from libpq's usual places
    /// (PGPASSFILE, ~/.pgpass). Error(unavailable) naming the host, port and
    /// database, and libpq's reason, when it cannot.
    explicit Connection(const std::string& url, const std::string& password = {});
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /// Runs `sql` with $1, $2, … bound to `params`. Throws as the header
    /// says, a StatementError when the server refused the statement.
    Result exec(const std::string& sql, const std::vector<Param>& params = {});
    /// True once the connection was lost: nothing more can be sent on it.
    [[nodiscard]] bool broken() const noexcept;
    /// Whether the server is still there, without a round trip: reads what
    /// it sent meanwhile, so a server that restarted or ended the session is
    /// noticed before a statement is sent on an idle connection.
    [[nodiscard]] bool alive() noexcept;
    /// What the server sent to this connection's LISTENs, waiting up to
    /// `timeout` for the first. Error(unavailable) once the connection is lost.
    [[nodiscard]] std::vector<Notification> notifications(std::chrono::milliseconds timeout);
    /// The server process serving this connection (for pg_terminate_backend).
    [[nodiscard]] int backend_pid() const noexcept;

private:
    /// The name `sql` is prepared under on this connection, prepared now if
    /// it is not yet; null once the connection holds kMaxPrepared (text
    /// built per call must not grow the server's memory without end).
    const std::string* prepared(const std::string& sql);
    /// `raw` when the statement succeeded; otherwise throws as the header says.
    Result checked(pg_result* raw);

    static constexpr std::size_t kMaxPrepared = 256;
    pg_conn* conn_ = nullptr;
    std::unordered_map<std::string, std::string> statements_;  // SQL → its prepared statement's name
    std::uint64_t prepares_ = 0;
    std::string where_;  // host:port/database, for messages and the notices' log lines
};

}  // namespace abci::store::postgresql
