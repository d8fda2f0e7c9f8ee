// `abcictl serve --devnet` from the outside: the real binary starts the real
// anvil, deploys, writes its config, serves logins, stops anvil with itself,
// and keeps the chain for the next run.

#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include <httplib.h>
#include <toml++/toml.h>

#include "core/os/process.hpp"
#include "core/rpc/url.hpp"
#include "support/cli_runner.hpp"
#include "support/serve.hpp"
#include "support/tools.hpp"

using abci::test::CleanHome;
using abci::test::Env;

namespace {

constexpr const char* kAdminEmail = "admin@example.org";
constexpr const char* kAdminPassword = "devnet admin password 1";

/// The first admin named in the environment.
Env admin_env() { return {{"ABCI_ADMIN_EMAIL", kAdminEmail}, {"ABCI_ADMIN_PASSWORD", kAdminPassword}}; }

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// One `abcictl serve --devnet` run on a free port, its output in its own log.
class DevnetRun {
public:
    DevnetRun(const CleanHome& home, const std::string& data_dir, Env env, const std::string& name)
        : log_(home / (name + ".log")), port_(abci::os::free_loopback_port()) {
        env["ABCI_ANVIL"] = abci::test::tool("anvil");
        const std::vector<std::string> args{"serve", "--devnet", "--listen", "127.0.0.1:" + std::to_string(port_),
                                            "--data-dir", data_dir};
        process_.emplace(abci::test::abcictl_argv(args, home.env(env)), log_, home.env(env));
        // The devnet line comes once the server has bound its port.
        for (int i = 0; i < 600 && log().find("abcictl: devnet: anvil at") == std::string::npos; ++i) {
            if (!process_->running()) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        INFO(log());
        REQUIRE(abci::os::wait_for_port(port_, std::chrono::seconds(5)));
    }

    [[nodiscard]] std::string log() const { return read_file(log_); }
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    [[nodiscard]] abci::test::Http http() const { return abci::test::Http("http://127.0.0.1:" + std::to_string(port_)); }
    [[nodiscard]] pid_t pid() const noexcept { return process_->pid(); }
    /// SIGTERM; the exit status.
    int stop() { return process_->stop(std::chrono::seconds(15)); }
    /// SIGKILL: nothing of abcictl's own cleanup runs.
    void kill() {
        ::kill(process_->pid(), SIGKILL);
        process_->stop();
    }

private:
    std::string log_;
    std::uint16_t port_;
    std::optional<abci::os::Process> process_;
};

struct DevnetConfig {
    std::string rpc_url;
    std::string contract;
};

/// Reads and checks <data>/devnet/config.toml.
DevnetConfig read_config(const std::string& data_dir) {
    const auto path = data_dir + "/devnet/config.toml";
    struct stat info {};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0600);
    const auto root = toml::parse_file(path);
    CHECK(root["signer"]["anvilKey"].value<bool>() == true);
    const auto chain = root["chains"][0];
    CHECK(chain["id"].value<std::string>() == "devnet");
    CHECK(chain["name"].value<std::string>() == "Anvil devnet");
    CHECK(chain["chainId"].value<std::int64_t>() == 31337);
    CHECK(chain["network"].value<std::string>() == "ethereum");
    CHECK(chain["status"].value<std::string>() == "testnet");
    CHECK(chain["nativeCurrency"]["symbol"].value<std::string>() == "ETH");
    CHECK(chain["nativeCurrency"]["decimals"].value<std::int64_t>() == 18);
    const auto url = chain["rpcUrls"][0].value<std::string>();
    const auto contract = chain["contractAddress"].value<std::string>();
    REQUIRE(url);
    REQUIRE(contract);
    return {*url, *contract};
}

bool deployed(const DevnetConfig& config) {
    return abci::test::cast({"code", config.contract, "--rpc-url", config.rpc_url}).size() > 1000;
}

/// The processes whose parent is `parent`, from /proc/<pid>/stat.
std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> children;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const auto stat = read_file(entry.path() / "stat");
        // "pid (comm) state ppid …": comm may hold spaces and parentheses.
        const auto after_comm = stat.rfind(')');
        if (after_comm == std::string::npos) continue;
        std::istringstream rest(stat.substr(after_comm + 1));
        std::string state;
        pid_t ppid = 0;
        if (rest >> state >> ppid && ppid == parent) children.push_back(std::stoi(name));
    }
    return children;
}

/// NAME → value of a process's environment, from /proc/<pid>/environ.
std::map<std::string, std::string> environment_of(pid_t pid) {
    const auto text = read_file("/proc/" + std::to_string(pid) + "/environ");
    std::map<std::string, std::string> env;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\0', start);
        if (end == std::string::npos) end = text.size();
        const auto entry = text.substr(start, end - start);
        env.emplace(entry.substr(0, entry.find('=')), entry.substr(entry.find('=') + 1));
        start = end + 1;
    }
    return env;
}

int login_status(const DevnetRun& run, const std::string& email, const std::string& password) {
    return run.http().post("/api/auth/login-email-password", {{"email", email}, {"password", password}}).status;
}

}  // namespace

TEST_CASE("serve --devnet deploys, serves, stops its anvil with itself and keeps the chain", "[serve-cli][devnet]") {
    CleanHome home;
    const auto data = home / "data";

    DevnetRun first(home, data, admin_env(), "first");
    const auto config = read_config(data);
    CHECK(deployed(config));
    CHECK(first.log().find("ABCIToken at " + config.contract + " (deployed now)") != std::string::npos);
    CHECK(first.log().find("created the devnet admin") == std::string::npos);
    CHECK(login_status(first, kAdminEmail, kAdminPassword) == 200);

    const auto anvil_port = abci::rpc::parse_url(config.rpc_url).port;
    CHECK(abci::os::wait_for_port(anvil_port, std::chrono::milliseconds(100)));
    CHECK(first.stop() == 0);
    CHECK_FALSE(abci::os::wait_for_port(anvil_port, std::chrono::milliseconds(300)));

    // The chain state was dumped on exit: the same contract is still there.
    DevnetRun second(home, data, admin_env(), "second");
    const auto again = read_config(data);
    CHECK(again.contract == config.contract);
    CHECK(deployed(again));
    CHECK(second.log().find("ABCIToken at " + config.contract + " (from the previous run)") != std::string::npos);
    CHECK(login_status(second, kAdminEmail, kAdminPassword) == 200);
    CHECK(second.stop() == 0);
}

/// Kills, at the end of a test, the anvil a kill -9'd run left behind, in case
/// the test failed before the next run stopped it (only while it is still
/// that anvil: its command line names the state file).
class OrphanGuard {
public:
    explicit OrphanGuard(const std::string& devnet_dir) : state_(devnet_dir + "/anvil-state.json") {
        std::ifstream(devnet_dir + "/anvil.pid") >> pid_;
    }
    ~OrphanGuard() {
        if (alive()) ::kill(pid_, SIGKILL);
    }
    OrphanGuard(const OrphanGuard&) = delete;
    OrphanGuard& operator=(const OrphanGuard&) = delete;
    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    /// Still running (a zombie's command line is empty).
    [[nodiscard]] bool alive() const {
        return pid_ > 1 && read_file("/proc/" + std::to_string(pid_) + "/cmdline").find(state_) != std::string::npos;
    }

private:
    std::string state_;
    pid_t pid_ = 0;
};

TEST_CASE("serve --devnet: anvil's environment holds none of the server's secrets", "[serve-cli][devnet]") {
    CleanHome home;
    auto env = admin_env();
    env["ABCI_SIGNER_PASSWORD"] = "signer password never for anvil";
    env["ABCICTL_DEVNET_TEST_SECRET"] = "any variable at all 7d1c";
    env["LC_TIME"] = "C.UTF-8";
    DevnetRun run(home, home / "data", env, "serve");
    const auto children = children_of(run.pid());
    REQUIRE(children.size() == 1);
    auto anvil = environment_of(children.front());
    INFO("anvil's environment has " << anvil.size() << " variables");
    for (const auto& [name, value] : anvil) {
        INFO(name);
        CHECK(!name.starts_with("ABCI"));
        for (const auto* secret : {kAdminPassword, "signer password never for anvil", "any variable at all 7d1c"})
            CHECK(value.find(secret) == std::string::npos);
    }
    // What it needs is still there: where programs and its home are, and the locale.
    CHECK(anvil.count("PATH") == 1);
    CHECK(anvil.count("HOME") == 1);
    CHECK(anvil["LC_TIME"] == "C.UTF-8");
    // The server's own environment did hold them: the test is not vacuous.
    CHECK(environment_of(run.pid())["ABCI_SIGNER_PASSWORD"] == env["ABCI_SIGNER_PASSWORD"]);
    CHECK(login_status(run, kAdminEmail, kAdminPassword) == 200);
}

TEST_CASE("serve --devnet after a kill -9 stops the anvil left behind and keeps its chain", "[serve-cli][devnet]") {
    CleanHome home;
    const auto data = home / "data";

    DevnetRun first(home, data, admin_env(), "first");
    const auto config = read_config(data);
    const auto anvil_port = abci::rpc::parse_url(config.rpc_url).port;
    first.kill();
    const OrphanGuard orphan(data + "/devnet");
    REQUIRE(orphan.alive());
    CHECK(abci::os::wait_for_port(anvil_port, std::chrono::milliseconds(300)));  // left running

    DevnetRun second(home, data, admin_env(), "second");
    const auto again = read_config(data);
    if (again.rpc_url != config.rpc_url) CHECK_FALSE(abci::os::wait_for_port(anvil_port, std::chrono::milliseconds(300)));
    CHECK_FALSE(orphan.alive());
    CHECK(again.contract == config.contract);
    CHECK(deployed(again));
    CHECK(second.stop() == 0);
}

// Issue 14, item 1: a second server on the same data directory used to stop
// the first one's anvil and rewrite its config before failing on the port.
TEST_CASE("a second serve on a data directory in use names the holder and touches nothing", "[serve-cli][devnet][lock]") {
    CleanHome home;
    const auto data = home / "data";
    DevnetRun first(home, data, admin_env(), "first");
    const auto config = read_config(data);
    const auto config_text = read_file(data + "/devnet/config.toml");
    const auto config_time = std::filesystem::last_write_time(data + "/devnet/config.toml");
    const auto holder = "(pid " + std::to_string(first.pid()) + ", listening on 127.0.0.1:" + std::to_string(first.port()) + ")";

    Env env = admin_env();
    env["ABCI_ANVIL"] = abci::test::tool("anvil");
    for (const auto& extra : {std::vector<std::string>{"--devnet"}, std::vector<std::string>{}}) {
        std::vector<std::string> args{"serve", "--data-dir", data, "--listen",
                                      "127.0.0.1:" + std::to_string(abci::os::free_loopback_port())};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto second = abci::test::run_abcictl(args, {}, home.env(env));
        INFO(second.err);
        CHECK(second.exit_code == 2);
        CHECK(second.err.find("the data directory " + data + " is in use by another abcictl serve " + holder) !=
              std::string::npos);
        CHECK(std::count(second.err.begin(), second.err.end(), '\n') == 1);
    }
    // The first server's chain, config and service are as they were.
    CHECK(read_file(data + "/devnet/config.toml") == config_text);
    CHECK(std::filesystem::last_write_time(data + "/devnet/config.toml") == config_time);
    CHECK(deployed(config));
    CHECK(login_status(first, kAdminEmail, kAdminPassword) == 200);
    // The admin commands work beside a running server.
    const auto users = abci::test::run_abcictl({"admin", "user", "list", "--data-dir", data}, {}, home.env());
    CHECK(users.exit_code == 0);
    CHECK(users.out.find(kAdminEmail) != std::string::npos);
    CHECK(first.stop() == 0);
}

TEST_CASE("serve --devnet without ABCI_ADMIN_* prints a generated admin password once", "[serve-cli][devnet]") {
    CleanHome home;
    const auto data = home / "data";

    DevnetRun first(home, data, {}, "first");
    const auto log = first.log();
    const std::regex said("created the devnet admin admin@devnet\\.localhost with password (\\S+) \\(shown only this once\\)");
    std::smatch match;
    REQUIRE(std::regex_search(log, match, said));
    const std::string password = match[1];
    // Once in the announcement and once in the curl line; nowhere else.
    std::size_t seen = 0;
    for (auto at = log.find(password); at != std::string::npos; at = log.find(password, at + 1)) ++seen;
    CHECK(seen == 2);
    CHECK(log.find("curl -s -X POST http://127.0.0.1:") != std::string::npos);
    CHECK(login_status(first, "admin@devnet.localhost", password) == 200);
    CHECK(login_status(first, "admin@devnet.localhost", password + "x") == 401);
    CHECK(first.stop() == 0);

    DevnetRun second(home, data, {}, "second");
    CHECK(second.log().find("created the devnet admin") == std::string::npos);
    CHECK(login_status(second, "admin@devnet.localhost", password) == 200);
}

TEST_CASE("serve --devnet refuses what it cannot run, before starting anything", "[serve-cli][devnet]") {
    CleanHome home;
    const auto data = home / "data";
    const auto config = home.write("serve.toml", "[[chains]]\nid = \"sepolia\"\nname = \"Sepolia\"\nchainId = 11155111\n"
                                                 "rpcUrl = \"https://sepolia.example/v3/KEY\"\n");
    const auto public_chain = abci::test::run_abcictl({"serve", "--devnet", "--config", config, "--data-dir", data}, {},
                                                      home.env({{"ABCI_ANVIL", abci::test::tool("anvil")}}));
    CHECK(public_chain.exit_code == 2);
    CHECK(public_chain.err.find("--devnet: config key signer.anvilKey: the published anvil key signs only on local devnets") !=
          std::string::npos);
    CHECK_FALSE(std::filesystem::exists(data + "/devnet"));

    const auto no_anvil = abci::test::run_abcictl({"serve", "--devnet", "--data-dir", data}, {},
                                                  home.env({{"ABCI_ANVIL", home / "no-such-anvil"}}));
    CHECK(no_anvil.exit_code == 1);
    CHECK(no_anvil.err.find("ABCI_ANVIL names " + home / "no-such-anvil" + ", which is not an executable file") !=
          std::string::npos);
}

/// The shell block of the README between <!-- NAME:begin --> and <!-- NAME:end -->.
std::string readme_block(const std::string& name) {
    const std::string readme = read_file(abci::test::source_path("README.md"));
    const std::string open = "<!-- " + name + ":begin -->\n```sh\n";
    const auto begin = readme.find(open);
    const auto end = readme.find("```\n<!-- " + name + ":end -->");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    return readme.substr(begin + open.size(), end - begin - open.size());
}

/// `script` with `from` (which must occur) replaced by `to`.
std::string replaced(std::string script, const std::string& from, const std::string& to) {
    const auto at = script.find(from);
    REQUIRE(at != std::string::npos);
    return script.replace(at, from.size(), to);
}

/// Runs a README block in bash -euo pipefail from the source tree, as a reader would.
abci::os::CommandResult run_block(const std::string& script, const abci::test::Env& env) {
    return abci::os::run_command({"bash", "-euo", "pipefail", "-c", "cd " + abci::test::source_path(".") + " && " + script},
                                 "", std::chrono::seconds(60), env);
}

// Issue 4's "done when": the README's curl lines, run as written (only the
// server's port, the binary's path and cast's path swapped for the test's),
// mint a role token that `cast call balanceOf` confirms.
TEST_CASE("the README's walkthrough mints a role token on serve --devnet", "[serve-cli][devnet][readme]") {
    CleanHome home;
    DevnetRun devnet(home, home / ".local/state/abcictl/devnet", admin_env(), "walkthrough");
    auto script = replaced(readme_block("walkthrough"), "SERVER=http://127.0.0.1:8080", "SERVER=" + devnet.http().base_url());
    script = replaced(script, "build/src/abcictl", abci::test::abcictl_binary());
    script = replaced(script, "node_modules/.bin/cast", abci::test::tool("cast"));

    const auto result = run_block(script, home.env(admin_env()));
    INFO(result.out << result.err << devnet.log());
    REQUIRE(result.exit_code == 0);
    CHECK(result.out.find("\"tokenId\":10000") != std::string::npos);
    // The last line is cast's answer: one producer token on chain.
    auto out = result.out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    CHECK(out.substr(out.rfind('\n') + 1) == "1");
    CHECK(devnet.stop() == 0);
}

// Issue 5's "done when": the README's command-line session, run as written
// (the built binary put first on PATH, the devnet's port in ABCICTL_SERVER).
TEST_CASE("the README's command-line session logs in and mints on serve --devnet", "[serve-cli][devnet][readme]") {
    CleanHome home;
    DevnetRun devnet(home, home / ".local/state/abcictl/devnet", admin_env(), "cli-walkthrough");
    const std::string bin_dir = std::filesystem::path(abci::test::abcictl_binary()).parent_path();
    const auto script = replaced(readme_block("cli-walkthrough"), "$PWD/build/src", bin_dir);
    auto env = admin_env();
    env["ABCICTL_SERVER"] = devnet.http().base_url();
    const auto result = run_block(script, home.env(env));
    INFO(result.out << result.err << devnet.log());
    REQUIRE(result.exit_code == 0);
    CHECK(result.out.find("Verifier Role") != std::string::npos);  // balance lists the minted role
    CHECK(result.out.find("Soil report") != std::string::npos);    // tokens metadata 1000
    CHECK(result.out.find("ABCI OK - healthy") != std::string::npos);
    CHECK(result.err.find("logged out of " + devnet.http().base_url()) != std::string::npos);
    CHECK(devnet.stop() == 0);
}

TEST_CASE("a server given port 0 names the port it bound to whoever its lock refuses", "[serve-cli][lock]") {
    CleanHome home;
    const auto data = home / "data";
    const auto log = home / "any-port.log";
    const Env env = admin_env();
    abci::os::Process first(abci::test::abcictl_argv({"serve", "--listen", "127.0.0.1:0", "--data-dir", data}, home.env(env)),
                            log, home.env(env));
    const std::string marker = "\"listen\":\"";
    std::string bound;
    for (int i = 0; i < 300 && bound.empty() && first.running(); ++i) {
        const auto text = read_file(log);
        if (const auto at = text.find(marker); at != std::string::npos && text.find("\"serving\"") != std::string::npos)
            bound = text.substr(at + marker.size(), text.find('"', at + marker.size()) - at - marker.size());
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    INFO(read_file(log));
    REQUIRE(!bound.empty());
    CHECK(bound != "127.0.0.1:0");

    const auto second = abci::test::run_abcictl(
        {"serve", "--data-dir", data, "--listen", "127.0.0.1:" + std::to_string(abci::os::free_loopback_port())}, {},
        home.env(env));
    INFO(second.err);
    CHECK(second.exit_code == 2);
    CHECK(second.err.find("(pid " + std::to_string(first.pid()) + ", listening on " + bound + ")") != std::string::npos);
    CHECK(first.stop(std::chrono::seconds(15)) == 0);
}

/// A socket listening on 127.0.0.1:port, or -1 when the port is taken.
int listen_on(std::uint16_t port) {
    const int sock = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(sock, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 && ::listen(sock, 1) == 0) return sock;
    ::close(sock);
    return -1;
}

/// Waits up to `timeout` for `text` in the run's log.
bool log_says(const DevnetRun& run, const std::string& text, std::chrono::seconds timeout) {
    for (const auto until = std::chrono::steady_clock::now() + timeout; std::chrono::steady_clock::now() < until;) {
        if (run.log().find(text) != std::string::npos) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

// Issue 31, items 3 and 8: the devnet's /abci limit (10 per 60 s) stopped a
// newcomer, and its anvil dying went unnoticed: lane warnings, no chain.
TEST_CASE("serve --devnet raises the /abci limit and restarts its anvil from its state when it dies", "[serve-cli][devnet]") {
    CleanHome home;
    const auto data = home / "data";
    DevnetRun run(home, data, admin_env(), "watch");
    CHECK(log_says(run, "abcictl: devnet: /abci allows 1000 requests per 60 s per caller (--devnet's default); "
                        "rate_limit.abci or ABCI_RATE_LIMIT sets another\n", std::chrono::seconds(5)));
    const auto login = run.http().post("/api/auth/login-email-password", {{"email", kAdminEmail}, {"password", kAdminPassword}});
    REQUIRE(login.status == 200);
    const auto token = login.json.at("token").get<std::string>();
    for (int i = 0; i < 15; ++i) CHECK(run.http().get("/abci/blockchains/list", token).status == 200);
    // Issue 32: the devnet's metrics on a port of their own, named in the banner.
    std::smatch metrics;
    const auto log = run.log();
    REQUIRE(std::regex_search(log, metrics, std::regex("abcictl: devnet: metrics at (http://127\\.0\\.0\\.1:[0-9]+)/metrics\n")));
    CHECK(metrics[1].str() != run.http().base_url());
    CHECK(abci::test::Http(metrics[1].str()).get("/metrics").status == 200);

    const auto config = read_config(data);
    // anvil dumps its state every 10 s: the restarted one has the contract once a dump holds it.
    std::string contract = config.contract;
    std::transform(contract.begin(), contract.end(), contract.begin(), [](unsigned char c) { return std::tolower(c); });
    for (int i = 0; i < 150 && read_file(data + "/devnet/anvil-state.json").find(contract) == std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const OrphanGuard first_anvil(data + "/devnet");
    REQUIRE(first_anvil.alive());
    ::kill(first_anvil.pid(), SIGKILL);
    CHECK(log_says(run, "devnet: anvil (pid " + std::to_string(first_anvil.pid()) + ") exited", std::chrono::seconds(10)));
    REQUIRE(log_says(run, "devnet: anvil restarted", std::chrono::seconds(30)));
    const OrphanGuard second_anvil(data + "/devnet");
    CHECK(second_anvil.pid() != first_anvil.pid());
    CHECK(second_anvil.alive());
    // From its state file, on the port the server's chain clients know.
    const auto again = read_config(data);
    CHECK(again.rpc_url == config.rpc_url);
    CHECK(again.contract == config.contract);
    CHECK(deployed(again));
    int ready = 0;
    for (int i = 0; i < 100 && ready != 200; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(100)))
        ready = run.http().get("/readyz").status;
    CHECK(ready == 200);

    // While it cannot come back (its port taken), /readyz says the chain is gone; once the port is free, it is back.
    const auto anvil_port = abci::rpc::parse_url(config.rpc_url).port;
    int blocker = -1;
    // The watcher looks once a second: should it restart anvil before the port is taken, that one is killed too.
    for (int attempt = 0; attempt < 5 && blocker < 0; ++attempt) {
        pid_t pid = 0;
        std::ifstream(data + "/devnet/anvil.pid") >> pid;
        if (pid > 1) ::kill(pid, SIGKILL);
        for (int i = 0; i < 30 && blocker < 0; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(10)))
            blocker = listen_on(anvil_port);
    }
    REQUIRE(blocker >= 0);
    CHECK(log_says(run, "devnet: anvil did not restart", std::chrono::seconds(10)));
    abci::test::HttpResponse gone;
    for (int i = 0; i < 100 && gone.status != 503; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(100)))
        gone = run.http().get("/readyz");
    CHECK(gone.status == 503);
    CHECK(gone.body.find("devnet") != std::string::npos);
    ::close(blocker);
    const auto restarts = [&] {
        const auto log = run.log();
        std::size_t seen = 0;
        for (auto at = log.find("devnet: anvil restarted"); at != std::string::npos; at = log.find("devnet: anvil restarted", at + 1))
            ++seen;
        return seen;
    };
    for (int i = 0; i < 150 && restarts() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(restarts() >= 2);
    ready = 0;
    for (int i = 0; i < 100 && ready != 200; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(100)))
        ready = run.http().get("/readyz").status;
    CHECK(ready == 200);
    const OrphanGuard third_anvil(data + "/devnet");
    CHECK(run.stop() == 0);
    CHECK_FALSE(third_anvil.alive());
}

// Issue 31, item 6: a busy port was found after the admin was created, anvil
// started and the contract deployed, and nothing said how to pick another.
TEST_CASE("serve --devnet on a busy port says how to choose another before starting anything", "[serve-cli][devnet]") {
    CleanHome home;
    const auto data = home / "data";
    httplib::Server occupant;
    const int port = occupant.bind_to_any_port("127.0.0.1");
    const auto result = abci::test::run_abcictl(
        {"serve", "--devnet", "--listen", "127.0.0.1:" + std::to_string(port), "--data-dir", data}, {},
        home.env({{"ABCI_ANVIL", abci::test::tool("anvil")}}));
    INFO(result.err);
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("cannot listen on 127.0.0.1:" + std::to_string(port)) != std::string::npos);
    CHECK(result.err.find("--listen 127.0.0.1:PORT or ABCI_LISTEN=127.0.0.1:PORT") != std::string::npos);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(data + "/devnet"));
}

namespace {

unsigned mode_of(const std::string& path) {
    struct stat info {};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    return info.st_mode & 0777;
}

}  // namespace

// Issue 31, item 12: `$XDG_STATE_HOME/abcictl` was created 0755 (the man page
// says 0700) and anvil's state file, which holds the devnet's chain, 0644.
TEST_CASE("serve --devnet keeps its state to its user: every directory it makes 0700, anvil's state file 0600",
          "[serve-cli][devnet]") {
    CleanHome home;
    const auto data = home / ".local/state/abcictl/devnet";
    {
        DevnetRun run(home, data, admin_env(), "private");
        CHECK(run.stop() == 0);  // anvil writes its state as it stops
    }
    for (const auto& made : {home / ".local", home / ".local/state", home / ".local/state/abcictl", data}) {
        INFO(made);
        CHECK(mode_of(made) == 0700);
    }
    CHECK(mode_of(data + "/devnet/anvil-state.json") == 0600);
}
