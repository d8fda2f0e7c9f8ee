#pragma once
// A SQLite schema kept as numbered scripts: script i (0-based) takes a
// database from PRAGMA user_version i to i + 1. Released scripts are never
// edited: a change is a script appended. The server's store
// (core/store/migrations.hpp) and the command line's state.db
// (cli/state_db.cpp) both keep their schema so.

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <functional>
#include <span>

#include "core/error.hpp"

namespace abci::store::sqlite {

/// The error for a database at schema version `found`, past the `known`
/// scripts of this binary (a downgrade): it names both.
using NewerSchema = std::function<Error(std::int64_t found, std::int64_t known)>;

/// Applies the scripts `db` has not seen, each in its own BEGIN IMMEDIATE
/// transaction together with its user_version bump, so that a crash or a
/// concurrent opener leaves the database at some whole version. Throws
/// newer(found, known) when the database is newer than the scripts,
/// SQLite::Exception when SQLite fails.
void apply_migrations(SQLite::Database& db, std::span<const char* const> scripts, const NewerSchema& newer);

}  // namespace abci::store::sqlite
