// What a newcomer meets (issue 14), from the outside: help that reads like
// gh's on a terminal, confirmations of the admin commands that cannot be
// undone, the config file's unknown keys, `version`, and what -v adds to a
// failure.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>

#include "admin_data_dir.hpp"
#include "cli/exit_code.hpp"
#include "support/cli_runner.hpp"
#include "support/serve.hpp"

using namespace abci;

namespace {

/// The names listed under COMMANDS in a help text.
std::vector<std::string> commands_in(const std::string& help) {
    std::vector<std::string> names;
    const auto start = help.find("\nCOMMANDS\n");
    if (start == std::string::npos) return names;
    std::istringstream lines(help.substr(start + 10));
    for (std::string line; std::getline(lines, line) && !line.empty();)
        names.push_back(line.substr(2, line.find(' ', 2) - 2));
    return names;
}

/// Checks the help of `path` and of every command under it; returns how many it checked.
int check_help_tree(const std::vector<std::string>& path) {
    auto args = path;
    args.push_back("--help");
    const auto r = test::run_abcictl(args);
    std::string name = "abcictl";
    for (const auto& p : path) name += " " + p;
    INFO(name << " --help:\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\nUSAGE\n  " + name) != std::string::npos);
    // None of CLI11's internals: type names, validator descriptions, its markers.
    for (const char* internal : {"TEXT", "UINT", "INT:", "ENUM", "FLOAT", "->", " in [", "REQUIRED", "Env:", "Print this help message"})
        CHECK(r.out.find(internal) == std::string::npos);
    // Every command lists the global flags it accepts.
    CHECK(r.out.find("\nGLOBAL FLAGS\n") != std::string::npos);
    CHECK(r.out.find("  --server SERVER") != std::string::npos);
    const auto subcommands = commands_in(r.out);
    if (subcommands.empty()) CHECK(r.out.find("\nEXAMPLES\n  # ") != std::string::npos);  // every command that runs
    int checked = 1;
    for (const auto& sub : subcommands) {
        auto sub_path = path;
        sub_path.push_back(sub);
        checked += check_help_tree(sub_path);
    }
    return checked;
}

}  // namespace

TEST_CASE("help reads as prose on a terminal: plain value names, defaults, global flags, examples", "[cli][help]") {
    const auto run = test::run_abcictl_on_terminal({"admin", "audit", "--help"}, {});
    INFO(run.transcript);
    CHECK(run.exit_code == 0);
    for (const char* line : {"USAGE\r\n  abcictl admin audit [flags]\r\n",
                             "  --limit N                 Show at most this many entries (the newest that match) "
                             "(default 1000)\r\n",
                             "  --data-dir DIR            ", "(env ABCI_DATA_DIR)\r\n",
                             "GLOBAL FLAGS\r\n", "  --color auto|always|never\r\n", "  -y, --yes ",
                             "EXAMPLES\r\n  # The last day's requests\r\n  abcictl admin audit --data-dir "})
        CHECK(run.transcript.find(line) != std::string::npos);
    CHECK(run.transcript.find("UINT") == std::string::npos);
}

TEST_CASE("every command's help is plain and every runnable command has examples", "[cli][help]") {
    CHECK(check_help_tree({}) > 30);
}

TEST_CASE("admin apikey revoke asks first on a terminal, refuses without one unless -y", "[cli][confirm]") {
    const test::AdminDataDir data;
    data.add_user("root@example.com", "admin");
    const std::string id = data.json({"--json", "admin", "apikey", "create", "--name", "cron", "--scope", "abci:read"}).at("id");
    const auto revoked = [&] { return data.json({"--json", "admin", "apikey", "list"})[0].at("revokedAt").is_string(); };
    const std::vector<std::string> revoke{"admin", "apikey", "revoke", id, "--data-dir", data.path()};

    // No terminal, no -y: nothing revoked, and the message says what to do.
    auto r = data.run({"admin", "apikey", "revoke", id});
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(r.err.find("Revoke API key " + id + " (cron)?") != std::string::npos);
    CHECK(r.err.find("Pass -y to confirm (there is no terminal to ask on)") != std::string::npos);
    CHECK_FALSE(revoked());

    // Questions are counted in the transcript: the runner's count also takes
    // the "abcictl: " of an error, written apart from its message, for a prompt.
    const auto questions = [](const std::string& transcript) {
        std::size_t n = 0;
        for (auto at = transcript.find("[y/N]: "); at != std::string::npos; at = transcript.find("[y/N]: ", at + 1)) ++n;
        return n;
    };
    auto t = test::run_abcictl_on_terminal(revoke, {"n"});
    INFO(t.transcript);
    CHECK(questions(t.transcript) == 1);
    CHECK(t.transcript.find("Every system using it is shut out. [y/N]: ") != std::string::npos);
    CHECK(t.exit_code == cli::kExitError);
    CHECK_FALSE(revoked());

    t = test::run_abcictl_on_terminal(revoke, {"y"});
    CHECK(questions(t.transcript) == 1);
    CHECK(t.exit_code == 0);
    CHECK(revoked());
}

TEST_CASE("admin user set-role asks before granting admin, and only then", "[cli][confirm]") {
    const test::AdminDataDir data;
    data.add_user("ann@example.com", "farmer");
    const auto role = [&] { return data.json({"--json", "admin", "user", "list"})[0].at("role").get<std::string>(); };

    auto r = data.run({"admin", "user", "set-role", "--email", "ann@example.com", "--role", "admin"});
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(r.err.find("Make ann@example.com an admin?") != std::string::npos);
    CHECK(r.err.find("Pass -y") != std::string::npos);
    CHECK(role() == "farmer");

    const auto t = test::run_abcictl_on_terminal(
        {"admin", "user", "set-role", "--email", "ann@example.com", "--role", "admin", "--data-dir", data.path()}, {"yes"});
    INFO(t.transcript);
    CHECK(t.prompts == 1);
    CHECK(t.exit_code == 0);
    CHECK(role() == "admin");
    // Other roles are no grant of power: no question.
    (void)data.ok({"admin", "user", "set-role", "--email", "ann@example.com", "--role", "verifier"});
    CHECK(role() == "verifier");
    (void)data.ok({"-y", "admin", "user", "set-role", "--email", "ann@example.com", "--role", "admin"});
    CHECK(role() == "admin");
}

TEST_CASE("config.toml refuses a key it does not know, naming the nearest", "[cli][config]") {
    const test::CleanHome home;
    const auto file = home.write(".config/abcictl/config.toml", "sever = \"http://abci.example:8001\"\n");
    auto r = test::run_abcictl({"whoami"}, {}, home.env());
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(r.err == "abcictl: " + file + ": unknown key 'sever'. Did you mean 'server'?\n");

    home.write(".config/abcictl/config.toml", "[profiles.staging]\nsevrer = \"http://abci.example:8001\"\n");
    r = test::run_abcictl({"whoami"}, {}, home.env());
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(r.err == "abcictl: " + file + ": unknown key 'profiles.staging.sevrer'. Did you mean 'profiles.staging.server'?\n");

    home.write(".config/abcictl/config.toml", "colour = \"never\"\n");
    r = test::run_abcictl({"whoami"}, {}, home.env());
    CHECK(r.err == "abcictl: " + file + ": unknown key 'colour'\n");
}

TEST_CASE("version names the commit and reads as a version", "[cli][version]") {
    const auto r = test::run_abcictl({"version"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(std::regex_match(r.out, std::regex("abcictl " ABCI_VERSION R"( \(commit ([0-9a-f]{7}|unknown)\)\n)")));
    CHECK(test::run_abcictl({"version", "-q"}).out == ABCI_VERSION "\n");
    const auto json = nlohmann::json::parse(test::run_abcictl({"--json", "version"}).out);
    CHECK(json.at("version") == ABCI_VERSION);
    CHECK(r.out.find(json.at("commit").get<std::string>()) != std::string::npos);
    CHECK_FALSE(json.contains("server"));  // none configured: nothing asked

    // A configured server that answers is named with its version; one that does not is left out.
    test::Server server;
    const auto with_server = test::run_abcictl({"--server", server.url(), "version"});
    CHECK(with_server.out == r.out + "server " ABCI_VERSION " at " + server.url() + "\n");
    const auto as_json = nlohmann::json::parse(test::run_abcictl({"--json", "--server", server.url(), "version"}).out);
    CHECK(as_json.at("server") == nlohmann::json{{"url", server.url()}, {"version", ABCI_VERSION}});
    const auto url = server.url();
    (void)server.stop();
    const auto without = test::run_abcictl({"--server", url, "version"});
    CHECK(without.exit_code == 0);
    CHECK(without.out == r.out);
}

TEST_CASE("version asks the server a login remembered, and its help says when a server is asked", "[cli][version]") {
    const auto help = test::run_abcictl({"version", "--help"});
    CHECK(help.out.find("and the server's when one is set (--server, ABCICTL_SERVER, the config file or the last "
                        "login; the default is not asked)") != std::string::npos);

    test::Server server;
    const test::CleanHome home;
    const auto login = test::run_abcictl(
        {"--server", server.url(), "login", "--email", test::Server::admin_email, "--password-stdin"},
        std::string(test::Server::admin_password) + "\n", home.env());
    REQUIRE(login.exit_code == 0);
    const auto r = test::run_abcictl({"version"}, {}, home.env());
    CHECK(r.out.find("server " ABCI_VERSION " at " + server.url() + "\n") != std::string::npos);
}

TEST_CASE("verbose (-v) failures add the HTTP status, the request id and the error kind", "[cli][verbose]") {
    test::Server server;
    const test::CleanHome home;
    const auto env = home.env({{"ABCICTL_SERVER", server.url()}, {"ABCICTL_TOKEN", "abci_not-a-real-key"}});
    const auto plain = test::run_abcictl({"chains", "list"}, {}, env);
    CHECK(plain.exit_code == cli::kExitAuth);
    CHECK(plain.err.find("HTTP") == std::string::npos);
    const auto verbose = test::run_abcictl({"-v", "chains", "list"}, {}, env);
    INFO(verbose.err);
    CHECK(verbose.exit_code == cli::kExitAuth);
    CHECK(verbose.err.starts_with(plain.err.substr(0, plain.err.find('\n'))));
    CHECK(std::regex_search(verbose.err, std::regex(R"(\n  \(HTTP 401, request id [^ )]+\)\n)")));
    CHECK(verbose.err.find("  (error kind: unauthenticated)\n") != std::string::npos);
}
