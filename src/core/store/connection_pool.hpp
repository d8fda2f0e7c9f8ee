#pragma once
// A bounded set of SQLite connections to one database file, shared by the
// server's threads: a connection is used by one thread at a time, and SQLite
// itself serialises the writers across connections (WAL, busy timeout).

#include <SQLiteCpp/Database.h>

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace abci::store::sqlite {

/// How long a connection waits for another writer before SQLITE_BUSY.
inline constexpr int kBusyTimeoutMs = 5000;

class ConnectionPool {
public:
    /// Opens nothing yet: connections are opened on demand, at most `capacity`.
    ConnectionPool(std::string path, std::size_t capacity);
    ConnectionPool(const ConnectionPool&) = delete;
    ConnectionPool& operator=(const ConnectionPool&) = delete;

    /// One connection, returned to the pool when the lease ends.
    class Lease {
    public:
        Lease(ConnectionPool& pool, std::unique_ptr<SQLite::Database> db) noexcept
            : pool_(&pool), db_(std::move(db)) {}
        Lease(Lease&&) noexcept = default;
        Lease& operator=(Lease&&) = delete;
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        ~Lease();

        [[nodiscard]] SQLite::Database& operator*() const noexcept { return *db_; }

    private:
        ConnectionPool* pool_;
        std::unique_ptr<SQLite::Database> db_;
    };

    /// An idle connection, or a new one (read-write, journal_mode=WAL,
    /// foreign_keys=ON, synchronous=NORMAL, busy timeout kBusyTimeoutMs) while
    /// fewer than `capacity` are open; otherwise waits for one to come back.
    /// Throws SQLite::Exception when a new connection cannot be opened or
    /// configured (a file that is not a database fails here too, on the first
    /// PRAGMA); the caller maps it to an abci::Error.
    [[nodiscard]] Lease acquire();

private:
    [[nodiscard]] std::unique_ptr<SQLite::Database> open_connection() const;
    void release(std::unique_ptr<SQLite::Database> db) noexcept;

    const std::string path_;
    const std::size_t capacity_;
    std::mutex mutex_;
    std::condition_variable returned_;
    std::vector<std::unique_ptr<SQLite::Database>> idle_;
    std::size_t open_ = 0;  // idle plus leased
};

}  // namespace abci::store::sqlite
