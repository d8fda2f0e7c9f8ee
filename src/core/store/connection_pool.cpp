#include "core/store/connection_pool.hpp"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <chrono>

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

Connection::Statement::~Statement() {
    if (!in_use_) return;  // moved from, or owned (finalized with owned_)
    try {
        statement_->reset();
    } catch (const SQLite::Exception&) {
        // reset() reports the last step's error again, already handled by its caller.
    }
    statement_->clearBindings();
    *in_use_ = false;
}

Connection::Statement Connection::prepare(const std::string& sql) {
    auto& cached = statements_[sql];
    if (cached.in_use) {
        auto owned = std::make_unique<SQLite::Statement>(*this, sql);
        auto& statement = *owned;
        return {statement, std::move(owned), nullptr};
    }
    if (!cached.statement) cached.statement = std::make_unique<SQLite::Statement>(*this, sql);
    cached.in_use = true;
    return {*cached.statement, nullptr, &cached.in_use};
}

std::unique_ptr<Connection> ConnectionPool::open_connection() const {
    auto db = std::make_unique<Connection>(path_, SQLite::OPEN_READWRITE);
    // Both survive for the connection's life; the pool outlives its connections.
    sqlite3_busy_handler(db->getHandle(), &ConnectionPool::on_busy, const_cast<ConnectionPool*>(this));
    sqlite3_wal_hook(db->getHandle(), &ConnectionPool::on_commit, const_cast<ConnectionPool*>(this));
    // journal_mode answers with the mode in force: anything but "wal" means the
    // file could not be switched (e.g. a read-only directory), and concurrent
    // readers would then block the writer.
    const std::string mode = db->execAndGet("PRAGMA journal_mode = WAL").getString();
    if (mode != "wal") {
        throw SQLite::Exception("cannot switch the database to WAL mode (it is in " + mode + " mode)", SQLITE_CANTOPEN);
    }
    // Pages are read from a shared mapping instead of copied in by pread:
    // every commit (audit rows included) drops all other connections' page
    // caches, and a read route under load would re-read its pages each time.
    db->exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA mmap_size = 268435456");
    return db;
}

int ConnectionPool::on_busy(void* pool, int attempts) noexcept {
    using Clock = std::chrono::steady_clock;
    thread_local Clock::time_point waiting_since;
    const auto now = Clock::now();
    if (attempts == 0) waiting_since = now;
    if (now - waiting_since >= std::chrono::milliseconds(kBusyTimeoutMs)) return 0;  // SQLITE_BUSY
    auto& self = *static_cast<ConnectionPool*>(pool);
    std::unique_lock lock(self.commit_mutex_);
    const std::uint64_t seen = self.commits_;
    // A lock also ends without a commit (a rollback, a read, another process):
    // the short bound retries those.
    self.committed_.wait_for(lock, std::chrono::milliseconds(2), [&] { return self.commits_ != seen; });
    return 1;
}

int ConnectionPool::on_commit(void* pool, sqlite3* db, const char* schema, int wal_pages) noexcept {
    // Installing a WAL hook replaces SQLite's automatic checkpoint: do what it did.
    if (wal_pages >= 1000) sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    auto& self = *static_cast<ConnectionPool*>(pool);
    {
        std::lock_guard lock(self.commit_mutex_);
        ++self.commits_;
    }
    self.committed_.notify_all();
    return SQLITE_OK;
}

void ConnectionPool::release(std::unique_ptr<Connection> db) noexcept {
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
