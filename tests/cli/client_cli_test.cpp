// abcictl's sessions from the outside: login by e-mail and password, by
// wallet (a key on stdin, an abcictl keystore, a cast keystore) and through a
// real OpenID provider; whoami and logout; the session refreshed after its
// access token expired; state.db's modes and content; which server and
// profile a command uses (flag > environment > config file > default).

#include <SQLiteCpp/SQLiteCpp.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/client_test.hpp"
#include "support/anvil.hpp"
#include "support/oidc_provider.hpp"
#include "support/serve.hpp"
#include "support/tools.hpp"

namespace abci::test::client {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const Env kLightKeystore{{"ABCICTL_KEYSTORE_SCRYPT_N", "4096"}};

unsigned mode_of(const std::string& path) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

struct StoredSession {
    std::string access_token, refresh_token;
};

/// The session state.db holds for (profile, server); fails the test when there is none.
StoredSession stored_session(const Terminal& t, const std::string& profile = "default") {
    SQLite::Database db(t.state_db(), SQLite::OPEN_READONLY);
    SQLite::Statement query(db, "SELECT access_token, refresh_token FROM sessions WHERE profile = ? AND server = ?");
    query.bind(1, profile);
    query.bind(2, t.server());
    REQUIRE(query.executeStep());
    return {query.getColumn(0).getString(), query.getColumn(1).getString()};
}

/// The line whoami prints when nobody is logged in to `server`.
std::string not_logged_in(const std::string& server) {
    return "abcictl: not logged in to " + server + ": run abcictl login";
}

/// whoami in its three forms for the logged-in `email` with `role`.
void require_whoami(Terminal& t, const std::string& email, const std::string& role) {
    const auto table = t.ok({"whoami"});
    CHECK(field(table, "server") == t.server());
    CHECK(field(table, "profile") == "default");
    CHECK(field(table, "email") == email);
    CHECK(field(table, "role") == role);
    CHECK(!field(table, "id").empty());
    const auto answer = json::parse(t.ok({"--json", "whoami"}));
    CHECK(answer.at("server") == t.server());
    CHECK(answer.at("profile") == "default");
    CHECK(answer.at("user").at("email") == email);
    CHECK(answer.at("user").at("role") == role);
    CHECK(answer.at("user").at("id") == field(table, "id"));
    CHECK(t.ok({"-q", "whoami"}) == email + "\n");
}

/// The addresses of the logged-in user's wallets (lower case), from whoami --json.
std::vector<std::string> wallets_of_session(Terminal& t) {
    const auto answer = json::parse(t.ok({"--json", "whoami"}));
    INFO(answer.dump());
    std::vector<std::string> wallets;
    for (const auto& w : answer.at("user").at("wallets"))
        wallets.push_back(lower(w.get<std::string>()));
    std::sort(wallets.begin(), wallets.end());
    return wallets;
}

}  // namespace

TEST_CASE("client login by password and by wallet (key on stdin, abcictl and cast keystores), whoami, logout",
          "[client]") {
    Server server({.config = "[auth.wallet]\nchainIds = [31337]\n"});
    const std::string wallet_email = "wallet@example.org", wallet_password = "wallet user pass 12";
    server.add_user(wallet_email, "farmer", wallet_password);
    const auto& key_account = Anvil::dev_accounts()[5];
    const auto& cast_account = Anvil::dev_accounts()[6];
    server.link_wallet(wallet_email, key_account.address);
    server.link_wallet(wallet_email, cast_account.address);
    Terminal t(server.url());
    const std::string keystore_password = "keystore pass 34";
    const auto password_file = t.home().write("keystore.pw", keystore_password + "\n");

    // E-mail and password, from stdin.
    const auto login = t.ok({"login", "--email", Server::admin_email, "--password-stdin"},
                            std::string(Server::admin_password) + "\n");
    CHECK(field(login, "server") == server.url());
    CHECK(field(login, "profile") == "default");
    CHECK(field(login, "email") == Server::admin_email);
    CHECK(field(login, "role") == "admin");
    CHECK(!field(login, "expires_in").empty());
    require_whoami(t, Server::admin_email, "admin");

    // state.db: 0600 in a 0700 directory, with the session's tokens and no other secret.
    CHECK(mode_of(t.state_db()) == 0600);
    CHECK(mode_of(fs::path(t.state_db()).parent_path().string()) == 0700);
    const auto session = stored_session(t);
    CHECK(server.http().get("/api/auth/me", session.access_token).status == 200);
    CHECK(!session.refresh_token.empty());

    // The login forms for scripts.
    const auto as_json = json::parse(t.ok({"--json", "login", "--email", Server::admin_email, "--password-stdin"},
                                          std::string(Server::admin_password) + "\n"));
    CHECK(as_json.at("server") == server.url());
    CHECK(as_json.at("profile") == "default");
    CHECK(as_json.at("user").at("email") == Server::admin_email);
    CHECK(as_json.at("expires_in").get<int>() > 0);
    CHECK(t.ok({"-q", "login", "--email", Server::admin_email, "--password-stdin"}, Server::admin_password) ==
          std::string(Server::admin_email) + "\n");

    // While login waits for the password on stdin, the process list shows no secret.
    {
        const auto fifo = t.home() / "password.fifo";
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        // Read-write: the child's open does not block, and its read ends when this closes.
        const int writer = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
        REQUIRE(writer >= 0);
        auto argv = abcictl_argv({"login", "--email", Server::admin_email, "--password-stdin"}, t.env());
        argv.insert(argv.begin(), {"sh", "-c", "exec \"$@\" < \"$0\"", fifo});
        os::Process login(argv, t.home() / "fifo-login.log", t.env());
        const auto proc = "/proc/" + std::to_string(login.pid());
        std::string cmdline;
        for (int i = 0; i < 100 && cmdline.find("--password-stdin") == std::string::npos; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            cmdline = file_content(proc + "/cmdline");
        }
        std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
        INFO(cmdline);
        CHECK(cmdline.find(std::string(test::abcictl_binary()) + " login --email " + Server::admin_email) != std::string::npos);
        // Blocked reading its stdin: the kernel names the call it waits in
        // (x86-64: read is 0, and its first argument the descriptor, 0).
        const auto reading_stdin = [&] { return file_content(proc + "/syscall").rfind("0 0x0 ", 0) == 0; };
        for (int i = 0; i < 500 && !reading_stdin(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        CHECK(reading_stdin());
        CHECK(login.running());
        const std::string password = std::string(Server::admin_password) + "\n";
        REQUIRE(::write(writer, password.data(), password.size()) == static_cast<ssize_t>(password.size()));
        ::close(writer);
        for (int i = 0; i < 200 && login.running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        CHECK(login.stop() == 0);
        CHECK(cmdline.find(Server::admin_password) == std::string::npos);
    }

    // A wrong password: exit 4, one line, the password not repeated; the session stays.
    const auto refused = one_line_failure(
        t.run({"login", "--email", Server::admin_email, "--password-stdin"}, "not the password 99\n"), 4);
    CHECK(refused.find("not the password 99") == std::string::npos);
    CHECK(t.ok({"-q", "whoami"}) == std::string(Server::admin_email) + "\n");

    // Another profile has its own session.
    CHECK(one_line_failure(t.run({"--profile", "other", "whoami"}), 4) == not_logged_in(server.url()));

    // A wallet: the private key on stdin, signed here (SIWE).
    CHECK(field(t.ok({"login", "--wallet", "--private-key-stdin"}, key_account.private_key + "\n"), "email") ==
          wallet_email);
    require_whoami(t, wallet_email, "farmer");

    // The same key in a keystore abcictl made.
    const auto imported = json::parse(t.ok({"--json", "keystore", "import", "--dir", t.home() / "keys",
                                            "--password-file", password_file, "--private-key-stdin"},
                                           key_account.private_key, kLightKeystore));
    CHECK(imported.at("address") == key_account.address);
    (void)t.ok({"logout"});
    CHECK(t.ok({"-q", "login", "--wallet", "--keystore", imported.at("path"), "--password-file", password_file}) ==
          wallet_email + "\n");
    CHECK(t.ok({"-q", "whoami"}) == wallet_email + "\n");

    // A keystore cast made (foundry's format).
    const auto cast_dir = t.home() / "cast-keys";
    fs::create_directories(cast_dir);
    const auto made = os::run_command({tool("cast"), "wallet", "import", "operator", "--private-key",
                                       cast_account.private_key, "--keystore-dir", cast_dir},
                                      "", std::chrono::seconds(60), {{"CAST_UNSAFE_PASSWORD", keystore_password}});
    INFO(made.out << made.err);
    REQUIRE(made.exit_code == 0);
    (void)t.ok({"logout"});
    CHECK(t.ok({"-q", "login", "--wallet", "--keystore", cast_dir + "/operator", "--password-file", password_file}) ==
          wallet_email + "\n");
    std::vector<std::string> linked{lower(key_account.address), lower(cast_account.address)};
    std::sort(linked.begin(), linked.end());
    CHECK(wallets_of_session(t) == linked);

    // No password or private key in state.db (nor beside it), nor in any argv this test ran.
    const std::vector<std::string> secrets{Server::admin_password,
                                           wallet_password,
                                           keystore_password,
                                           key_account.private_key.substr(2),
                                           cast_account.private_key.substr(2)};
    for (const auto& entry : fs::directory_iterator(fs::path(t.state_db()).parent_path())) {
        const auto content = lower(file_content(entry.path().string()));
        for (const auto& secret : secrets) {
            INFO(entry.path() << " holds " << secret);
            CHECK(content.find(lower(secret)) == std::string::npos);
        }
    }
    const auto wallet_session = stored_session(t);
    require_no_secret_in_argv(t, {Server::admin_password, wallet_password, keystore_password, key_account.private_key,
                                  key_account.private_key.substr(2), session.access_token, session.refresh_token,
                                  wallet_session.access_token, wallet_session.refresh_token});

    // logout ends the session on the server too; then whoami says what to do.
    const auto out = t.run({"logout"});
    CHECK(out.exit_code == 0);
    CHECK(out.err == "logged out of " + server.url() + "\n");
    CHECK(server.http().get("/api/auth/me", wallet_session.access_token).status == 401);
    CHECK(one_line_failure(t.run({"whoami"}), 4) == not_logged_in(server.url()));
    const auto again = t.run({"logout"});
    CHECK(again.exit_code == 0);
    CHECK(again.err == "not logged in to " + server.url() + "\n");
}

TEST_CASE("client login through a real OpenID provider: the URL on stderr, the code back on a loopback port",
          "[client]") {
    const std::string client_id = "abci", client_secret = "abci-cli-oidc-secret-41";
    const auto port = os::free_loopback_port();
    const auto origin = "http://127.0.0.1:" + std::to_string(port);  // the server's own
    const auto redirect_uri = origin + "/api/auth/idp-callback";
    OidcProvider::Options provider_options;
    provider_options.clients = {
        {.id = client_id, .secret = client_secret, .id_token_alg = "RS256", .redirect_uris = {redirect_uri}}};
    const OidcProvider provider(provider_options);
    Server server({.config = "[idp]\nname = \"acme\"\nissuer = \"" + provider.issuer() + "\"\nclientId = \"" + client_id +
                             "\"\nclientSecret = \"" + client_secret +
                             "\"\nredirectUri = \"http://127.0.0.1:{port}/api/auth/idp-callback\"\n",
                   .port = port});
    const auto& alice = provider.options().user;
    server.add_user(alice.email, "farmer", "alice has a password too 8");
    Terminal t(server.url());

    const auto log = t.home() / "login.log";
    os::Process login(abcictl_argv({"login", "--idp", "--no-browser"}, t.env()), log, t.env());
    // abcictl prints the provider's URL on stderr, indented on its own line.
    std::string url;
    for (int i = 0; i < 200 && url.empty(); ++i) {
        for (const auto& line : lines_of(file_content(log)))
            if (line.rfind("  " + provider.issuer(), 0) == 0) url = line.substr(2);
        if (url.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    INFO(file_content(log));
    REQUIRE(!url.empty());

    // The browser: the provider signs alice in and sends her to the server's redirect URI, which sends her on
    // to abcictl. That URI names the server's own port: the browser's request goes where the test's others go
    // (server.url(), in the openapi topology its proxy).
    const auto callback = provider.authorize(url);
    REQUIRE(callback.rfind(redirect_uri + "?", 0) == 0);
    const auto to_cli = server.http().get(callback.substr(origin.size()));
    REQUIRE(to_cli.status == 302);
    const auto location = to_cli.header("Location");
    INFO(location);
    REQUIRE(location.rfind("http://127.0.0.1:", 0) == 0);
    const auto path = location.find('/', std::string("http://").size());
    REQUIRE(path != std::string::npos);
    const auto landed = Http(location.substr(0, path)).get(location.substr(path));
    CHECK(landed.status == 200);
    CHECK(landed.body.find("Signed in") != std::string::npos);

    for (int i = 0; i < 200 && login.running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(login.stop() == 0);
    CHECK(field(file_content(log), "email") == alice.email);
    require_whoami(t, alice.email, "farmer");
}

TEST_CASE("client session: refreshed once the access token expired, a refused refresh asks for a login", "[client]") {
    Server server({.config = "[auth]\ntokenLifetime = 2\nclockSkew = 0\n"});
    Terminal t(server.url());
    t.login(Server::admin_email, Server::admin_password);
    const auto first = stored_session(t);
    std::this_thread::sleep_for(std::chrono::milliseconds(3100));
    CHECK(server.http().get("/api/auth/me", first.access_token).status == 401);  // it did expire

    CHECK(t.ok({"-q", "whoami"}) == std::string(Server::admin_email) + "\n");
    const auto second = stored_session(t);
    CHECK(second.access_token != first.access_token);
    CHECK(second.refresh_token != first.refresh_token);  // rotated

    // Someone else spends the stored refresh token: the server ends the family,
    // so abcictl cannot refresh and says to log in (and forgets the session).
    const auto stolen = server.http().post("/api/auth/refresh", {{"refresh_token", second.refresh_token}});
    REQUIRE(stolen.status == 200);
    (void)server.http().post("/api/auth/refresh", {{"refresh_token", second.refresh_token}});  // reuse: family revoked
    const auto line = one_line_failure(t.run({"whoami"}), 4);
    CHECK(line.find("not logged in to " + server.url() + ": run `abcictl --server " + server.url() +
                    " --profile default login`") != std::string::npos);
    CHECK(one_line_failure(t.run({"whoami"}), 4) == not_logged_in(server.url()));
}

TEST_CASE("client session: a token refused before it expires is renewed once by the refresh token, and a bad one names "
          "which token and what to do",
          "[client]") {
    Server server;
    Terminal t(server.url());
    t.login(Server::admin_email, Server::admin_password);
    const auto set_tokens = [&](const std::string& assignments) {
        SQLite::Database db(t.state_db(), SQLite::OPEN_READWRITE);
        db.exec("UPDATE sessions SET " + assignments);
    };

    // As after a move whose server signs with another key: the access token
    // is refused, the refresh token is still good.
    set_tokens("access_token = 'garbage'");
    CHECK(t.ok({"-q", "whoami"}) == std::string(Server::admin_email) + "\n");
    CHECK(stored_session(t).access_token != "garbage");
    // The same for commands that read the answer's status themselves (health's exit codes, the chain list).
    set_tokens("access_token = 'garbage'");
    const auto health = t.run({"health"});
    INFO(health.out << health.err);
    CHECK(health.exit_code != 3);  // UNKNOWN: the check could not be made
    CHECK(stored_session(t).access_token != "garbage");
    set_tokens("access_token = 'garbage'");
    (void)t.ok({"chains", "list", "--refresh"});
    CHECK(stored_session(t).access_token != "garbage");

    set_tokens("access_token = 'garbage', refresh_token = 'garbage'");
    const auto line = one_line_failure(t.run({"whoami"}), 4);
    CHECK(line.starts_with("abcictl: the session of profile default on " + server.url() + " was refused ("));
    CHECK(line.ends_with(") and could not be renewed: run `abcictl --server " + server.url() +
                         " --profile default login`"));
    CHECK(one_line_failure(t.run({"whoami"}), 4) == not_logged_in(server.url()));  // forgotten

    const auto variable = one_line_failure(t.run({"whoami"}, {}, {{"ABCICTL_TOKEN", "garbage"}}), 4);
    CHECK(variable.starts_with("abcictl: ABCICTL_TOKEN was refused by " + server.url() + " ("));
    CHECK(variable.ends_with("): set it to a valid API key, or unset it to use profile default's session"));
}

TEST_CASE("client server and profile: --server, then ABCICTL_SERVER, then config.toml, then the default", "[client]") {
    const CleanHome home;
    // whoami names the server it would have asked.
    const auto server_used = [&](const std::vector<std::string>& flags, const Env& env = {}) {
        auto args = flags;
        args.push_back("whoami");
        const auto r = run_abcictl(args, {}, home.env(env));
        const auto line = one_line_failure(r, 4);
        const std::string prefix = "abcictl: not logged in to ", suffix = ": run abcictl login";
        REQUIRE(line.rfind(prefix, 0) == 0);
        REQUIRE(line.size() > prefix.size() + suffix.size());
        return line.substr(prefix.size(), line.size() - prefix.size() - suffix.size());
    };
    const std::string file = "http://file.example:8001", staging = "http://staging.example:8002",
                      env = "http://env.example:8003", flag = "http://flag.example:8004";

    CHECK(server_used({}) == "http://127.0.0.1:8080");
    home.write(".config/abcictl/config.toml",
               "server = \"" + file + "\"\n[profiles.staging]\nserver = \"" + staging + "\"\n");
    CHECK(server_used({}) == file);
    CHECK(server_used({}, {{"ABCICTL_SERVER", env}}) == env);
    CHECK(server_used({"--server", flag}, {{"ABCICTL_SERVER", env}}) == flag);
    CHECK(server_used({"--profile", "staging"}) == staging);
    CHECK(server_used({}, {{"ABCICTL_PROFILE", "staging"}}) == staging);
    CHECK(server_used({"--profile", "staging"}, {{"ABCICTL_SERVER", env}}) == env);
    CHECK(server_used({"--profile", "nightly"}) == file);  // a profile without its own server

    home.write(".config/abcictl/config.toml",
               "profile = \"staging\"\n[profiles.staging]\nserver = \"" + staging + "\"\n");
    CHECK(server_used({}) == staging);
    CHECK(server_used({"--profile", "default"}) == "http://127.0.0.1:8080");

    // XDG_CONFIG_HOME moves the file.
    home.write("xdg/abcictl/config.toml", "server = \"" + env + "\"\n");
    CHECK(server_used({}, {{"XDG_CONFIG_HOME", home / "xdg"}}) == env);

    // A broken file is a usage error naming it.
    home.write(".config/abcictl/config.toml", "server = 8080\n");
    const auto bad = one_line_failure(run_abcictl({"whoami"}, {}, home.env()), 2);
    CHECK(bad.find(home / ".config/abcictl/config.toml") != std::string::npos);
}

}  // namespace abci::test::client
