// Copying a SQLite store into PostgreSQL (copy.hpp). Generic over the
// tables: whatever SQLite's final schema holds is matched by name against
// PostgreSQL's, so a new table or column needs nothing here.

#include "core/store/copy.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/os/private_file.hpp"
#include "core/store/migrations.hpp"
#include "core/store/postgresql/connection.hpp"
#include "core/store/postgresql/migrate.hpp"
#include "core/store/postgresql/schema.hpp"
#include "core/store/sql/sql.hpp"
#include "core/store/sqlite/sqlite.hpp"
#include "core/util/text.hpp"

namespace abci::store {
namespace {

// Values per INSERT: thousands of rows a round trip, well under PostgreSQL's
// 65535 parameters a statement.
constexpr std::size_t kValuesPerInsert = 10000;

/// A table's or column's name in SQL text, where no parameter can stand. The
/// names come from the databases' own catalogs; quoted all the same.
std::string quoted_name(const std::string& name) {
    std::string quoted = "\"";
    for (const char c : name) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

/// A column of PostgreSQL's table, as information_schema describes it.
struct TargetColumn {
    std::string name;
    bool boolean = false;   // SQLite keeps such flags as the integers 0 and 1
    bool identity = false;  // GENERATED ALWAYS AS IDENTITY: written only with OVERRIDING SYSTEM VALUE
};

/// How one table is copied: the columns read from SQLite and written to
/// PostgreSQL, in this order.
struct TablePlan {
    std::string table;
    std::vector<TargetColumn> columns;
};

/// SQLite's tables in the order they were created, which is an order that
/// inserts a referenced row before the rows referencing it; SQLite's own
/// (sqlite_sequence) left out.
std::vector<std::string> source_tables(SQLite::Database& sqlite) {
    SQLite::Statement tables(sqlite, R"(SELECT name FROM sqlite_master WHERE type = 'table' )"
                                     R"(AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid)");
    std::vector<std::string> names;
    while (tables.executeStep()) names.push_back(tables.getColumn("name").getString());
    return names;
}

std::vector<std::string> source_columns(SQLite::Database& sqlite, const std::string& table) {
    SQLite::Statement columns(sqlite, "SELECT name FROM pragma_table_info(?) ORDER BY cid");
    columns.bind(1, table);
    std::vector<std::string> names;
    while (columns.executeStep()) names.push_back(columns.getColumn("name").getString());
    return names;
}

/// The store's tables in PostgreSQL: every table of its schema but migrate()'s own record of the version.
std::vector<std::string> target_tables(postgresql::Connection& pg) {
    const auto rows = pg.exec(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
        "AND table_type = 'BASE TABLE' AND table_name <> 'schema_version' ORDER BY table_name");
    std::vector<std::string> names;
    for (int i = 0; i < rows.rows(); ++i) names.push_back(rows.text(i, "table_name"));
    return names;
}

std::vector<TargetColumn> target_columns(postgresql::Connection& pg, const std::string& table) {
    const auto rows = pg.exec(
        "SELECT column_name, data_type, is_identity FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
        {table});
    std::vector<TargetColumn> columns;
    for (int i = 0; i < rows.rows(); ++i)
        columns.push_back({.name = rows.text(i, "column_name"),
                           .boolean = rows.text(i, "data_type") == "boolean",
                           .identity = rows.text(i, "is_identity") == "YES"});
    return columns;
}

/// Error(internal) unless PostgreSQL's schema has the table and each of its
/// columns: what it lacks would be lost.
TablePlan plan_table(SQLite::Database& sqlite, postgresql::Connection& pg, const std::string& table) {
    const auto target = target_columns(pg, table);
    if (target.empty())
        throw Error(ErrorKind::internal, fmt::format("table {} of the SQLite database is not in PostgreSQL's "
                                                     "schema: nothing copied",
                                                     table));
    const auto source = source_columns(sqlite, table);
    TablePlan plan{.table = table, .columns = {}};
    for (const auto& column : target) {
        // PostgreSQL's `rowid` keeps SQLite's implicit one: the insertion
        // order the repositories list by (core/store/sql/sql.hpp).
        if (column.name == "rowid" || std::ranges::find(source, column.name) != source.end())
            plan.columns.push_back(column);
    }
    for (const auto& name : source) {
        if (std::ranges::none_of(plan.columns, [&](const TargetColumn& c) { return c.name == name; }))
            throw Error(ErrorKind::internal, fmt::format("column {}.{} of the SQLite database is not in "
                                                         "PostgreSQL's schema: nothing copied",
                                                         table, name));
    }
    return plan;
}

/// Error(internal) unless the SQLite database's schema is the one this
/// binary's PostgreSQL schema mirrors: its newest.
void require_newest_schema(SQLite::Database& sqlite) {
    const std::int64_t version = sqlite.execAndGet("PRAGMA user_version").getInt64();
    const auto newest = static_cast<std::int64_t>(sqlite::migrations().size());
    if (version < newest)
        throw Error(ErrorKind::invalid_input,
                    fmt::format("the SQLite database's schema is version {}, older than this abcictl's ({}): start "
                                "`abcictl serve` on its data directory once to migrate it, stop it, then copy",
                                version, newest));
    if (version > newest)
        throw Error(ErrorKind::internal,
                    fmt::format("the SQLite database's schema is version {}, newer than this abcictl knows ({}): "
                                "copy it with the abcictl that wrote it, or a newer one",
                                version, newest));
}

/// Locks the store's tables in PostgreSQL against writers until the copy
/// ends (a replica started meanwhile waits for it rather than writing beside
/// it) and Error(conflict) naming a table that holds a row.
void lock_empty_target(postgresql::Connection& pg) {
    const auto tables = target_tables(pg);
    std::string names;
    for (const auto& table : tables) names += (names.empty() ? "" : ", ") + quoted_name(table);
    (void)pg.exec("LOCK TABLE " + names + " IN EXCLUSIVE MODE");
    for (const auto& table : tables) {
        if (pg.exec("SELECT 1 FROM " + quoted_name(table) + " LIMIT 1").rows() > 0)
            throw Error(ErrorKind::conflict,
                        fmt::format("the target database is not empty: table {} holds rows; copy into an empty "
                                    "database only",
                                    table));
    }
}

/// A SQLite value as PostgreSQL's text input for `column`; `escaped` counts
/// the values that were not text.
postgresql::Param target_value(const SQLite::Column& value, const TargetColumn& column, std::int64_t& escaped) {
    if (value.isNull()) return std::nullopt;
    // As the store reads a flag: any number but 0 is true.
    if (column.boolean) return std::string(value.getInt64() != 0 ? "true" : "false");
    // What a release before text was checked let in (a NUL or a 0xFF in an
    // audit row's path, a note): PostgreSQL's text holds neither, libpq would
    // cut a value at its NUL. Escaped as the store now records such text,
    // rather than the whole store refused for one row nobody can fix.
    std::string text = value.getString();
    if (util::is_text(text)) return text;
    ++escaped;
    return util::escape_text(text);
}

/// Inserts every row of the table, a batch of rows per statement. SQLite's
/// identity values (audit and entity ids, rowids) are kept as they are: ids
/// handed out stay the same, and so does the insertion order.
std::int64_t copy_rows(SQLite::Database& sqlite, postgresql::Connection& pg, const TablePlan& plan) {
    std::string names;
    for (const auto& column : plan.columns) names += (names.empty() ? "" : ", ") + quoted_name(column.name);
    const bool identity = std::ranges::any_of(plan.columns, &TargetColumn::identity);
    const std::string insert = fmt::format("INSERT INTO {} ({}){} VALUES ", quoted_name(plan.table), names,
                                           identity ? " OVERRIDING SYSTEM VALUE" : "");
    const std::size_t width = plan.columns.size();
    const std::size_t rows_per_insert = std::max<std::size_t>(1, kValuesPerInsert / width);

    SQLite::Statement rows(sqlite, "SELECT " + names + " FROM " + quoted_name(plan.table));
    std::string tuples;
    std::vector<postgresql::Param> values;
    std::int64_t escaped = 0;
    const auto send = [&] {
        try {
            (void)pg.exec(insert + tuples, values);
        } catch (const Error& e) {
            // A row SQLite holds that PostgreSQL refuses: the schemas disagree.
            throw Error(e.kind() == ErrorKind::unavailable ? ErrorKind::unavailable : ErrorKind::internal,
                        fmt::format("cannot copy table {}: {}", plan.table, e.what()));
        }
        tuples.clear();
        values.clear();
    };
    for (std::size_t row = 1; rows.executeStep(); ++row) {
        tuples += tuples.empty() ? "(" : ", (";
        for (std::size_t i = 0; i < width; ++i) {
            values.push_back(target_value(rows.getColumn(static_cast<int>(i)), plan.columns[i], escaped));
            tuples += fmt::format("{}${}", i == 0 ? "" : ", ", values.size());
        }
        tuples += ')';
        if (row % rows_per_insert == 0) send();
    }
    if (!values.empty()) send();
    return escaped;
}

/// Restarts the table's identity column past the values copied into it, so
/// that the next row a server adds gets a value of its own. ALTER TABLE
/// rather than setval(): it is undone with the transaction, setval() is not.
void restart_identity(postgresql::Connection& pg, const TablePlan& plan) {
    for (const auto& column : plan.columns) {
        if (!column.identity) continue;
        const auto next = pg.exec(fmt::format("SELECT coalesce(max({}), 0) + 1 AS next FROM {}",
                                              quoted_name(column.name), quoted_name(plan.table)))
                              .integer(0, "next");
        // A number the database itself gave: DDL takes no parameters.
        (void)pg.exec(fmt::format("ALTER TABLE {} ALTER COLUMN {} RESTART WITH {}", quoted_name(plan.table),
                                  quoted_name(column.name), next));
    }
}

/// The table's rows, as many in both databases; Error(internal) when not.
std::int64_t checked_count(SQLite::Database& sqlite, postgresql::Connection& pg, const std::string& table) {
    const std::int64_t source = sqlite.execAndGet("SELECT count(*) FROM " + quoted_name(table)).getInt64();
    const std::int64_t copied = pg.exec("SELECT count(*) AS n FROM " + quoted_name(table)).integer(0, "n");
    if (copied != source)
        throw Error(ErrorKind::internal, fmt::format("table {} holds {} rows in SQLite but would hold {} in "
                                                     "PostgreSQL: nothing copied",
                                                     table, source, copied));
    return copied;
}

/// The copy itself, in one PostgreSQL transaction: committed whole, or
/// rolled back on any error.
CopyReport copy_tables(SQLite::Database& sqlite, postgresql::Connection& pg,
                       const std::vector<std::pair<std::string, std::string>>& shared_secrets) {
    (void)pg.exec("BEGIN");
    try {
        lock_empty_target(pg);
        std::vector<TablePlan> plans;
        for (const auto& table : source_tables(sqlite)) plans.push_back(plan_table(sqlite, pg, table));
        std::vector<std::int64_t> escaped;
        for (const auto& plan : plans) {
            escaped.push_back(copy_rows(sqlite, pg, plan));
            restart_identity(pg, plan);
        }
        CopyReport report;
        for (std::size_t i = 0; i < plans.size(); ++i)
            report.tables.push_back({plans[i].table, checked_count(sqlite, pg, plans[i].table), escaped[i]});
        // After the counts, which compare the copied rows only. What the
        // SQLite server used is the file's secret, not a row of its own table.
        for (const auto& [name, value] : shared_secrets)
            (void)pg.exec("INSERT INTO shared_secrets (name, value, created_at) VALUES ($1, $2, $3) "
                          "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                          {name, value, std::to_string(sql::to_millis(sql::now_millis()))});
        (void)pg.exec("COMMIT");
        return report;
    } catch (...) {
        try {
            if (!pg.broken()) (void)pg.exec("ROLLBACK");
        } catch (const Error&) {
            // The connection died meanwhile: the server rolls the transaction
            // back as it ends the session; the first error is the one to tell.
        }
        throw;
    }
}

}  // namespace

CopyReport copy_to_postgresql(const std::filesystem::path& sqlite_database, const PostgresqlSettings& target,
                              const std::vector<std::pair<std::string, std::string>>& shared_secrets) {
    if (!std::filesystem::exists(sqlite_database))
        throw Error(ErrorKind::not_found, "no SQLite database at " + sqlite_database.string());
    try {
        SQLite::Database sqlite(sqlite_database.string(), SQLite::OPEN_READONLY);
        // Every read, the counts too, from one snapshot; nothing to commit.
        SQLite::Transaction snapshot(sqlite, SQLite::TransactionBehavior::DEFERRED);
        require_newest_schema(sqlite);
        postgresql::Connection pg(target.url, target.password_file.empty()
                                                  ? std::string()
                                                  : os::read_password_file(target.password_file,
                                                                           "the database's password file"));
        (void)postgresql::migrate(pg, postgresql::schema_migrations());
        return copy_tables(sqlite, pg, shared_secrets);
    } catch (const SQLite::Exception& e) {
        throw sqlite::translate(e, {});
    }
}

}  // namespace abci::store
