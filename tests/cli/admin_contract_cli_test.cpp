// `abcictl admin contract deploy` through the real binary against a real anvil.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "support/anvil.hpp"
#include "support/cli_runner.hpp"
#include "support/tools.hpp"

using namespace abci;

namespace {

// A keystore of anvil's first dev account, written by abcictl with a light scrypt cost.
struct DeployerKeystore {
    test::CleanHome home;
    std::string password_file = home.write("password", "correct horse battery staple\n");
    std::string keystore;

    DeployerKeystore() {
        auto r = test::run_abcictl({"keystore", "import", "--dir", home / "keys", "--password-file", password_file,
                                    "--private-key-stdin", "--json"},
                                   test::Anvil::dev_accounts()[0].private_key + "\n",
                                   home.env({{"ABCICTL_KEYSTORE_SCRYPT_N", "1024"}}));
        REQUIRE(r.exit_code == 0);
        keystore = nlohmann::json::parse(r.out).at("path").get<std::string>();
    }
};

}  // namespace

TEST_CASE("admin contract deploy prints the address, transaction and version", "[cli][deploy][anvil]") {
    test::Anvil anvil;
    DeployerKeystore k;
    auto r = test::run_abcictl({"--json", "admin", "contract", "deploy", "--rpc-url", anvil.url(), "--keystore",
                                k.keystore, "--password-file", k.password_file, "--chain-id", "31337"},
                               {}, k.home.env());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto out = nlohmann::json::parse(r.out);
    const std::string address = out.at("address");
    CHECK(out.at("version") == "1.0.0");
    CHECK(out.at("admin") == test::Anvil::dev_accounts()[0].address);
    CHECK(out.at("chainId") == 31337);
    // cast, as an independent client, finds the same contract and transaction.
    CHECK(test::cast({"call", address, "version()(string)", "--rpc-url", anvil.url()}) == "\"1.0.0\"");
    CHECK(test::cast({"receipt", out.at("transactionHash").get<std::string>(), "contractAddress", "--rpc-url",
                      anvil.url()}) == address);

    auto quiet = test::run_abcictl({"-q", "admin", "contract", "deploy", "--rpc-url", anvil.url(), "--keystore",
                                    k.keystore, "--password-file", k.password_file},
                                   {}, k.home.env());
    REQUIRE(quiet.exit_code == 0);
    CHECK(quiet.out.size() == 43);  // one checksummed address and a newline
    CHECK(quiet.out != address + "\n");
}

TEST_CASE("admin contract deploy refuses a wrong password, chain id or dead node with one line", "[cli][deploy][anvil]") {
    test::Anvil anvil;
    DeployerKeystore k;
    const auto wrong_password = k.home.write("wrong", "not it\n");
    auto r = test::run_abcictl({"admin", "contract", "deploy", "--rpc-url", anvil.url(), "--keystore", k.keystore,
                                "--password-file", wrong_password},
                               {}, k.home.env());
    CHECK(r.exit_code == 4);
    CHECK_THAT(r.err, Catch::Contains("wrong password"));

    r = test::run_abcictl({"admin", "contract", "deploy", "--rpc-url", anvil.url(), "--keystore", k.keystore,
                           "--password-file", k.password_file, "--chain-id", "1"},
                          {}, k.home.env());
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("serves chain id 31337, not 1"));

    const std::string dead = anvil.url();
    anvil.stop();
    r = test::run_abcictl({"admin", "contract", "deploy", "--rpc-url", dead, "--keystore", k.keystore,
                           "--password-file", k.password_file},
                          {}, k.home.env());
    CHECK(r.exit_code == 1);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);

    r = test::run_abcictl({"admin", "contract", "deploy", "--keystore", k.keystore}, {}, k.home.env());
    CHECK(r.exit_code == 2);
}

// Issue 12, defect 6: an unfunded deployer made the sender recurse until the
// stack was gone (exit 139). Now: one line naming the deployer, its balance
// and what the deployment needs, the documented exit code, and nothing left
// in flight (the deployer's nonce unused).
TEST_CASE("admin contract deploy from an unfunded deployer fails in one line naming its balance", "[cli][deploy][anvil]") {
    test::Anvil anvil;
    DeployerKeystore k;
    const auto deployer = test::Anvil::dev_accounts()[0].address;
    (void)anvil.rpc("anvil_setBalance", {deployer, "0x0"});
    auto r = test::run_abcictl({"admin", "contract", "deploy", "--rpc-url", anvil.url(), "--keystore", k.keystore,
                                "--password-file", k.password_file},
                               {}, k.home.env());
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    // The progress line, then one line of error.
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 2);
    CHECK(r.err.substr(r.err.find('\n') + 1).rfind("abcictl: the signer ", 0) == 0);
    CHECK(r.err.find(deployer) != std::string::npos);
    CHECK(r.err.find("has 0 wei but this transaction needs up to") != std::string::npos);
    CHECK(anvil.nonce(deployer) == 0);
}
