// The files in examples/, each used as an operator would: the two-chain server
// config served by the real binary over two real anvils (with the contract
// deployed by the config's own signer keystore), the cron health check, the
// role-request approval script, and the systemd unit checked by systemd.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <regex>

#include "generated_files.hpp"
#include "support/anvil.hpp"
#include "support/cli_runner.hpp"
#include "support/serve.hpp"
#include "support/tools.hpp"

using namespace abci;

namespace {

/// `text` with the `n`-th line (from 0) that starts with `key` replaced by
/// `line`; fails the test when there is no such line, so an example that
/// changed shape is noticed.
std::string replace_config_line(std::string text, const std::string& key, int n, const std::string& line) {
    std::size_t at = 0;
    for (int seen = 0;; ++seen, ++at) {
        at = text.find("\n" + key, at);
        INFO("examples/serve-two-chains.toml has no line " << n << " starting with " << key);
        REQUIRE(at != std::string::npos);
        if (seen == n) break;
    }
    const auto end = text.find('\n', at + 1);
    return text.replace(at + 1, end - at - 1, line);
}

/// examples/serve-two-chains.toml served by the real binary: its two chains
/// are anvils with the example's chain ids, the token deployed on each by the
/// signer keystore the config names; only the paths and URLs are this test's.
/// Sepolia's entry wants 2 confirmations: its node mines a block every 500 ms
/// (an automining node would mine none after the mint's).
struct TwoChainExample {
    test::Anvil sepolia{test::Anvil::Options{.block_time = std::chrono::milliseconds(500), .chain_id = 11155111}};
    test::Anvil amoy{test::Anvil::Options{.chain_id = 80002}};
    test::CleanHome home;
    std::string password_file = home.write("signer.pw", "signer password for the example\n");
    std::string keystore;
    std::string contracts[2];
    std::optional<test::Server> server;

    TwoChainExample() {
        auto imported = test::run_abcictl({"--json", "keystore", "import", "--dir", home / "keys", "--password-file",
                                           password_file, "--private-key-stdin"},
                                          test::Anvil::dev_accounts()[0].private_key + "\n",
                                          home.env({{"ABCICTL_KEYSTORE_SCRYPT_N", "1024"}}));
        INFO(imported.err);
        REQUIRE(imported.exit_code == 0);
        keystore = nlohmann::json::parse(imported.out).at("path").get<std::string>();

        auto config = test::read_text(test::source_path("examples/serve-two-chains.toml"));
        config = replace_config_line(config, "keystore = ", 0, "keystore = \"" + keystore + "\"");
        config = replace_config_line(config, "passwordFile = ", 0, "passwordFile = \"" + password_file + "\"");
        const test::Anvil* nodes[] = {&sepolia, &amoy};
        for (int i = 0; i < 2; ++i) {
            const auto deployed = test::run_abcictl(
                {"-q", "admin", "contract", "deploy", "--rpc-url", nodes[i]->url(), "--keystore", keystore,
                 "--password-file", password_file, "--chain-id", std::to_string(nodes[i]->chain_id())},
                {}, home.env());
            INFO(deployed.err);
            REQUIRE(deployed.exit_code == 0);
            contracts[i] = deployed.out.substr(0, deployed.out.find('\n'));
            config = replace_config_line(config, "rpcUrls = ", i, "rpcUrls = [\"" + nodes[i]->url() + "\"]");
            config = replace_config_line(config, "contractAddress = ", i, "contractAddress = \"" + contracts[i] + "\"");
        }
        server.emplace(test::Server::Options{.config = config});
    }

    /// The environment of a client of this server, in `home`.
    /// (XDG_* named, so that none of the developer's can leak in through os::run_command.)
    [[nodiscard]] test::Env client_env(test::Env extra = {}) const {
        extra.emplace("ABCICTL_SERVER", server->url());
        extra.emplace("ABCICTL_PROFILE", "");
        extra.emplace("XDG_STATE_HOME", home / ".local/state");
        extra.emplace("XDG_CONFIG_HOME", home / ".config");
        return home.env(std::move(extra));
    }
};

std::string example(const std::string& name) { return test::source_path("examples/" + name); }

/// PATH with the abcictl under test first, as the scripts call `abcictl`.
std::string path_with_abcictl() {
    const char* path = std::getenv("PATH");
    return std::filesystem::path(test::abcictl_binary()).parent_path().string() + ":" + (path ? path : "");
}

}  // namespace

TEST_CASE("examples/serve-two-chains.toml serves both chains, cron-health.sh stays quiet, then reports CRITICAL",
          "[cli][examples][anvil]") {
    TwoChainExample ex;
    const auto admin = ex.server->login_admin();
    const auto list = ex.server->http().get("/abci/blockchains/list", admin.token);
    INFO(list.body);
    REQUIRE(list.status == 200);
    std::vector<std::string> ids;
    for (const auto& chain : list.json.at("data")) ids.push_back(chain.at("id").get<std::string>());
    CHECK(ids == std::vector<std::string>{"sepolia", "amoy"});
    const auto health = ex.server->http().get("/abci/health", admin.token);
    INFO(health.body);
    CHECK(health.status == 200);

    // Chain ids complete from the cache `chains list` fills, in bash too.
    const auto reader = ex.server->create_api_key("reader", {"abci:read"});
    REQUIRE(test::run_abcictl({"chains", "list"}, {}, ex.client_env({{"ABCICTL_TOKEN", reader}})).exit_code == 0);
    const auto cached = test::run_abcictl({"__complete-chains"}, {}, ex.client_env());
    CHECK(cached.exit_code == 0);
    CHECK(cached.out == "sepolia\namoy\n");
    const auto other_server = test::run_abcictl({"--server", "http://127.0.0.1:1", "__complete-chains"}, {}, ex.home.env());
    CHECK(other_server.exit_code == 0);
    CHECK(other_server.out.empty());
    const std::string complete_chain = "source \"$1\" && COMP_WORDS=(\"$2\" --server \"$3\" mint-role --chain s) && "
                                       "COMP_CWORD=5 && _abcictl && printf '%s\\n' \"${COMPREPLY[@]}\"";
    const auto bash = os::run_command({"bash", "-c", complete_chain, "bash", test::source_path("completions/abcictl.bash"),
                                       test::abcictl_binary(), ex.server->url()},
                                      {}, std::chrono::seconds(20), ex.client_env({{"ABCICTL_SERVER", "http://127.0.0.1:1"}}));
    INFO(bash.err);
    CHECK(bash.out == "sepolia\n");

    // The cron job, with its API key in a file as the example's crontab line has it.
    const auto key_file = ex.home.write("health.key", ex.server->create_api_key("cron", {"abci:health"}));
    const auto log = ex.home / "health.log";
    const auto cron_env = ex.client_env({{"ABCICTL_TOKEN", ""},
                                         {"ABCICTL_TOKEN_FILE", key_file},
                                         {"HEALTH_LOG", log},
                                         {"PATH", path_with_abcictl()}});
    auto cron = os::run_command({"sh", example("cron-health.sh")}, {}, std::chrono::seconds(60), cron_env);
    INFO(cron.out << cron.err);
    CHECK(cron.exit_code == 0);
    CHECK(cron.out.empty());
    CHECK_FALSE(std::filesystem::exists(log));

    ex.amoy.stop();
    cron = os::run_command({"sh", example("cron-health.sh")}, {}, std::chrono::seconds(60), cron_env);
    INFO(cron.out << cron.err);
    CHECK(cron.exit_code == 2);
    CHECK(cron.out.find("CRITICAL") != std::string::npos);
    CHECK(test::read_text(log).find("exit 2 abcictl health " + ex.server->url()) != std::string::npos);
}

TEST_CASE("examples/approve-pending.sh approves and mints every pending role request", "[cli][examples][anvil]") {
    TwoChainExample ex;
    const auto wallet = test::Anvil::dev_accounts()[1].address;
    // abcictl's own commands, not curl and jq (issue 14, item 21).
    const auto script = test::read_text(example("approve-pending.sh"));
    CHECK(script.find("curl") == std::string::npos);
    CHECK(script.find("jq") == std::string::npos);
    ex.server->add_user("grower@example.org", "farmer", "grower password 1234");
    ex.server->link_wallet("grower@example.org", wallet);
    const auto grower = ex.server->login("grower@example.org", "grower password 1234");
    for (const auto& [role, chain] : {std::pair{"producer", "sepolia"}, std::pair{"verifier", "amoy"}}) {
        const auto r = ex.server->http().post("/v1/role-requests",
                                              {{"roleType", role}, {"walletAddress", wallet}, {"blockchainId", chain}},
                                              grower.token);
        INFO(r.body);
        REQUIRE(r.status == 201);
    }
    const auto admin_password = ex.home.write("admin.pw", std::string(test::Server::admin_password) + "\n");
    const auto env = ex.client_env({{"ADMIN_EMAIL", test::Server::admin_email},
                                    {"ADMIN_PASSWORD_FILE", admin_password},
                                    {"PATH", path_with_abcictl()}});
    const auto admin = ex.server->login_admin();
    auto pending = [&] {
        const auto r = ex.server->http().get("/v1/admin/role-requests?status=pending", admin.token);
        REQUIRE(r.status == 200);
        return r.json.at("data").size();
    };

    auto run = os::run_command({"bash", example("approve-pending.sh"), "--dry-run"}, {}, std::chrono::seconds(60), env);
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(std::count(run.out.begin(), run.out.end(), '\n') == 2);
    CHECK(pending() == 2);

    run = os::run_command({"bash", example("approve-pending.sh")}, {}, std::chrono::seconds(120), env);
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    const std::regex approved("approved [^ ]+  (producer|verifier)  " + wallet + "  (sepolia|amoy)  0x[0-9a-f]{64}\n");
    CHECK(std::distance(std::sregex_iterator(run.out.begin(), run.out.end(), approved), std::sregex_iterator()) == 2);
    CHECK(pending() == 0);
    // The chains say so too (cast as the independent client): producer 10000 on one, verifier 10100 on the other.
    CHECK(test::cast({"call", ex.contracts[0], "balanceOf(address,uint256)(uint256)", wallet, "10000", "--rpc-url",
                      ex.sepolia.url()}) == "1");
    CHECK(test::cast({"call", ex.contracts[1], "balanceOf(address,uint256)(uint256)", wallet, "10100", "--rpc-url",
                      ex.amoy.url()}) == "1");

    run = os::run_command({"bash", example("approve-pending.sh")}, {}, std::chrono::seconds(60), env);
    CHECK(run.exit_code == 0);
    CHECK(run.out == "no pending role requests\n");

    const auto wrong = ex.home.write("wrong.pw", "not the password\n");
    run = os::run_command({"bash", example("approve-pending.sh")}, {}, std::chrono::seconds(60),
                          ex.client_env({{"ADMIN_EMAIL", test::Server::admin_email},
                                         {"ADMIN_PASSWORD_FILE", wrong},
                                         {"PATH", path_with_abcictl()}}));
    CHECK(run.exit_code == 1);
    CHECK(run.err.find("cannot log in") != std::string::npos);
}

TEST_CASE("examples/approve-pending.sh says which setting is missing", "[cli][examples]") {
    // Before: an apostrophe broke the quoting of the first message and the
    // second said only "ADMIN_PASSWORD_FILE: unbound variable".
    auto run = os::run_command({"env", "-u", "ABCICTL_SERVER", "-u", "ADMIN_EMAIL", "-u", "ADMIN_PASSWORD_FILE", "bash", example("approve-pending.sh")});
    CHECK(run.exit_code == 2);
    CHECK(run.err == "approve-pending: set ADMIN_EMAIL to the e-mail of an admin of http://127.0.0.1:8080\n");
    run = os::run_command({"env", "-u", "ABCICTL_SERVER", "-u", "ADMIN_PASSWORD_FILE", "bash", example("approve-pending.sh")}, {},
                          std::chrono::seconds(60), {{"ADMIN_EMAIL", "admin@example.org"}});
    CHECK(run.exit_code == 2);
    CHECK(run.err ==
          "approve-pending: set ADMIN_PASSWORD_FILE to a file (mode 0600) holding the password of admin@example.org\n");
}

TEST_CASE("examples/abcictl-serve.service is the package's unit: valid and hardened", "[cli][examples]") {
    // A link to packaging/abcictl.service, which the package installs
    // (tests/package checks it installed, with its template and its score).
    CHECK(std::filesystem::read_symlink(example("abcictl-serve.service")) == "../packaging/abcictl.service");
    const auto unit = test::read_text(example("abcictl-serve.service"));
    for (const char* line :
         {"\nExecStart=/usr/bin/abcictl serve --config /etc/abcictl/abcictl.toml\n",
          "\nEnvironmentFile=-/etc/abcictl/abcictl.env\n", "\nStateDirectory=abcictl\n", "\nUser=abcictl\n",
          "\nType=notify\n", "\nNoNewPrivileges=yes\n", "\nProtectSystem=strict\n", "\nProtectHome=yes\n",
          "\nPrivateTmp=yes\n", "\nCapabilityBoundingSet=\n", "\nRestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX\n",
          "\nUMask=0077\n", "\nWantedBy=multi-user.target\n"}) {
        INFO(line);
        CHECK(unit.find(line) != std::string::npos);
    }
    // No secret in the unit itself: they come from the EnvironmentFile.
    CHECK(unit.find("\nEnvironment=ABCI_SIGNER_PASSWORD") == std::string::npos);
    CHECK(unit.find("\nEnvironment=ABCI_ADMIN_PASSWORD") == std::string::npos);

    if (!test::on_path("systemd-analyze")) {
        WARN("systemd-analyze is not installed: the unit was only read, not verified");
        return;
    }
    // systemd checks that ExecStart's binary exists: the one under test stands in for /usr/bin/abcictl.
    test::TempDir dir;
    auto local = unit;
    local.replace(local.find("/usr/bin/abcictl"), 16, test::abcictl_binary());
    const auto path = dir.write("abcictl.service", local);
    const auto r = os::run_command({"systemd-analyze", "verify", "--man=no", path}, {}, std::chrono::seconds(60),
                                   {{"SYSTEMD_LOG_LEVEL", "warning"}});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("abcictl.service") == std::string::npos);
}

TEST_CASE("examples/haproxy-replicas.cfg is valid for haproxy and sends to the replicas /readyz passes",
          "[cli][examples]") {
    const auto config = test::read_text(example("haproxy-replicas.cfg"));
    for (const char* line : {"option httpchk GET /readyz", "http-check expect status 200", "retry-on conn-failure",
                             "server replica-8081 127.0.0.1:8081 check", "server replica-8082 127.0.0.1:8082 check"}) {
        INFO(line);
        CHECK(config.find(line) != std::string::npos);
    }
    // Debian installs it in /usr/sbin, which a user's PATH may lack.
    const auto checked = os::run_command({"/usr/sbin/haproxy", "-c", "-f", example("haproxy-replicas.cfg")}, {},
                                         std::chrono::seconds(30));  // scripts/setup installs haproxy
    INFO(checked.out << checked.err);
    CHECK(checked.exit_code == 0);
}
