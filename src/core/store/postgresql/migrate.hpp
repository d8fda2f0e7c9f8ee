#pragma once
// The PostgreSQL schema's numbered migrations, applied at start by every
// replica: in one transaction holding a transaction-scoped advisory lock, so
// that replicas starting together take turns (the first applies, the others
// find nothing left) and a failed migration leaves the schema as it was.

#include <span>
#include <vector>

#include "core/store/postgresql/connection.hpp"

namespace abci::store::postgresql {

struct Migration {
    int version = 0;                       // 1, 2, …: in order, none skipped
    std::vector<const char*> statements;  // one SQL command each (libpq sends one per call)
};

/// Applies the migrations of `migrations` (in version order) above the
/// database's version and returns the version after. Error(internal) when
/// the database's version is newer than the newest given (a downgrade: this
/// binary would misread it), with nothing changed; a failing migration
/// throws its error, nothing of the run applied.
int migrate(Connection& db, std::span<const Migration> migrations);

}  // namespace abci::store::postgresql
