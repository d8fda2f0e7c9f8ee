#include "core/store/postgresql/connection.hpp"

#include <libpq-fe.h>

#include <poll.h>

#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/store/unavailable.hpp"
#include "core/util/log.hpp"

namespace abci::store::postgresql {
namespace {

// libpq's messages end with a newline (and may span lines): one line for ours.
std::string one_line(const char* message) {
    std::string text = message ? message : "";
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    for (auto& c : text)
        if (c == '\n') c = ' ';
    return text;
}

ErrorKind kind_of(std::string_view sqlstate) {
    if (sqlstate == "23505") return ErrorKind::conflict;   // unique_violation
    if (sqlstate == "23503") return ErrorKind::not_found;  // foreign_key_violation
    // Class 08: connection exception; 57P01–57P03: the server shutting down
    // or not accepting connections; 57014: the statement was cancelled;
    // 40001 and 40P01: a serialization failure or deadlock (worth a retry);
    // 25006: a read-only transaction (a standby, or a primary demoted during
    // a failover); class 53: out of disk, memory or connections. All pass:
    // a write refused for them is the database's state, not the row's.
    if (sqlstate.starts_with("08") || sqlstate.starts_with("57P") || sqlstate == "57014" || sqlstate == "40001" ||
        sqlstate == "40P01" || sqlstate == "25006" || sqlstate.starts_with("53"))
        return ErrorKind::unavailable;
    // Class 22: a data exception (a value out of range, not in the encoding):
    // the value's fault, as the bind check's Error(invalid_input).
    if (sqlstate.starts_with("22")) return ErrorKind::invalid_input;
    return ErrorKind::internal;
}

// The server's warnings (a shutdown under way, a deprecated setting) go to
// the log with the rest, not to stderr as libpq's default does.
void log_notice(void* where, const char* message) {
    util::log(util::LogLevel::warning, "PostgreSQL: " + one_line(message),
              {{"server", *static_cast<const std::string*>(where)}});
}

// host:port/database as libpq resolved them, never the URL itself: it may hold a password.
std::string where(const pg_conn* conn) {
    const char* host = PQhost(conn);
    const char* port = PQport(conn);
    const char* db = PQdb(conn);
    return fmt::format("{}:{}/{}", host ? host : "?", port ? port : "?", db ? db : "?");
}

}  // namespace

Result::Result(pg_result* result) : result_(result, PQclear) {}

int Result::rows() const noexcept { return PQntuples(result_.get()); }

int Result::column_of(const char* column) const {
    const int index = PQfnumber(result_.get(), column);
    if (index < 0) throw Error(ErrorKind::internal, fmt::format("the statement returns no column {}", column));
    return index;
}

bool Result::is_null(int row, const char* column) const { return PQgetisnull(result_.get(), row, column_of(column)) != 0; }

std::string Result::text(int row, const char* column) const {
    const int c = column_of(column);
    return {PQgetvalue(result_.get(), row, c), static_cast<std::size_t>(PQgetlength(result_.get(), row, c))};
}

std::int64_t Result::integer(int row, const char* column) const {
    const auto value = text(row, column);
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (is_null(row, column) || ec != std::errc{} || end != value.data() + value.size())
        throw Error(ErrorKind::internal, fmt::format("column {} holds no integer: '{}'", column, value));
    return n;
}

std::uint64_t Result::affected() const {
    const std::string_view count = PQcmdTuples(result_.get());
    std::uint64_t n = 0;
    (void)std::from_chars(count.data(), count.data() + count.size(), n);
    return n;
}

namespace {

pg_conn* connect(const std::string& url, const std::string& password) {
    // expand_dbname: "dbname" holds the whole URL; the password travels
    // beside it, never in it. An empty one is left out, for libpq's own sources.
    const char* keys[] = {"dbname", "fallback_application_name", password.empty() ? nullptr : "password", nullptr};
    const char* values[] = {url.c_str(), "abcictl", password.c_str(), nullptr};
    return PQconnectdbParams(keys, values, 1);
}

}  // namespace

Connection::Connection(const std::string& url, const std::string& password) : conn_(connect(url, password)) {
    if (!conn_) throw DatabaseUnavailable("cannot connect to PostgreSQL: out of memory");
    where_ = where(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) {
        const auto message = fmt::format("cannot connect to PostgreSQL at {}: {}", where_, one_line(PQerrorMessage(conn_)));
        PQfinish(conn_);
        conn_ = nullptr;
        throw DatabaseUnavailable(message);
    }
    PQsetNoticeProcessor(conn_, log_notice, &where_);
    // Notices are the server thinking aloud ("already exists, skipping");
    // warnings and worse still reach the log.
    try {
        (void)exec("SET client_min_messages TO warning");
    } catch (const Error&) {
        PQfinish(conn_);  // no destructor runs for a constructor that throws
        conn_ = nullptr;
        throw;
    }
}

Connection::~Connection() {
    if (conn_) PQfinish(conn_);
}

bool Connection::broken() const noexcept { return PQstatus(conn_) != CONNECTION_OK; }

bool Connection::alive() noexcept {
    // libpq's socket is non-blocking: this reads only what has arrived.
    return !broken() && PQconsumeInput(conn_) == 1 && !broken();
}

int Connection::backend_pid() const noexcept { return PQbackendPID(conn_); }

std::vector<Notification> Connection::notifications(std::chrono::milliseconds timeout) {
    const auto lost = [&] {
        return DatabaseUnavailable(fmt::format("the connection to PostgreSQL at {} was lost", where_));
    };
    const auto take = [&] {
        std::vector<Notification> arrived;
        while (PGnotify* n = PQnotifies(conn_)) {
            arrived.push_back({n->relname, n->extra});
            PQfreemem(n);
        }
        return arrived;
    };
    if (!alive()) throw lost();
    if (auto arrived = take(); !arrived.empty()) return arrived;
    pollfd socket{.fd = PQsocket(conn_), .events = POLLIN, .revents = 0};
    if (::poll(&socket, 1, static_cast<int>(timeout.count())) > 0 && !alive()) throw lost();
    return take();
}

Result Connection::exec(const std::string& sql, const std::vector<Param>& params) {
    if (broken())
        throw DatabaseUnavailable(fmt::format("the connection to PostgreSQL at {} was lost", where_));
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    const auto count = static_cast<int>(values.size());
    const std::string* name = prepared(sql);
    if (!name) return checked(PQexecParams(conn_, sql.c_str(), count, nullptr, values.data(), nullptr, nullptr, 0));
    try {
        return checked(PQexecPrepared(conn_, name->c_str(), count, values.data(), nullptr, nullptr, 0));
    } catch (const StatementError& e) {
        // "cached plan must not change result type": a migration changed a
        // table under it. Prepared again, under a new name, on next use.
        if (e.sqlstate() == "0A000") statements_.erase(sql);
        throw;
    }
}

const std::string* Connection::prepared(const std::string& sql) {
    if (const auto it = statements_.find(sql); it != statements_.end()) return &it->second;
    if (statements_.size() >= kMaxPrepared) return nullptr;
    std::string name = "abci_" + std::to_string(++prepares_);
    (void)checked(PQprepare(conn_, name.c_str(), sql.c_str(), 0, nullptr));
    return &statements_.emplace(sql, std::move(name)).first->second;
}

Result Connection::checked(pg_result* raw_result) {
    Result result(raw_result);
    const auto* raw = result.result_.get();
    const auto status = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    const char* sqlstate = raw ? PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr;
    const char* message = raw ? PQresultErrorMessage(raw) : PQerrorMessage(conn_);
    // No SQLSTATE: libpq's own failure, the connection lost on the way.
    const auto kind = sqlstate ? kind_of(sqlstate) : ErrorKind::unavailable;
    if (kind == ErrorKind::unavailable && broken())
        throw DatabaseUnavailable(fmt::format("the connection to PostgreSQL at {} was lost: {}", where_, one_line(message)));
    throw StatementError(kind, one_line(message), sqlstate ? sqlstate : "");
}

}  // namespace abci::store::postgresql
