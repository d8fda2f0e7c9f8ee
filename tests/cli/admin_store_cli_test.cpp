// `abcictl admin store copy` through the real binary: a data directory's
// store copied into the fixture's PostgreSQL once (a table of the rows
// copied, or JSON), a second copy into the same database refused, a URL with
// a password refused without being repeated, and a data directory a server
// holds refused. (Every record read back is tests/integration/store_copy_test.cpp.)

#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>

#include "admin_data_dir.hpp"
#include "cli/client_test.hpp"
#include "support/postgres.hpp"
#include "support/serve.hpp"

namespace abci::test {
namespace {

/// `abcictl admin store copy --to url [more…] --data-dir data.path()`.
os::CommandResult copy_to(const AdminDataDir& data, const std::string& url, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"admin", "store", "copy", "--to", url};
    args.insert(args.end(), more.begin(), more.end());
    return data.run(args);
}

constexpr const char* kMovedWallet = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

}  // namespace

TEST_CASE("admin store copy marks the data directory moved: --data-dir refuses naming the command that reaches the "
          "database, which ABCI_DATABASE_URL and the server's config reach",
          "[cli][admin][postgres]") {
    AdminDataDir data;
    (void)data.add_user("ann@example.org", "farmer");
    (void)data.add_user("bob@example.org", "farmer");
    Postgres pg;
    const auto url = pg.create_database("moved");
    const auto copied = copy_to(data, url);
    INFO("stderr: " << copied.err);
    REQUIRE(copied.exit_code == 0);
    CHECK(copied.err.find(data.path() + " is marked as moved") != std::string::npos);

    // The reproduction: this wrote the stale SQLite store and exited 0.
    const std::vector<std::string> link{"admin", "user", "link-wallet", "--email", "ann@example.org",
                                        "--address", kMovedWallet};
    const auto stale = data.run(link);
    CHECK(stale.exit_code == 2);
    const auto refusal = lines_of(stale.err);
    REQUIRE(refusal.size() == 1);
    CHECK(refusal[0].starts_with("abcictl: the store in " + data.path() + " was moved to " + url + " at "));
    auto reaching = link;
    reaching.insert(reaching.end(), {"--database-url", url});
    std::string reaching_line = abcictl_binary();
    for (const auto& word : reaching) reaching_line += " " + word;
    CHECK(refusal[0].ends_with("its SQLite database is stale. Run: " + reaching_line));
    CHECK(pg.psql("moved", "SELECT count(*) FROM wallets") == "0\n");
    {
        SQLite::Database file(data.database(), SQLite::OPEN_READONLY);
        CHECK(file.execAndGet("SELECT count(*) FROM wallets").getInt() == 0);
    }
    // Listing commands too: they would show the stale records.
    CHECK(data.run({"admin", "user", "list"}).exit_code == 2);

    // The command it names works, and so does the server's own way of naming the database.
    CHECK(run_abcictl(reaching).exit_code == 0);
    CHECK(pg.psql("moved", "SELECT count(*) FROM wallets") == "1\n");
    const auto by_env = run_abcictl({"admin", "user", "link-wallet", "--email", "bob@example.org", "--address",
                                     "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "--data-dir", data.path()},
                                    {}, {{"ABCI_DATABASE_URL", url}});
    INFO("stderr: " << by_env.err);
    CHECK(by_env.exit_code == 0);
    TempDir config_dir;
    const auto config = config_dir.write("serve.toml", "[database]\nurl = \"" + url + "\"\n");
    const auto by_config = run_abcictl({"--json", "admin", "user", "list", "--data-dir", data.path(), "--config", config});
    INFO("stderr: " << by_config.err);
    REQUIRE(by_config.exit_code == 0);
    CHECK(nlohmann::json::parse(by_config.out).size() == 2);
    CHECK(pg.psql("moved", "SELECT count(*) FROM wallets") == "2\n");
    const auto by_config_env =
        run_abcictl({"admin", "user", "list", "--data-dir", data.path()}, {}, {{"ABCI_CONFIG", config}});
    CHECK(by_config_env.exit_code == 0);
}

TEST_CASE("admin store copy carries the JWT secret: a session begun on the SQLite server lives on the PostgreSQL one, "
          "and serve refuses the moved data directory",
          "[cli][admin][postgres]") {
    Server sqlite_server;
    client::Terminal t(sqlite_server.url());
    t.login(Server::admin_email, Server::admin_password);
    const auto port = sqlite_server.port();
    REQUIRE(sqlite_server.stop() == 0);

    Postgres pg;
    const auto url = pg.create_database("sessions");
    const auto copied = run_abcictl({"admin", "store", "copy", "--data-dir", sqlite_server.data_dir(), "--to", url});
    INFO("stderr: " << copied.err);
    REQUIRE(copied.exit_code == 0);
    CHECK(copied.err.find("The JWT signing secret was carried") != std::string::npos);

    // On the stale store it would lose every write from now on.
    const auto stale = run_abcictl({"serve", "--data-dir", sqlite_server.data_dir(), "--listen", "127.0.0.1:0"});
    CHECK(stale.exit_code == 2);
    CHECK(stale.err.find("the store in " + sqlite_server.data_dir() + " was moved to " + url) != std::string::npos);
    CHECK(stale.err.find("ABCI_DATABASE_URL=" + url) != std::string::npos);

    Server pg_server(Server::Options{.port = port, .env = {{"ABCI_DATABASE_URL", url}}});
    REQUIRE(pg_server.url() == t.server());
    CHECK(t.ok({"whoami"}).find(Server::admin_email) != std::string::npos);
}

TEST_CASE("admin store copy copies a data directory into an empty PostgreSQL database once", "[cli][admin][postgres]") {
    AdminDataDir data;
    (void)data.add_user("ann@example.org", "farmer");
    (void)data.add_user("ada@example.org", "admin");
    Postgres pg;

    const auto url = pg.create_database("copy");
    const auto copied = copy_to(data, url);
    INFO("stderr: " << copied.err);
    REQUIRE(copied.exit_code == 0);
    const auto lines = lines_of(copied.out);
    REQUIRE_FALSE(lines.empty());
    CHECK(lines[0].starts_with("TABLE"));
    CHECK(lines[0].ends_with("ROWS"));
    const auto has_row = [&](const std::string& table, const std::string& rows) {
        return std::ranges::count_if(lines, [&](const std::string& l) {
                   return l.starts_with(table + " ") && l.ends_with(" " + rows);
               }) == 1;
    };
    CHECK(has_row("users", "2"));
    CHECK(has_row("api_keys", "0"));
    CHECK(copied.err.find("Holding " + data.path() + "/serve.lock") != std::string::npos);
    CHECK(pg.psql("copy", "SELECT email FROM users ORDER BY rowid") == "ann@example.org\nada@example.org\n");

    // Again into the same database: refused, naming the table that holds rows.
    const auto again = copy_to(data, url);
    CHECK(again.exit_code == 1);
    CHECK(lines_of(again.err).back() ==
          "abcictl: the target database is not empty: table users holds rows; copy into an empty database only");
    CHECK(again.out.empty());
    CHECK(pg.psql("copy", "SELECT count(*) FROM users") == "2\n");

    // --json: each table, its rows and the values copied escaped.
    const auto json = data.json({"admin", "store", "copy", "--to", pg.create_database("copy_json")});
    REQUIRE(json.is_array());
    CHECK(std::count(json.begin(), json.end(), nlohmann::json{{"table", "users"}, {"rows", 2}, {"escaped", 0}}) == 1);
}

TEST_CASE("admin store copy copies what an older release stored with a NUL or 0xFF escaped, and says how many",
          "[cli][admin][postgres]") {
    AdminDataDir data;
    (void)data.add_user("ann@example.org", "farmer");
    {
        // As the release before text was checked recorded a request for /abci/%FF and one for /abci/x%00y.
        SQLite::Database file(data.database(), SQLite::OPEN_READWRITE);
        file.exec("INSERT INTO audit_log (time, actor, method, path, status, client_address, request_id) VALUES "
                  "(1, 'u', 'GET', CAST(x'2f616263692fff' AS TEXT), 403, '127.0.0.1', 'r-ff'), "
                  "(2, 'u', 'GET', '/abci/x' || char(0) || 'y', 403, '127.0.0.1', 'r-nul')");
    }
    Postgres pg;
    const auto copied = copy_to(data, pg.create_database("escaped"));
    INFO("stdout: " << copied.out << "\nstderr: " << copied.err);
    REQUIRE(copied.exit_code == 0);
    CHECK(copied.err.find("2 values") != std::string::npos);
    CHECK(pg.psql("escaped", "SELECT path FROM audit_log ORDER BY id") == "/abci/%FF\n/abci/x%00y\n");
}

TEST_CASE("admin store copy refuses a URL with a password without repeating it, and a directory a server holds",
          "[cli][admin][postgres]") {
    AdminDataDir data;
    (void)data.add_user("ann@example.org", "farmer");
    Postgres pg;
    const auto url = pg.create_database("copy");

    const std::string secret = "s3cr3t-Pw";
    const auto with_password =
        copy_to(data, "postgresql://abci:" + secret + "@127.0.0.1:" + std::to_string(pg.port()) + "/copy");
    CHECK(with_password.exit_code == 2);
    CHECK(lines_of(with_password.err).front() ==
          "abcictl: --to carries a password, which would show wherever the URL does: give it in --password-file or "
          "PGPASSFILE instead");
    CHECK(with_password.err.find(secret) == std::string::npos);
    CHECK(with_password.out.empty());

    const auto server = store::DataDir(data.path()).lock_for_server("127.0.0.1:8080");
    const auto held = copy_to(data, url);
    CHECK(held.exit_code == 2);
    CHECK(lines_of(held.err).back().starts_with("abcictl: the data directory " + data.path() +
                                                 " is in use by another abcictl serve (pid " + std::to_string(::getpid()) +
                                                 ", listening on 127.0.0.1:8080)"));
    // Neither touched the database.
    CHECK(pg.psql("copy", "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0\n");
}

}  // namespace abci::test
