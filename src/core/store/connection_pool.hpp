#pragma once
// A bounded set of SQLite connections to one database file, shared by the
// server's threads: a connection is used by one thread at a time, and SQLite
// itself serialises the writers across connections (WAL). A writer that finds
// the database locked waits for the pool's next commit rather than sleeping
// as SQLite's own busy handler does (up to 100 ms a try), which under a burst
// of concurrent writes left the lock idle most of the time.

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

struct sqlite3;

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace abci::store::sqlite {

/// How long a connection waits for another writer before SQLITE_BUSY.
inline constexpr int kBusyTimeoutMs = 5000;

/// A pooled connection: a database handle that keeps its prepared statements,
/// since preparing (parsing and planning SQL) cost more than running most of
/// the store's statements.
class Connection : public SQLite::Database {
public:
    using SQLite::Database::Database;

    /// A statement of this connection, for one use: reset and unbound when the
    /// lease ends, so the next prepare() of the same SQL reuses it.
    class Statement {
    public:
        Statement(SQLite::Statement& statement, std::unique_ptr<SQLite::Statement> owned, bool* in_use) noexcept
            : statement_(&statement), owned_(std::move(owned)), in_use_(in_use) {}
        Statement(Statement&& other) noexcept
            : statement_(other.statement_), owned_(std::move(other.owned_)), in_use_(std::exchange(other.in_use_, nullptr)) {}
        Statement& operator=(Statement&&) = delete;
        Statement(const Statement&) = delete;
        Statement& operator=(const Statement&) = delete;
        ~Statement();

        [[nodiscard]] SQLite::Statement& operator*() const noexcept { return *statement_; }
        [[nodiscard]] SQLite::Statement* operator->() const noexcept { return statement_; }

    private:
        SQLite::Statement* statement_;
        std::unique_ptr<SQLite::Statement> owned_;  // set when the cached one was busy (a nested use)
        bool* in_use_;                              // the cache entry's flag; null for an owned statement
    };

    /// `sql` prepared once per connection and reused. Throws SQLite::Exception for bad SQL.
    [[nodiscard]] Statement prepare(const std::string& sql);

private:
    struct Cached {
        std::unique_ptr<SQLite::Statement> statement;
        bool in_use = false;
    };
    // Destroyed (finalized) before the base class closes the handle.
    std::unordered_map<std::string, Cached> statements_;
};

class ConnectionPool {
public:
    /// Opens nothing yet: connections are opened on demand, at most `capacity`.
    ConnectionPool(std::string path, std::size_t capacity);
    ConnectionPool(const ConnectionPool&) = delete;
    ConnectionPool& operator=(const ConnectionPool&) = delete;

    /// One connection, returned to the pool when the lease ends.
    class Lease {
    public:
        Lease(ConnectionPool& pool, std::unique_ptr<Connection> db) noexcept
            : pool_(&pool), db_(std::move(db)) {}
        Lease(Lease&&) noexcept = default;
        Lease& operator=(Lease&&) = delete;
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        ~Lease();

        [[nodiscard]] Connection& operator*() const noexcept { return *db_; }

    private:
        ConnectionPool* pool_;
        std::unique_ptr<Connection> db_;
    };

    /// An idle connection, or a new one (read-write, journal_mode=WAL,
    /// foreign_keys=ON, synchronous=NORMAL, waiting up to kBusyTimeoutMs for
    /// a lock, automatic checkpoints at 1000 WAL pages as SQLite's default) while
    /// fewer than `capacity` are open; otherwise waits for one to come back.
    /// Throws SQLite::Exception when a new connection cannot be opened or
    /// configured (a file that is not a database fails here too, on the first
    /// PRAGMA); the caller maps it to an abci::Error.
    [[nodiscard]] Lease acquire();

private:
    [[nodiscard]] std::unique_ptr<Connection> open_connection() const;
    void release(std::unique_ptr<Connection> db) noexcept;
    // SQLite callbacks (busy handler, WAL hook); `pool` is this pool.
    static int on_busy(void* pool, int attempts) noexcept;
    static int on_commit(void* pool, sqlite3* db, const char* schema, int wal_pages) noexcept;

    const std::string path_;
    const std::size_t capacity_;
    std::mutex mutex_;
    std::condition_variable returned_;
    std::vector<std::unique_ptr<Connection>> idle_;
    std::size_t open_ = 0;  // idle plus leased

    std::mutex commit_mutex_;
    std::condition_variable committed_;
    std::uint64_t commits_ = 0;  // guarded by commit_mutex_
};

}  // namespace abci::store::sqlite
