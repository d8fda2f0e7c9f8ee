// The store backends the conformance suite (tests/store) can run on: a new
// backend joins by opening an empty store here and passing the suite.

#include "support/store_helpers.hpp"

#include <catch2/catch.hpp>

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

std::unique_ptr<Store> open_store_under_test(const test::TempDir& dir) {
    if (backend_under_test() == "sqlite") return open_sqlite_store(dir / "abci.db");
    if (backend_under_test() == "postgresql") {
        static SharedPostgres server;
        return open_postgresql_store({.url = server.fresh_database(), .password_file = {}});
    }
    FAIL("no store backend named '" << backend_under_test() << "' in this build");
    return nullptr;
}

}  // namespace abci::store::testing
