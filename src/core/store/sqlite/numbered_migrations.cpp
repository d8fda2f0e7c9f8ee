#include "core/store/sqlite/numbered_migrations.hpp"

#include <SQLiteCpp/Transaction.h>

#include <fmt/format.h>

namespace abci::store::sqlite {

void apply_migrations(SQLite::Database& db, std::span<const char* const> scripts, const NewerSchema& newer) {
    const auto known = static_cast<std::int64_t>(scripts.size());
    for (;;) {
        // IMMEDIATE: two processes opening the same new file must not both
        // read version i and both run script i.
        SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
        const std::int64_t version = db.execAndGet("PRAGMA user_version").getInt64();
        if (version > known) throw newer(version, known);
        if (version == known) return;
        db.exec(scripts[static_cast<std::size_t>(version)]);
        // PRAGMA takes no bound parameters; the value is our own integer.
        db.exec(fmt::format("PRAGMA user_version = {}", version + 1));
        tx.commit();
    }
}

}  // namespace abci::store::sqlite
