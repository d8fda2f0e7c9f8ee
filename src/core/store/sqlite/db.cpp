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

}  // namespace abci::store::sqlite

namespace abci::store {

std::unique_ptr<Store> open_sqlite_store(const std::string& path) {
    os::create_private_file(path);
    return std::make_unique<sql::SqlStore<sqlite::Db>>(path);
}

}  // namespace abci::store
