// The PostgreSQL backend's shared parts (pg.hpp) and its store.

#include <fmt/format.h>

#include <chrono>
#include <random>
#include <thread>

#include "core/os/private_file.hpp"
#include "core/store/postgresql/migrate.hpp"
#include "core/store/postgresql/pg.hpp"
#include "core/store/postgresql/schema.hpp"

namespace abci::store::postgresql {
namespace {

// As SQLite's pool: enough for the server's worker threads to rarely wait on
// each other; each connection is a server process on PostgreSQL's side, and
// several replicas share its max_connections (100 by default).
constexpr std::size_t kPoolCapacity = 16;

std::string password_of(const PostgresqlSettings& settings) {
    return settings.password_file.empty() ? std::string()
                                          : os::read_password_file(settings.password_file, "the database's password file");
}

}  // namespace

std::string dollar_parameters(std::string_view sql) {
    std::string out;
    out.reserve(sql.size() + 8);
    int next = 0;
    char quote = 0;  // the quote of the literal or name we are in
    for (std::size_t i = 0; i < sql.size(); ++i) {
        const char c = sql[i];
        if (quote) {
            if (c == quote) quote = 0;  // a doubled quote closes and reopens: same result
            out += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            out += c;
        } else if (c == '?') {
            out += '$';
            if (i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') continue;  // ?N: its digits follow
            out += std::to_string(++next);
        } else {
            out += c;
        }
    }
    return out;
}

Error reworded(const StatementError& e, const Meaning& meaning) {
    switch (e.kind()) {
    case ErrorKind::conflict:
        return Error(ErrorKind::conflict, meaning.conflict);
    case ErrorKind::not_found:
        return Error(ErrorKind::not_found, meaning.not_found);
    default:
        return e;
    }
}

Db::Db(const PostgresqlSettings& settings) : url_(settings.url), password_(password_of(settings)) {
    Lease lease = acquire();
    (void)migrate(*lease.connection, schema_migrations());
}

Db::Lease Db::acquire() {
    std::unique_lock lock(mutex_);
    for (;;) {
        while (!idle_.empty()) {
            auto connection = std::move(idle_.back());
            idle_.pop_back();
            if (connection->alive()) return Lease(*this, std::move(connection));
            --open_;  // the server went away meanwhile: a new one below
        }
        if (open_ < kPoolCapacity) break;
        returned_.wait(lock);
    }
    ++open_;
    lock.unlock();
    try {
        return Lease(*this, connect());
    } catch (...) {
        lock.lock();
        --open_;
        returned_.notify_one();
        throw;
    }
}

void Db::release(std::unique_ptr<Connection> connection) noexcept {
    std::lock_guard lock(mutex_);
    if (connection && !connection->broken())
        idle_.push_back(std::move(connection));
    else
        --open_;
    returned_.notify_one();
}

std::unique_ptr<Connection> Db::connect() const { return std::make_unique<Connection>(url_, password_); }

void Db::roll_back(Connection& c) noexcept {
    try {
        if (!c.broken()) (void)c.exec("ROLLBACK");
    } catch (const Error&) {
        // The connection died meanwhile: the server rolls the transaction
        // back as it ends the session, and the pool drops the connection.
    }
}

void Db::pause_before_retry(int attempt) {
    // Spread the retries of transactions that collided, so they do not collide again.
    thread_local std::minstd_rand random{std::random_device{}()};
    const int ceiling_us = 200 * std::min(attempt, 25);
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution(0, ceiling_us)(random)));
}

}  // namespace abci::store::postgresql

namespace abci::store {

std::unique_ptr<Store> open_postgresql_store(const PostgresqlSettings& settings) {
    return std::make_unique<sql::SqlStore<postgresql::Db>>(settings);
}

}  // namespace abci::store
