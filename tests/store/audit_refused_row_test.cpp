// A row the database refuses cannot blind the audit log (issue 30 item 3):
// it is dropped with one report, never retried for ever, and the rows around
// and after it are written. The refusal is the database's own: a CHECK (a
// trigger on SQLite) added to the store's audit table, as a column limit or
// any constraint would refuse a row.

#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "core/store/postgresql/connection.hpp"
#include "support/postgres.hpp"
#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

namespace {

constexpr const char* kRefusedPath = "/abci/refused";

/// A store of the backend under test whose database refuses audit rows for kRefusedPath.
struct RefusingStore {
    test::TempDir dir;
    std::optional<test::Postgres> server;
    std::unique_ptr<Store> store;

    RefusingStore() {
        if (backend_under_test() == "postgresql") {
            server.emplace();
            const auto url = server->create_database("refusing");
            store = open_postgresql_store({.url = url, .password_file = {}});
            postgresql::Connection db(url);
            (void)db.exec(std::string("ALTER TABLE audit_log ADD CONSTRAINT refused CHECK (path <> '") + kRefusedPath +
                          "')");
        } else {
            store = open_store_under_test(dir);
            SQLite::Database db(dir / "abci.db", SQLite::OPEN_READWRITE);
            db.exec(std::string("CREATE TRIGGER refused BEFORE INSERT ON audit_log WHEN NEW.path = '") + kRefusedPath +
                    "' BEGIN SELECT RAISE(ABORT, 'refused'); END");
        }
    }
};

/// What the store's audit writer reports, once it is listening to `store`.
struct Reports {
    explicit Reports(Store& store) {
        store.audit().set_error_handler([this](const std::string& error, bool retried) {
            std::lock_guard lock(mutex);
            all.emplace_back(error, retried);
        });
    }
    std::mutex mutex;
    std::vector<std::pair<std::string, bool>> all;  // error, retried
};

AuditEntry entry(const std::string& path, const std::string& request_id) {
    return AuditEntry{.time = millis_from_now(0ms), .actor = "u", .method = "GET", .path = path, .status = 403,
                      .client_address = "127.0.0.1", .request_id = request_id};
}

}  // namespace

TEST_CASE("audit refused row: a row the database refuses is dropped with one report, and every later row is written",
          "[store][audit]") {
    RefusingStore f;
    Store& s = *f.store;
    Reports reports(s);

    // In one batch with others, then alone among later ones.
    s.audit().append(entry("/abci/before", "r0"));
    s.audit().append(entry(kRefusedPath, "refused-1"));
    s.audit().append(entry("/abci/beside", "r1"));
    (void)s.audit().list(std::nullopt, 100);  // waits for the queued rows (query flushes)
    std::this_thread::sleep_for(100ms);       // a writer retrying for ever would have tried 20 times
    for (int i = 2; i < 8; ++i) s.audit().append(entry("/abci/after", "r" + std::to_string(i)));

    const auto rows = s.audit().list(std::nullopt, 100);
    std::vector<std::string> written;
    for (const auto& row : rows) written.push_back(row.request_id);
    CHECK(written == std::vector<std::string>{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"});
    std::lock_guard lock(reports.mutex);
    REQUIRE(reports.all.size() == 1);
    CHECK_FALSE(reports.all[0].second);
    CHECK(reports.all[0].first.find("refused-1") != std::string::npos);  // which request's row was lost
}

TEST_CASE("audit refused row: a database that refuses every write for a while (read-only, as a standby during a "
          "failover) loses no row",
          "[store][audit]") {
    if (backend_under_test() != "postgresql") return;  // SQLite has no standby to fail over to
    RefusingStore f;
    Store& s = *f.store;
    Reports reports(s);
    // Sessions read the setting again on the reload: every write now fails with 25006.
    const auto read_only = [&](bool on) {
        postgresql::Connection admin(f.server->url("postgres"));
        (void)admin.exec(on ? "ALTER SYSTEM SET default_transaction_read_only = on"
                            : "ALTER SYSTEM RESET default_transaction_read_only");
        (void)admin.exec("SELECT pg_reload_conf()");
    };
    read_only(true);
    // The reload reaches the writer's session a moment after pg_reload_conf returns, so rows written in
    // that moment succeed: keep writing until one is refused and retried, then every row must be there.
    const auto retried = [&] {
        std::lock_guard lock(reports.mutex);
        return std::count_if(reports.all.begin(), reports.all.end(), [](const auto& r) { return r.second; });
    };
    std::vector<std::string> appended;
    while (retried() == 0 && appended.size() < 250) {
        appended.push_back("r" + std::to_string(appended.size()));
        s.audit().append(entry("/abci/during", appended.back()));
        std::this_thread::sleep_for(20ms);
    }
    REQUIRE(retried() > 0);
    read_only(false);

    std::vector<std::string> written;
    for (const auto& row : s.audit().list(std::nullopt, 1000)) written.push_back(row.request_id);
    CHECK(written == appended);
    std::lock_guard lock(reports.mutex);
    CHECK(std::none_of(reports.all.begin(), reports.all.end(), [](const auto& r) { return !r.second; }));
}
