// The SQLite backend's shared parts (sqlite.hpp) and its store.

#include <fmt/format.h>
#include <sqlite3.h>

#include "core/os/private_file.hpp"
#include "core/store/migrations.hpp"
#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

// Enough for the server's worker threads to rarely wait on each other, few
// enough that file descriptors and page caches stay small.
constexpr std::size_t kPoolCapacity = 16;

}  // namespace

Error translate(const SQLite::Exception& e, const Meaning& meaning) {
    switch (e.getErrorCode() & 0xff) {
    case SQLITE_CONSTRAINT:
        switch (e.getExtendedErrorCode()) {
        case SQLITE_CONSTRAINT_UNIQUE:
        case SQLITE_CONSTRAINT_PRIMARYKEY:
            return Error(ErrorKind::conflict, meaning.conflict);
        case SQLITE_CONSTRAINT_FOREIGNKEY:
            return Error(ErrorKind::not_found, meaning.not_found);
        default:
            return Error(ErrorKind::internal, fmt::format("database constraint failed: {}", e.what()));
        }
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return Error(ErrorKind::unavailable, fmt::format("the database is busy: {}", e.what()));
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_PROTOCOL:
        return Error(ErrorKind::unavailable, fmt::format("the database cannot be used: {}", e.what()));
    default:
        return Error(ErrorKind::internal, fmt::format("database error: {}", e.what()));
    }
}

Db::Db(const std::string& path) : pool_(path, kPoolCapacity) {
    run({}, [](Database& db) { migrate(db); });
}

namespace {
// The Db whose commit this thread is running: a transaction begun from a
// work in it would wait for that commit, which waits for the work.
thread_local const void* committing_on = nullptr;
}  // namespace

void Db::take_turn(Turn& turn) {
    if (committing_on == this) {
        turn.error = std::make_exception_ptr(Error(ErrorKind::internal, "a transaction was begun inside another"));
        return;
    }
    std::unique_lock lock(turns_mutex_);
    queued_.push_back(&turn);
    for (;;) {
        committed_.wait(lock, [&] { return turn.done || !committing_; });
        if (turn.done) return;
        committing_ = true;
        std::vector<Turn*> turns;
        turns.swap(queued_);
        lock.unlock();
        commit(turns);
        lock.lock();
        for (auto* t : turns) t->done = true;
        committing_ = false;
        committed_.notify_all();
    }
}

void Db::commit(const std::vector<Turn*>& turns) {
    committing_on = this;
    try {
        run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            for (auto* turn : turns) {
                try {
                    turn->run(turn->attempt, db);
                } catch (...) {
                    turn->error = std::current_exception();
                }
            }
            tx.commit();
        });
    } catch (...) {
        // Nothing of the transaction is written, what any work did included.
        const auto error = std::current_exception();
        for (auto* turn : turns) turn->error = error;
    }
    committing_on = nullptr;
}

}  // namespace abci::store::sqlite

namespace abci::store {

std::unique_ptr<Store> open_sqlite_store(const std::string& path) {
    os::create_private_file(path);
    return std::make_unique<sql::SqlStore<sqlite::Db>>(path);
}

}  // namespace abci::store
