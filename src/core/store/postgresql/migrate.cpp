#include "core/store/postgresql/migrate.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace abci::store::postgresql {
namespace {

// The advisory lock key of schema changes: "abci" in ASCII, unlikely to meet
// another program's key on a shared server.
constexpr const char* kMigrationLock = "1633837929";

}  // namespace

int migrate(Connection& db, std::span<const Migration> migrations) {
    (void)db.exec("BEGIN");
    try {
        (void)db.exec("SELECT pg_advisory_xact_lock($1)", {kMigrationLock});
        (void)db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
        const auto found = db.exec("SELECT coalesce(max(version), 0) AS version FROM schema_version");
        int version = static_cast<int>(found.integer(0, "version"));
        const int newest = migrations.empty() ? 0 : migrations.back().version;
        if (version > newest)
            throw Error(ErrorKind::internal,
                        fmt::format("the database's schema is version {}, newer than this abcictl knows ({}): "
                                    "run the abcictl that wrote it, or a newer one",
                                    version, newest));
        for (const auto& m : migrations) {
            if (m.version <= version) continue;
            if (m.version != version + 1)
                throw Error(ErrorKind::internal, fmt::format("schema migration {} follows {}", m.version, version));
            for (const char* statement : m.statements) (void)db.exec(statement);
            version = m.version;
        }
        (void)db.exec("DELETE FROM schema_version");
        (void)db.exec("INSERT INTO schema_version (version) VALUES ($1)", {std::to_string(version)});
        (void)db.exec("COMMIT");
        return version;
    } catch (const Error&) {
        try {
            if (!db.broken()) (void)db.exec("ROLLBACK");
        } catch (const Error&) {
            // The connection died meanwhile: the server rolls the transaction
            // back as it ends the session; the first error is the one to tell.
        }
        throw;
    }
}

}  // namespace abci::store::postgresql
