#pragma once
// The SQLite schema as a numbered list of scripts. Script i (0-based) takes a
// database from PRAGMA user_version i to i + 1. Released scripts are never
// edited: a schema change is a new script appended to the list.

#include <SQLiteCpp/Database.h>

#include <span>

namespace abci::store::sqlite {

/// The scripts, in the order they apply; size() is the schema version this
/// binary writes.
[[nodiscard]] std::span<const char* const> migrations() noexcept;

/// Applies the scripts `db` has not seen, each in its own BEGIN IMMEDIATE
/// transaction together with its user_version bump, so that a crash or a
/// concurrent opener leaves the database at some whole version. Throws
/// Error(internal) when the database is newer than this binary (a
/// downgrade), SQLite::Exception when SQLite fails.
void migrate(SQLite::Database& db);

}  // namespace abci::store::sqlite
