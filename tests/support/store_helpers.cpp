// The store backends the conformance suite (tests/store) can run on: a new
// backend joins by opening an empty store here and passing the suite.

#include "support/store_helpers.hpp"

#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>

#include "core/store/migrations.hpp"
#include "core/store/postgresql/connection.hpp"
#include "core/store/postgresql/migrate.hpp"
#include "core/store/postgresql/schema.hpp"
#include "support/postgres.hpp"

namespace abci::store::testing {
namespace {

// One server for the whole run (it takes a second or two to start), and a
// database per store copied from one that holds the schema already: an empty
// store costs a CREATE DATABASE.
class SharedPostgres {
public:
    SharedPostgres() {
        // Closed before it serves as a template: CREATE DATABASE refuses one in use.
        postgresql::Connection db(server_.create_database("template_store"));
        (void)postgresql::migrate(db, postgresql::schema_migrations());
    }

    std::string fresh_database() {
        const std::string name = "store_" + std::to_string(++databases_);
        (void)admin_.exec("CREATE DATABASE " + name + " TEMPLATE template_store");
        return server_.url(name);
    }

    /// A database without any schema.
    std::string empty_database() {
        const std::string name = "store_" + std::to_string(++databases_);
        (void)admin_.exec("CREATE DATABASE " + name);
        return server_.url(name);
    }

private:
    test::Postgres server_;
    postgresql::Connection admin_{server_.url()};
    int databases_ = 0;
};

}  // namespace

std::string& backend_under_test() {
    static std::string name = "sqlite";
    return name;
}

SharedPostgres& shared_postgres() {
    static SharedPostgres server;
    return server;
}

std::unique_ptr<Store> open_store_under_test(const test::TempDir& dir) {
    if (backend_under_test() == "sqlite") return open_sqlite_store(dir / "abci.db");
    if (backend_under_test() == "postgresql")
        return open_postgresql_store({.url = shared_postgres().fresh_database(), .password_file = {}});
    FAIL("no store backend named '" << backend_under_test() << "' in this build");
    return nullptr;
}

std::unique_ptr<Store> open_store_under_test_from(const test::TempDir& dir, SchemaVersion version,
                                                  const std::vector<std::string>& statements) {
    if (backend_under_test() == "sqlite") {
        const std::string path = dir / "abci.db";
        {
            SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            const auto scripts = sqlite::migrations();
            REQUIRE(static_cast<std::size_t>(version.sqlite) <= scripts.size());
            for (int i = 0; i < version.sqlite; ++i) db.exec(scripts[static_cast<std::size_t>(i)]);
            db.exec("PRAGMA user_version = " + std::to_string(version.sqlite));
            for (const auto& statement : statements) db.exec(statement);
        }
        return open_sqlite_store(path);
    }
    if (backend_under_test() == "postgresql") {
        const auto url = shared_postgres().empty_database();
        {
            postgresql::Connection db(url);
            const auto scripts = postgresql::schema_migrations();
            const auto until = std::ranges::find_if(scripts, [&](const auto& m) { return m.version > version.postgresql; });
            REQUIRE(postgresql::migrate(db, std::span<const postgresql::Migration>(scripts.begin(), until)) == version.postgresql);
            for (const auto& statement : statements) (void)db.exec(statement);
        }
        return open_postgresql_store({.url = url, .password_file = {}});
    }
    FAIL("no store backend named '" << backend_under_test() << "' in this build");
    return nullptr;
}

}  // namespace abci::store::testing
