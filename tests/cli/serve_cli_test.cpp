// `abcictl serve` configuration from the outside: which source wins, and how
// a bad setting is reported before anything is served.

#include <catch2/catch.hpp>

#include <httplib.h>

#include "core/os/process.hpp"
#include "support/cli_runner.hpp"

using abci::test::CleanHome;
using abci::test::run_abcictl;

namespace {

/// Starts `abcictl serve args…` and reports the port it answers on among `candidates`.
std::uint16_t answering_port(const CleanHome& home, const std::vector<std::string>& args, const abci::test::Env& env,
                             const std::vector<std::uint16_t>& candidates) {
    abci::os::Process server(abci::test::abcictl_argv(args, home.env(env)), home / "serve.log", home.env(env));
    for (int attempt = 0; attempt < 200; ++attempt) {
        for (const auto port : candidates) {
            httplib::Client client("127.0.0.1", port);
            client.set_connection_timeout(0, 200000);
            if (auto response = client.Get("/no-such-route"); response && response->status == 404) return port;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    FAIL("abcictl serve answered on none of the ports");
    return 0;
}

}  // namespace

TEST_CASE("serve settings: a flag beats the environment, which beats the config file", "[serve-cli]") {
    CleanHome home;
    const auto file_port = abci::os::free_loopback_port();
    const auto env_port = abci::os::free_loopback_port();
    const auto flag_port = abci::os::free_loopback_port();
    const auto config = home.write("serve.toml", "listen = \"127.0.0.1:" + std::to_string(file_port) + "\"\n");
    const auto data = home / "data";
    const std::vector<std::uint16_t> all{file_port, env_port, flag_port};

    CHECK(answering_port(home, {"serve", "--config", config, "--data-dir", data}, {}, all) == file_port);
    CHECK(answering_port(home, {"serve", "--config", config, "--data-dir", data},
                         {{"ABCI_LISTEN", "127.0.0.1:" + std::to_string(env_port)}}, all) == env_port);
    CHECK(answering_port(home, {"serve", "--config", config, "--data-dir", data, "--listen", "127.0.0.1:" + std::to_string(flag_port)},
                         {{"ABCI_LISTEN", "127.0.0.1:" + std::to_string(env_port)}}, all) == flag_port);
    // ABCI_CONFIG names the file when no flag does.
    CHECK(answering_port(home, {"serve", "--data-dir", data}, {{"ABCI_CONFIG", config}}, all) == file_port);
}

TEST_CASE("serve refuses bad settings with one line and the usage exit code", "[serve-cli]") {
    CleanHome home;
    const auto data = home / "data";
    struct Case {
        std::string config;
        abci::test::Env env;
        std::vector<std::string> flags;
        std::string says;
    };
    const std::vector<Case> cases{
        {"listen = 8080\n", {}, {}, "config key listen: must be a string"},
        {"[rate_limit]\nabci = \"ten\"\n", {}, {}, "config key rate_limit.abci"},
        {"[limits]\nmaxJsonDepth = 100000\n", {}, {}, "config key limits.maxJsonDepth"},
        {"[limits]\nthreads = 64\n", {}, {}, "config key limits.maxConnections: must be less than limits.threads (64)"},
        {"[limits]\nconnectionReserve = 1984\n", {}, {}, "config key limits.connectionReserve"},
        {"[limits]\nheadTimeout = 0\n", {}, {}, "config key limits.headTimeout"},
        {"[limits]\nwalletNonceRate = \"many\"\n", {}, {}, "config key limits.walletNonceRate"},
        {"listen = \"127.0.0.1:8080\n", {}, {}, "serve.toml:1"},
        {"publicUrl = \"https://api.example.org/v1?x=1\"\n", {}, {}, "config key publicUrl"},
        {"", {{"ABCI_RATE_LIMIT", "10"}}, {}, "ABCI_RATE_LIMIT"},
        {"", {}, {"--listen", "0.0.0.0:8080"}, "without TLS"},
        {"", {}, {"--listen", "localhost"}, "is not host:port"},
        {"[tls]\ncert = \"/x.pem\"\n", {}, {}, "cert and key must be given together"},
        {"[idp]\nissuer = \"http://127.0.0.1:1\"\n", {}, {}, "config key idp.clientId"},
    };
    for (const auto& c : cases) {
        INFO(c.config << " " << c.says);
        const auto config = home.write("serve.toml", c.config);
        std::vector<std::string> args{"serve", "--config", config, "--data-dir", data};
        args.insert(args.end(), c.flags.begin(), c.flags.end());
        const auto result = run_abcictl(args, {}, home.env(c.env));
        CHECK(result.exit_code == 2);
        CHECK(result.err.find(c.says) != std::string::npos);
        CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    }
    const auto missing = run_abcictl({"serve", "--config", home / "nope.toml", "--data-dir", data}, {}, home.env());
    CHECK(missing.exit_code == 1);
    CHECK(missing.err.find("nope.toml does not exist") != std::string::npos);
}

TEST_CASE("serve says so when its port is taken", "[serve-cli]") {
    CleanHome home;
    httplib::Server occupant;
    const int port = occupant.bind_to_any_port("127.0.0.1");
    const auto result =
        run_abcictl({"serve", "--listen", "127.0.0.1:" + std::to_string(port), "--data-dir", home / "data"}, {}, home.env());
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("cannot listen on 127.0.0.1:" + std::to_string(port)) != std::string::npos);
}

TEST_CASE("serve refuses an unknown key or table, suggesting the nearest known one, before touching anything", "[serve-cli][settings]") {
    CleanHome home;
    const auto data = home / "data";
    const std::string chain = "[[chains]]\nid = \"dev\"\nname = \"Dev\"\nchainId = 31337\nrpcUrl = \"http://127.0.0.1:1\"\n";
    const std::vector<std::pair<std::string, std::string>> cases{
        {"dataDri = \"/tmp/elsewhere\"\n", "config key dataDri: is not a known key; did you mean dataDir?"},
        {"lisen = \"127.0.0.1:9\"\n", "config key lisen: is not a known key; did you mean listen?"},
        {"trustedProxy = [\"127.0.0.1\"]\n", "config key trustedProxy: is not a known key; did you mean trustedProxies?"},
        {"[rate_limits]\nabci = \"1000/60\"\n", "config [rate_limits]: is not a known table; did you mean [rate_limit]?"},
        {"[limits]\nthread = 8\n", "config key limits.thread: is not a known key; did you mean limits.threads?"},
        {"[auth.wallet]\nchainID = [1]\n", "config key auth.wallet.chainID: is not a known key; did you mean auth.wallet.chainIds?"},
        {chain + "confirmation = 2\n", "config key chains[0].confirmation: is not a known key; did you mean chains[0].confirmations?"},
        {"[mystery]\nx = 1\n", "config [mystery]: is not a known table"},
    };
    for (const auto& [config, says] : cases) {
        INFO(config);
        const auto result = run_abcictl({"serve", "--config", home.write("serve.toml", config), "--data-dir", data}, {},
                                        home.env());
        INFO(result.err);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find(says) != std::string::npos);
        CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
        CHECK_FALSE(std::filesystem::exists(data));
    }
}

TEST_CASE("serve --print-config shows the effective settings with their sources and masks secrets", "[serve-cli][settings]") {
    CleanHome home;
    const auto data = home / "data";
    const auto config = home.write("serve.toml",
                                   "[rate_limit]\nabci = \"5/10\"\n[signer]\nanvilKey = true\n"
                                   "[[chains]]\nid = \"dev\"\nname = \"Dev\"\nchainId = 31337\n"
                                   "rpcUrl = \"https://eth-sepolia.g.alchemy.com/v2/Zx8aPq3LmN0vB7kT\"\n");
    const auto result = run_abcictl({"serve", "--print-config", "--config", config, "--data-dir", data}, {},
                                    home.env({{"ABCI_LISTEN", "127.0.0.1:9999"}, {"ABCI_ADMIN_PASSWORD", "hunter2 secret"}}));
    INFO(result.out << result.err);
    REQUIRE(result.exit_code == 0);
    for (const auto* line : {"listen = \"127.0.0.1:9999\"  # env ABCI_LISTEN\n",
                             "rate_limit.abci = \"5/10\"  # file\n",
                             "rate_limit.api = \"120/60\"  # default\n",
                             "limits.threads = 2048  # default\n",
                             "signer.anvilKey = true  # file\n",
                             "ABCI_ADMIN_PASSWORD = \"********\"  # env ABCI_ADMIN_PASSWORD\n",
                             "chains[0].chainId = 31337  # file\n",
                             "chains[0].confirmations = 1  # default\n",
                             "chains[0].rpcUrls = [\"https://eth-sepolia.g.alchemy.com/v2/****\"]  # file\n"})
        CHECK(result.out.find(line) != std::string::npos);
    CHECK(result.out.find("dataDir = \"" + data + "\"  # flag --data-dir\n") != std::string::npos);
    CHECK(result.out.find("config file: " + config) != std::string::npos);
    CHECK(result.out.find("hunter2") == std::string::npos);
    CHECK(result.out.find("Zx8aPq3LmN0vB7kT") == std::string::npos);
    CHECK_FALSE(std::filesystem::exists(data));  // printing starts nothing
}

// Issue 31, item 11: --devnet's chain, signer and limit were missing, and the
// config file said "none" while the devnet writes one.
TEST_CASE("serve --devnet --print-config includes what --devnet adds", "[serve-cli][settings][devnet]") {
    CleanHome home;
    const auto data = home / "data";
    const auto result = run_abcictl({"serve", "--devnet", "--print-config", "--data-dir", data}, {}, home.env());
    INFO(result.out << result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.out.find("config file: none; --devnet's: " + data + "/devnet/config.toml (written at start)\n") !=
          std::string::npos);
    for (const auto* line : {"rate_limit.abci = \"1000/60\"  # --devnet\n",
                             "signer.anvilKey = true  # --devnet\n",
                             "chains[0].id = \"devnet\"  # --devnet\n",
                             "chains[0].chainId = 31337  # --devnet\n",
                             "chains[0].rpcUrls = [\"http://127.0.0.1:0\"]  # --devnet (a free loopback port at start)\n"})
        CHECK(result.out.find(line) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(data));  // printing starts nothing

    // The operator's own limit stands.
    const auto own = run_abcictl({"serve", "--devnet", "--print-config", "--data-dir", data}, {},
                                 home.env({{"ABCI_RATE_LIMIT", "30/60"}}));
    CHECK(own.out.find("rate_limit.abci = \"30/60\"  # env ABCI_RATE_LIMIT\n") != std::string::npos);
}
