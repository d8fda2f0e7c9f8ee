#pragma once
// Moving a server from SQLite to replicas on PostgreSQL (DESIGN.md §9): its
// data directory's database copied into an empty PostgreSQL database, whole
// or not at all (`abcictl admin store copy`).

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/store/store.hpp"

namespace abci::store {

/// A table copied, and its rows: as many in both databases.
struct CopiedTable {
    std::string name;
    std::int64_t rows = 0;
    /// Values that were not text (a NUL, invalid UTF-8: what a release before
    /// text was checked stored), copied escaped (util::escape_text).
    std::int64_t escaped = 0;
};

struct CopyReport {
    std::vector<CopiedTable> tables;  // in the order they were copied (SQLite's, as its tables were created)
};

/// Copies every table of the SQLite store at `sqlite_database` (opened
/// read-only, all of it read from one snapshot) into the PostgreSQL database
/// of `target`, after applying PostgreSQL's schema migrations there.
///
/// One PostgreSQL transaction: the store's tables locked against writers,
/// checked empty, filled (the columns both databases have, by name; SQLite's
/// rowid where PostgreSQL keeps it in a `rowid` column; identity values as
/// they were, each identity then restarted past them), and committed only
/// when every table holds as many rows as in SQLite. A value that is not text
/// (util::is_text), which PostgreSQL's text cannot hold, is copied escaped
/// (util::escape_text) and counted.
///
/// Error(not_found) when `sqlite_database` does not exist (or the password
/// file cannot be read); Error(invalid_input) when its schema is older than
/// this binary's (a `serve` on it migrates it); Error(unavailable) when either
/// database cannot be opened or reached; Error(conflict) naming a table when
/// the target holds rows already; Error(internal) naming the table when SQLite
/// has a table or column PostgreSQL's schema has not, when its schema is newer
/// than this binary's, when a row cannot be copied (an escaped value clashing
/// with a unique one), or when the counts
/// differ. On any error nothing of the copy is left in the target.
///
/// `shared_secrets` (name, value) are added to the target's shared secrets in
/// the same transaction: what the SQLite server kept in files (its JWT
/// signing secret) and replicas keep in the database.
[[nodiscard]] CopyReport copy_to_postgresql(const std::filesystem::path& sqlite_database,
                                            const PostgresqlSettings& target,
                                            const std::vector<std::pair<std::string, std::string>>& shared_secrets = {});

}  // namespace abci::store
