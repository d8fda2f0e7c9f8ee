#pragma once
// The PostgreSQL store's schema, as numbered migrations for migrate(). It
// starts at SQLite's final schema (core/store/migrations.cpp), not its
// history: a PostgreSQL database is new or was copied from SQLite whole.

#include <span>

#include "core/store/postgresql/migrate.hpp"

namespace abci::store::postgresql {

/// Every migration, oldest first.
[[nodiscard]] std::span<const Migration> schema_migrations();

}  // namespace abci::store::postgresql
