#include "core/store/connection_pool.hpp"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

namespace abci::store::sqlite {

ConnectionPool::ConnectionPool(std::string path, std::size_t capacity)
    : path_(std::move(path)), capacity_(capacity) {
    idle_.reserve(capacity_);  // so that release() cannot fail
}

ConnectionPool::Lease::~Lease() {
    if (db_) pool_->release(std::move(db_));
}

ConnectionPool::Lease ConnectionPool::acquire() {
    std::unique_lock lock(mutex_);
    returned_.wait(lock, [&] { return !idle_.empty() || open_ < capacity_; });
    if (!idle_.empty()) {
        auto db = std::move(idle_.back());
        idle_.pop_back();
        return Lease(*this, std::move(db));
    }
    ++open_;
    lock.unlock();
    try {
        return Lease(*this, open_connection());
    } catch (...) {
        lock.lock();
        --open_;
        returned_.notify_one();
        throw;
    }
}

std::unique_ptr<SQLite::Database> ConnectionPool::open_connection() const {
    auto db = std::make_unique<SQLite::Database>(path_, SQLite::OPEN_READWRITE, kBusyTimeoutMs);
    // journal_mode answers with the mode in force: anything but "wal" means the
    // file could not be switched (e.g. a read-only directory), and concurrent
    // readers would then block the writer.
    const std::string mode = db->execAndGet("PRAGMA journal_mode = WAL").getString();
    if (mode != "wal") {
        throw SQLite::Exception("cannot switch the database to WAL mode (it is in " + mode + " mode)", SQLITE_CANTOPEN);
    }
    db->exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL");
    return db;
}

void ConnectionPool::release(std::unique_ptr<SQLite::Database> db) noexcept {
    // A connection still inside a transaction (a failed rollback) would hold
    // the write lock for whoever leases it next: close it instead.
    const bool clean = sqlite3_get_autocommit(db->getHandle()) != 0;
    if (!clean) db.reset();
    std::lock_guard lock(mutex_);
    if (clean) {
        idle_.push_back(std::move(db));
    } else {
        --open_;
    }
    returned_.notify_one();
}

}  // namespace abci::store::sqlite
