// The server's [database] settings (DESIGN.md §9): where the store lives, read
// through load_settings as `serve` reads them. A URL never carries a
// password, and no refusal repeats one: the URL is shown by --print-config
// and errors, the password belongs in a file.

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/util/shell_command.hpp"
#include "serve/settings.hpp"
#include "support/cli_runner.hpp"

namespace abci::serve::database_settings_tests {
namespace {

using test::Env;

constexpr const char* kSecret = "s3cr3t-Pw";

/// load_settings with the config file `toml` (none when empty) and `env`.
struct Loader {
    test::TempDir dir;

    [[nodiscard]] Settings load(const std::string& toml, const Env& env = {}) const {
        FlagSettings flags;
        flags.data_dir = dir / "data";
        if (!toml.empty()) flags.config_file = dir.write("serve.toml", toml);
        return load_settings(flags, env);
    }

    /// The message of the Error(invalid_input) that loading throws.
    [[nodiscard]] std::string refusal(const std::string& toml, const Env& env = {}) const {
        try {
            (void)load(toml, env);
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::invalid_input);
            return e.what();
        }
        FAIL("accepted");
        return {};
    }
};

std::string database_table(const std::string& url) { return "[database]\nurl = \"" + url + "\"\n"; }

}  // namespace

TEST_CASE("database settings: a PostgreSQL URL and password file are read and shown with their sources", "[settings][database]") {
    const Loader loader;
    const std::string url = "postgresql://abci@db.example:5432/abci?sslmode=verify-full&passfile=/etc/abcictl/pgpass";
    const auto settings = loader.load(database_table(url) + "passwordFile = \"/etc/abcictl/db.pw\"\n");
    CHECK(settings.database.url == url);
    CHECK(settings.database.password_file == "/etc/abcictl/db.pw");
    const auto shown = describe_settings(settings);
    INFO(shown);
    CHECK(shown.find("database.url = \"" + url + "\"  # file\n") != std::string::npos);
    // A path, not a secret: shown as it is.
    CHECK(shown.find("database.passwordFile = \"/etc/abcictl/db.pw\"  # file\n") != std::string::npos);
    // What the server's hints to an admin name: the same store, as an admin command reaches it.
    CHECK(admin_store_arguments(settings) ==
          "--database-url '" + url + "' --database-password-file /etc/abcictl/db.pw");
}

TEST_CASE("database settings: none given keeps SQLite in the data directory", "[settings][database]") {
    const Loader loader;
    const auto settings = loader.load("");
    CHECK(settings.database.url.empty());
    CHECK(settings.database.password_file.empty());
    CHECK(admin_store_arguments(settings) == util::shell_command({"--data-dir", loader.dir / "data"}));
    CHECK(describe_settings(settings).find("database.url = \"\"  # default\n") != std::string::npos);
}

TEST_CASE("database settings: libpq's postgres:// spelling is accepted too", "[settings][database]") {
    const Loader loader;
    CHECK(loader.load("", {{"ABCI_DATABASE_URL", "postgres://abci@127.0.0.1/abci"}}).database.url ==
          "postgres://abci@127.0.0.1/abci");
    // Words that merely look like a password elsewhere in the URL are no password.
    CHECK_FALSE(loader.load(database_table("postgresql://abci@db/abci?application_name=password")).database.url.empty());
    CHECK_FALSE(loader.load(database_table("postgresql://password@db/password")).database.url.empty());
}

TEST_CASE("database settings: the environment beats the config file", "[settings][database]") {
    const Loader loader;
    const auto settings = loader.load(database_table("postgresql://file@db/abci") + "passwordFile = \"/file.pw\"\n",
                                      {{"ABCI_DATABASE_URL", "postgresql://env@db/abci"},
                                       {"ABCI_DATABASE_PASSWORD_FILE", "/env.pw"}});
    CHECK(settings.database.url == "postgresql://env@db/abci");
    CHECK(settings.database.password_file == "/env.pw");
    const auto shown = describe_settings(settings);
    CHECK(shown.find("database.url = \"postgresql://env@db/abci\"  # env ABCI_DATABASE_URL\n") != std::string::npos);
    CHECK(shown.find("database.passwordFile = \"/env.pw\"  # env ABCI_DATABASE_PASSWORD_FILE\n") != std::string::npos);
}

TEST_CASE("database settings: a URL without the postgresql scheme is refused without being repeated", "[settings][database]") {
    const Loader loader;
    const std::string says = "must be a URL starting with postgresql:// or postgres://";
    CHECK(loader.refusal(database_table("db.example:5432/abci")) == "config key database.url: " + says);
    CHECK(loader.refusal(database_table("POSTGRESQL://abci@db/abci")) == "config key database.url: " + says);
    // libpq's keyword form could hold a password: refused as any other non-URL, and never quoted.
    CHECK(loader.refusal("", {{"ABCI_DATABASE_URL", std::string("host=db password=") + kSecret}}) ==
          "ABCI_DATABASE_URL: " + says);
}

TEST_CASE("database settings: a password in the URL is refused without being repeated", "[settings][database]") {
    const Loader loader;
    const std::string says =
        "carries a password, which would show wherever the URL does: give it in database.passwordFile or PGPASSFILE instead";
    const std::string in_userinfo = std::string("postgresql://abci:") + kSecret + "@db.example/abci";
    CHECK(loader.refusal(database_table(in_userinfo)) == "config key database.url: " + says);
    CHECK(loader.refusal("", {{"ABCI_DATABASE_URL", in_userinfo}}) == "ABCI_DATABASE_URL: " + says);
    // An empty one is still the URL's place for a password.
    CHECK(loader.refusal(database_table("postgres://abci:@db/abci")) == "config key database.url: " + says);
    // Refused from the environment even when the file's URL is fine: the environment's is the one that counts.
    CHECK(loader.refusal(database_table("postgresql://abci@db/abci"), {{"ABCI_DATABASE_URL", in_userinfo}}) ==
          "ABCI_DATABASE_URL: " + says);
}

TEST_CASE("database settings: a password= parameter is refused, however its name is spelled", "[settings][database]") {
    const Loader loader;
    const std::string says = "config key database.url: carries a password, which would show wherever the URL does: "
                             "give it in database.passwordFile or PGPASSFILE instead";
    for (const std::string query : {"?password=", "?sslmode=require&password=", "?pass%77ord=", "?%70assword="}) {
        INFO(query);
        CHECK(loader.refusal(database_table("postgresql://abci@db/abci" + query + kSecret)) == says);
    }
    // With no user and no path: libpq still reads the parameter.
    CHECK(loader.refusal(database_table(std::string("postgresql://?password=") + kSecret)) == says);
}

TEST_CASE("database settings: a password file needs a URL", "[settings][database]") {
    const Loader loader;
    CHECK(loader.refusal("[database]\npasswordFile = \"/etc/abcictl/db.pw\"\n") ==
          "config key database.passwordFile: needs database.url");
    CHECK(loader.refusal("", {{"ABCI_DATABASE_PASSWORD_FILE", "/etc/abcictl/db.pw"}}) ==
          "ABCI_DATABASE_PASSWORD_FILE: needs database.url");
    // The file itself has no key for a password.
    CHECK(loader.refusal("[database]\npassword = \"" + std::string(kSecret) + "\"\n") ==
          "config key database.password: is not a known key");
}

}  // namespace abci::serve::database_settings_tests
