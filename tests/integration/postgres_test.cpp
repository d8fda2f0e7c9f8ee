// The PostgreSQL store's ground floor (DESIGN.md §9): the fixture's real
// PostgreSQL 15, and the libpq connection every PostgreSQL repository will
// use: bound parameters only, errors by SQLSTATE, and a lost connection that
// stays lost instead of being replaced behind the caller's back (which would
// drop the session's advisory locks).

#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>
#include <unistd.h>

#include <fstream>
#include <future>
#include <set>
#include <span>

#include "core/error.hpp"
#include "core/store/postgresql/connection.hpp"
#include "core/store/postgresql/migrate.hpp"
#include "core/store/postgresql/schema.hpp"
#include "core/store/store.hpp"
#include "support/log_capture.hpp"
#include "support/postgres.hpp"

namespace abci::postgres_tests {

using store::postgresql::Connection;
using store::postgresql::Migration;

namespace {

ErrorKind kind_of_failure(const std::function<void()>& call) {
    try {
        call();
    } catch (const Error& e) {
        return e.kind();
    }
    FAIL("no error");
    return ErrorKind::internal;
}

// The real user id of process `pid`, from /proc.
int uid_of(int pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.starts_with("Uid:")) return std::stoi(line.substr(4));
    return -1;
}

}  // namespace

TEST_CASE("postgres: the fixture's server runs unprivileged on loopback, a database per test", "[postgres]") {
    test::Postgres pg;
    const auto url = pg.create_database("fixture");
    Connection db(url);
    const auto who = db.exec("SELECT current_user AS name, current_database() AS db");
    CHECK(who.text(0, "name") == test::Postgres::user);
    CHECK(who.text(0, "db") == "fixture");
    // initdb refuses root: the server is never root's, whoever runs the tests.
    CHECK(uid_of(db.backend_pid()) != 0);
    if (::geteuid() != 0) CHECK(uid_of(db.backend_pid()) == static_cast<int>(::geteuid()));
}

TEST_CASE("postgres connection: values are bound, never parsed as SQL, and read back byte for byte by column name",
          "[postgres]") {
    test::Postgres pg;
    Connection db(pg.create_database("values"));
    (void)db.exec("CREATE TABLE t (id BIGINT PRIMARY KEY, note TEXT, missing TEXT)");
    const std::string hostile = "'); DROP TABLE t; -- \xc3\xa9 \"$1\" \\";
    const auto inserted = db.exec("INSERT INTO t (id, note, missing) VALUES ($1, $2, $3)", {"-9007199254740993", hostile, std::nullopt});
    CHECK(inserted.affected() == 1);
    const auto rows = db.exec("SELECT id, note, missing FROM t WHERE note = $1", {hostile});
    REQUIRE(rows.rows() == 1);
    CHECK(rows.integer(0, "id") == -9007199254740993LL);
    CHECK(rows.text(0, "note") == hostile);
    CHECK(rows.is_null(0, "missing"));
    CHECK(rows.text(0, "missing").empty());
    CHECK(kind_of_failure([&] { (void)rows.text(0, "nope"); }) == ErrorKind::internal);
    CHECK(kind_of_failure([&] { (void)rows.integer(0, "missing"); }) == ErrorKind::internal);
}

TEST_CASE("postgres connection: a broken rule is a typed error and the connection goes on", "[postgres]") {
    test::Postgres pg;
    Connection db(pg.create_database("rules"));
    (void)db.exec("CREATE TABLE parent (id INT PRIMARY KEY)");
    (void)db.exec("CREATE TABLE child (id INT PRIMARY KEY, parent INT NOT NULL REFERENCES parent(id))");
    (void)db.exec("INSERT INTO parent (id) VALUES (1)");
    CHECK(kind_of_failure([&] { (void)db.exec("INSERT INTO parent (id) VALUES ($1)", {"1"}); }) == ErrorKind::conflict);
    CHECK(kind_of_failure([&] { (void)db.exec("INSERT INTO child (id, parent) VALUES (1, $1)", {"2"}); }) ==
          ErrorKind::not_found);
    CHECK(kind_of_failure([&] { (void)db.exec("SELEC 1"); }) == ErrorKind::internal);
    CHECK_FALSE(db.broken());
    CHECK(db.exec("SELECT count(*) AS n FROM parent").integer(0, "n") == 1);
}

TEST_CASE("postgres connection: a lost connection stays lost and says so, never silently replaced", "[postgres]") {
    test::Postgres pg;
    const auto url = pg.create_database("lost");
    Connection db(url);
    Connection admin(url);
    const int pid = db.backend_pid();
    (void)admin.exec("SELECT pg_terminate_backend($1)", {std::to_string(pid)});
    CHECK(kind_of_failure([&] { (void)db.exec("SELECT 1"); }) == ErrorKind::unavailable);
    CHECK(db.broken());
    // Still lost: no reconnect happened behind the caller's back.
    CHECK(kind_of_failure([&] { (void)db.exec("SELECT 1"); }) == ErrorKind::unavailable);
    CHECK(db.backend_pid() == 0);

    // The server's warnings go to the log, not to stderr. Raised here, not
    // awaited from a shutdown: whether the shutdown's last word reaches the
    // client before the socket closes is the server's timing, not ours.
    {
        test::LogCapture log;
        (void)admin.exec("DO $$ BEGIN RAISE WARNING 'disk nearly full'; END $$");
        CHECK(log.containing("PostgreSQL: WARNING:  disk nearly full").size() == 1);
    }

    // A server that restarts (as after a crash) keeps what was committed; the
    // old connection is lost too, stays lost, and its error names the database.
    (void)admin.exec("CREATE TABLE kept (v TEXT)");
    (void)admin.exec("INSERT INTO kept (v) VALUES ('committed')");
    pg.restart_immediate();
    const auto lost_message = [&] {
        try {
            (void)admin.exec("SELECT 1");
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::unavailable);
            return std::string(e.what());
        }
        FAIL("no error from a connection to a restarted server");
        return std::string();
    };
    (void)lost_message();
    CHECK(admin.broken());
    CHECK(lost_message() == "the connection to PostgreSQL at 127.0.0.1:" + std::to_string(pg.port()) + "/lost was lost");
    CHECK(admin.backend_pid() == 0);
    Connection again(url);
    CHECK(again.exec("SELECT v FROM kept").text(0, "v") == "committed");
}

TEST_CASE("postgres connection: a refused connection names where, never the password", "[postgres]") {
    test::Postgres pg;
    const auto url = "postgresql://abci:hunter2-secret@127.0.0.1:" + std::to_string(pg.port()) + "/no_such_db";
    try {
        Connection db(url);
        FAIL("connected to a database that does not exist");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::unavailable);
        const std::string message = e.what();
        CHECK(message.find("127.0.0.1:" + std::to_string(pg.port()) + "/no_such_db") != std::string::npos);
        CHECK(message.find("no_such_db\" does not exist") != std::string::npos);
        CHECK(message.find("hunter2") == std::string::npos);
    }
}

TEST_CASE("postgres migrate: replicas starting together apply each migration once, a newer schema is refused",
          "[postgres][migrate]") {
    test::Postgres pg;
    const auto url = pg.create_database("migrate");
    const std::vector<Migration> schema{
        {1, {"CREATE TABLE starts (replica INTEGER NOT NULL)"}},
        // Not idempotent: a second run of it would add a second row.
        {2, {"INSERT INTO starts (replica) VALUES (0)", "ALTER TABLE starts ADD COLUMN note TEXT"}},
    };
    std::vector<std::future<int>> replicas;
    for (int i = 0; i < 4; ++i)
        replicas.push_back(std::async(std::launch::async, [&] {
            Connection db(url);
            return store::postgresql::migrate(db, schema);
        }));
    for (auto& r : replicas) CHECK(r.get() == 2);
    CHECK(pg.psql("migrate", "SELECT count(*) FROM starts") == "1\n");
    CHECK(pg.psql("migrate", "SELECT version FROM schema_version") == "2\n");

    Connection db(url);
    // A binary that knows only version 1 refuses the database, and changes nothing.
    CHECK(kind_of_failure([&] { (void)store::postgresql::migrate(db, std::span(schema).first(1)); }) ==
          ErrorKind::internal);
    // A migration that fails leaves the schema as it was, the statements before it undone.
    auto broken = schema;
    broken.push_back({3, {"CREATE TABLE more (v TEXT)", "INSERT INTO nowhere VALUES (1)"}});
    CHECK(kind_of_failure([&] { (void)store::postgresql::migrate(db, broken); }) == ErrorKind::internal);
    CHECK_FALSE(db.broken());
    CHECK(db.exec("SELECT version FROM schema_version").integer(0, "version") == 2);
    CHECK(db.exec("SELECT count(*) AS n FROM pg_tables WHERE tablename = 'more'").integer(0, "n") == 0);
}

// SQLite's final schema and PostgreSQL's hold the same tables with the same
// columns (PostgreSQL's may add `rowid`, which SQLite's tables have unlisted).
TEST_CASE("postgres schema: every table and column of the SQLite store, applied once however often it starts",
          "[postgres][migrate]") {
    test::Postgres pg;
    Connection db(pg.create_database("schema"));
    const auto migrations = store::postgresql::schema_migrations();
    CHECK(store::postgresql::migrate(db, migrations) == migrations.back().version);
    CHECK(store::postgresql::migrate(db, migrations) == migrations.back().version);

    test::TempDir dir;
    (void)store::open_sqlite_store(dir / "abci.db");
    SQLite::Database sqlite(dir / "abci.db", SQLite::OPEN_READONLY);
    SQLite::Statement tables(sqlite, "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'sqlite_sequence'");
    std::set<std::string> sqlite_tables;
    while (tables.executeStep()) {
        const std::string table = tables.getColumn(0).getString();
        sqlite_tables.insert(table);
        std::set<std::string> sqlite_columns, pg_columns;
        SQLite::Statement columns(sqlite, "SELECT name FROM pragma_table_info(?)");
        columns.bind(1, table);
        while (columns.executeStep()) sqlite_columns.insert(columns.getColumn(0).getString());
        const auto pg_rows = db.exec("SELECT column_name FROM information_schema.columns WHERE table_name = $1", {table});
        for (int i = 0; i < pg_rows.rows(); ++i) pg_columns.insert(pg_rows.text(i, "column_name"));
        pg_columns.erase("rowid");
        INFO(table);
        CHECK(pg_columns == sqlite_columns);
    }
    std::set<std::string> pg_tables;
    const auto rows = db.exec("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename != 'schema_version'");
    for (int i = 0; i < rows.rows(); ++i) pg_tables.insert(rows.text(i, "tablename"));
    CHECK(pg_tables == sqlite_tables);
}

}  // namespace abci::postgres_tests
