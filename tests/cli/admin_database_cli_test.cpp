// The admin commands' --database-url (also ABCI_DATABASE_URL), serve's
// database.url for the commands that open the store directly: a URL that
// carries a password is refused before anything is opened, and never
// repeated; a password file needs a URL. (Their use of a real database is in
// tests/serve/shared_database_test.cpp.)

#include <catch2/catch.hpp>
#include <filesystem>

#include "admin_data_dir.hpp"

namespace abci::test {

TEST_CASE("admin commands refuse a database URL with a password, never repeating it", "[cli][admin][database]") {
    const CleanHome home;
    const std::string secret = "s3cr3t-Pw";
    const auto fails = [&](const std::vector<std::string>& args, const Env& env, const std::string& says) {
        const auto r = run_abcictl(args, {}, home.env(env));
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == 2);
        const auto lines = lines_of(r.err);
        REQUIRE_FALSE(lines.empty());
        CHECK(lines[0] == "abcictl: " + says);
        CHECK(r.err.find(secret) == std::string::npos);
        CHECK(r.out.empty());
    };
    const std::string in_url = "--database-url (ABCI_DATABASE_URL) carries a password, which would show wherever the "
                               "URL does: give it in --database-password-file or PGPASSFILE instead";
    const std::string url = "postgresql://abci:" + secret + "@127.0.0.1:1/abci";
    fails({"admin", "user", "list", "--database-url", url}, {}, in_url);
    fails({"admin", "apikey", "list"}, {{"ABCI_DATABASE_URL", url}}, in_url);
    fails({"admin", "audit"}, {{"ABCI_DATABASE_URL", "postgres://abci@127.0.0.1:1/abci?password=" + secret}}, in_url);
    fails({"admin", "user", "add", "--email", "a@example.org", "--role", "admin", "--no-password"},
          {{"ABCI_DATABASE_URL", "host=127.0.0.1 password=" + secret}},
          "--database-url (ABCI_DATABASE_URL) must be a URL starting with postgresql:// or postgres://");
    fails({"admin", "user", "list", "--database-password-file", home.write("db.pw", secret + "\n")}, {},
          "--database-password-file needs --database-url");
    // Refused before anything was opened or created.
    CHECK_FALSE(std::filesystem::exists(home / ".local/share/abcictl"));
}

}  // namespace abci::test
