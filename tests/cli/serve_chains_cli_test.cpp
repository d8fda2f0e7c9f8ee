// `abcictl serve`'s chain registry and signer settings ([[chains]], [signer];
// DESIGN.md §5) from the outside: the documented example is served, and each
// bad entry is refused before anything is served, with one line naming it.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/os/process.hpp"
#include "support/cli_runner.hpp"

using abci::test::CleanHome;
using abci::test::Env;
using abci::test::run_abcictl;

namespace {

/// One [[chains]] entry as DESIGN.md §5 shows it, with `extra` lines appended
/// (a key given twice is a TOML error, so tests replace keys through `id`/`chain_id`).
std::string chain_entry(const std::string& id, const std::string& chain_id = "11155111", const std::string& extra = "") {
    return "[[chains]]\n"
           "id = \"" + id + "\"\n"
           "name = \"Sepolia\"\n"
           "chainId = " + chain_id + "\n"
           "network = \"ethereum\"\n"
           "rpcUrls = [\"https://sepolia.example/v3/KEY\", \"https://backup.example/sepolia\"]\n"
           "contractAddress = \"0x5FbDB2315678afecb367f032d93F642f64180aa3\"\n"
           "blockExplorer = \"https://sepolia.etherscan.io\"\n"
           "status = \"testnet\"\n"
           "confirmations = 1\n"
           "nativeCurrency = { name = \"Sepolia Ether\", symbol = \"ETH\", decimals = 18 }\n" + extra;
}

/// A chain entry with only the keys under test.
std::string minimal_chain(const std::string& lines) {
    return "[[chains]]\nid = \"dev\"\nname = \"Dev\"\n" + lines;
}

/// Starts `abcictl serve --config <config>` and tells whether it serves (its
/// port accepts connections and it is still running) within 20 s.
bool serves(const CleanHome& home, const std::string& config, const Env& env = {}) {
    const auto port = abci::os::free_loopback_port();
    const auto path = home.write("serve.toml", "listen = \"127.0.0.1:" + std::to_string(port) + "\"\n" + config);
    const std::vector<std::string> args{"serve", "--config", path, "--data-dir", home / "data"};
    abci::os::Process server(abci::test::abcictl_argv(args, home.env(env)), home / "serve.log", home.env(env));
    const bool up = abci::os::wait_for_port(port, std::chrono::seconds(20)) && server.running();
    if (!up) UNSCOPED_INFO("serve log:\n" << abci::test::file_tail(home / "serve.log", 20));
    return up;
}

}  // namespace

TEST_CASE("serve accepts DESIGN.md's chain and signer example", "[serve-cli][chains]") {
    CleanHome home;
    // A real keystore, so whatever reads it at start finds one.
    const auto password = home.write("signer.pw", "signer password 1\n");
    const auto made = run_abcictl({"--json", "keystore", "new", "--dir", home / "keys", "--password-file", password}, {},
                                  home.env({{"ABCICTL_KEYSTORE_SCRYPT_N", "4096"}}));
    REQUIRE(made.exit_code == 0);
    const std::string keystore = nlohmann::json::parse(made.out).at("path");

    CHECK(serves(home, "[signer]\nkeystore = \"" + keystore + "\"\npasswordFile = \"" + password + "\"\n" +
                           chain_entry("sepolia")));
    // The password from the environment instead of a file; a single rpcUrl; defaults for the rest.
    CHECK(serves(home,
                 "[signer]\nkeystore = \"" + keystore + "\"\n" + minimal_chain("chainId = 5\nrpcUrl = \"http://127.0.0.1:1\"\n"),
                 {{"ABCI_SIGNER_PASSWORD", "signer password 1"}}));
    // The anvil key where every chain is a devnet; and no chains at all (auth only).
    CHECK(serves(home, "[signer]\nanvilKey = true\n" + chain_entry("a", "31337") + chain_entry("b", "31337")));
    CHECK(serves(home, ""));
}

TEST_CASE("serve refuses bad chain and signer settings with one line and the usage exit code", "[serve-cli][chains]") {
    CleanHome home;
    const auto keystore = home.write("key.json", "{}");
    struct Case {
        std::string config;
        std::string says;
        Env env{};
    };
    const std::vector<Case> cases{
        {"chains = \"sepolia\"\n", "config key chains: must be an array of tables"},
        {minimal_chain("chainId = 1\n"), "network 'dev': rpcUrls must name at least one"},
        {"[[chains]]\nname = \"x\"\nchainId = 1\nrpcUrl = \"http://127.0.0.1:1\"\n", "config key chains[0]: network '': id must be"},
        {chain_entry("Sepolia"), "network 'Sepolia': id must be"},
        {chain_entry("-sepolia"), "network '-sepolia': id must be"},
        {"[[chains]]\nid = \"x\"\nchainId = 1\nrpcUrl = \"http://127.0.0.1:1\"\n", "network 'x': name must not be empty"},
        {chain_entry("sepolia") + chain_entry("sepolia", "1"), "config key chains[1].id: 'sepolia' is used by another chain"},
        {minimal_chain("chainId = 0\nrpcUrl = \"http://127.0.0.1:1\"\n"), "config key chains[0].chainId: must be an integer"},
        {minimal_chain("chainId = \"1\"\nrpcUrl = \"http://127.0.0.1:1\"\n"), "config key chains[0].chainId: must be an integer"},
        {minimal_chain("rpcUrl = \"http://127.0.0.1:1\"\n"), "network 'dev': chainId must be a positive integer"},
        {minimal_chain("chainId = 1\nrpcUrls = []\n"), "network 'dev': rpcUrls must name at least one"},
        {minimal_chain("chainId = 1\nrpcUrls = [\"http://127.0.0.1:1\", \"ws://127.0.0.1:2\"]\n"), "rpcUrls[1] is not usable"},
        {minimal_chain("chainId = 1\nrpcUrls = [\"http://127.0.0.1:1\", 7]\n"), "config key chains[0].rpcUrls: must be an array of strings"},
        {minimal_chain("chainId = 1\nrpcUrl = \"http://a:1\"\nrpcUrls = [\"http://b:1\"]\n"), "config key chains[0].rpcUrl: give rpcUrls or rpcUrl, not both"},
        {minimal_chain("chainId = 1\nrpcUrl = \"http://a:1\"\ncontractAddress = \"0x1234\"\n"), "network 'dev': contractAddress is not an address"},
        {minimal_chain("chainId = 1\nrpcUrl = \"http://a:1\"\nstatus = \"live\"\n"), "config key chains[0].status: must be \"active\", \"testnet\" or \"disabled\""},
        {minimal_chain("chainId = 1\nrpcUrl = \"http://a:1\"\nconfirmations = 0\n"), "config key chains[0].confirmations: must be an integer from 1"},
        {chain_entry("sepolia", "1", "chainID = 2\n"), "config key chains[0].chainID: is not a known key"},
        {minimal_chain("chainId = 1\nrpcUrl = \"http://a:1\"\nnativeCurrency = { name = \"E\", symbol = \"E\", decimals = 99 }\n"),
         "config key chains[0].nativeCurrency.decimals: must be an integer from 0 to 36"},
        {minimal_chain("chainId = 1\nrpcUrl = \"http://a:1\"\nnativeCurrency = { name = \"E\", sym = \"E\" }\n"),
         "config key chains[0].nativeCurrency.sym: is not a known key"},
        {minimal_chain("chainId = 1\nrpcUrl = \"http://a:1\"\nnativeCurrency = \"ETH\"\n"), "config key chains[0].nativeCurrency: must be a table"},
        {"[signer]\nkeystore = \"" + keystore + "\"\nanvilKey = true\n", "config [signer]: give one of keystore, pkcs11Module, remote or anvilKey"},
        {"[signer]\nkeystore = \"" + keystore + "\"\npkcs11Module = \"/m.so\"\n", "config [signer]: give one of keystore, pkcs11Module, remote or anvilKey"},
        {"[signer]\nanvilKey = true\nremote = \"http://127.0.0.1:8545\"\n", "config [signer]: give one of keystore, pkcs11Module, remote or anvilKey"},
        {"[signer]\nremote = \"http://127.0.0.1:8545\"\n", "config key signer.remote: needs signer.remoteAddress"},
        {"[signer]\nremote = \"ws://127.0.0.1:8545\"\nremoteAddress = \"0x000000000000000000000000000000000000bEEF\"\n", "config key signer.remote: "},
        {"[signer]\nremote = \"http://127.0.0.1:8545\"\nremoteAddress = \"0x12\"\n", "config key signer.remoteAddress: '0x12' is not a 0x address"},
        {"[signer]\nremoteAddress = \"0x000000000000000000000000000000000000bEEF\"\n", "config [signer]: remoteAddress and remoteTokenFile need signer.remote"},
        // A bearer token goes in clear text over http: only to this machine.
        {"[signer]\nremote = \"http://signer.example:8545\"\nremoteAddress = \"0x000000000000000000000000000000000000bEEF\"\n",
         "config key signer.remote: a bearer token is sent over https only (or to loopback)", {{"ABCI_SIGNER_TOKEN", "hunter2"}}},
        {"[signer]\npkcs11Module = \"/m.so\"\npkcs11Key = \"k\"\npkcs11PinFile = \"/p\"\n", "config key signer.pkcs11Module: needs signer.pkcs11Token"},
        {"[signer]\npkcs11Module = \"/m.so\"\npkcs11Token = \"t\"\npkcs11PinFile = \"/p\"\n", "config key signer.pkcs11Module: needs signer.pkcs11Key"},
        {"[signer]\npkcs11Module = \"/m.so\"\npkcs11Token = \"t\"\npkcs11Key = \"k\"\n", "config key signer.pkcs11Module: needs signer.pkcs11PinFile or ABCI_SIGNER_PIN"},
        {"[signer]\npkcs11Token = \"t\"\n", "config [signer]: pkcs11Token, pkcs11Key and pkcs11PinFile need signer.pkcs11Module"},
        // Nor has a PIN.
        {"[signer]\npkcs11Pin = \"hunter2\"\n", "config key signer.pkcs11Pin: is not a known key"},
        {"[signer]\npasswordFile = \"/x.pw\"\n", "config key signer.passwordFile: needs signer.keystore"},
        {"[signer]\nkeystore = \"" + keystore + "\"\n", "config key signer.keystore: needs signer.passwordFile or ABCI_SIGNER_PASSWORD"},
        // A password has no place in the file: it is an unknown key there.
        {"[signer]\nkeystore = \"" + keystore + "\"\npassword = \"hunter2\"\n", "config key signer.password: is not a known key"},
        {"[signer]\nanvilKey = \"yes\"\n", "config key signer.anvilKey: must be true or false"},
        {"[signer]\nanvilKey = true\n" + chain_entry("local", "31337") + chain_entry("sepolia"),
         "config key signer.anvilKey: the published anvil key signs only on local devnets (chain id 31337); chain 'sepolia' has chain id 11155111"},
    };
    for (const auto& c : cases) {
        INFO(c.config << "\nexpected: " << c.says);
        const auto config = home.write("serve.toml", c.config);
        const auto result = run_abcictl({"serve", "--config", config, "--data-dir", home / "data"}, {}, home.env(c.env));
        INFO("stderr: " << result.err);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find(c.says) != std::string::npos);
        CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
        // The secret never shows in a message.
        CHECK(result.err.find("hunter2") == std::string::npos);
    }
}
