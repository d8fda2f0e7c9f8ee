// The PKCS#11 signer against a real SoftHSM2 token (tests/support/softhsm.*),
// with keys made independently by OpenSC's pkcs11-tool, and signatures
// checked by libsecp256k1's recovery and by cast (foundry): DESIGN.md §10.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/signer.hpp"
#include "core/signer/pkcs11.hpp"
#include "support/anvil.hpp"
#include "support/chain_node.hpp"
#include "support/chain_server.hpp"
#include "support/cli_runner.hpp"
#include "support/mint_burst.hpp"
#include "support/error_kind.hpp"
#include "support/eventually.hpp"
#include "support/random.hpp"
#include "support/readiness.hpp"
#include "support/softhsm.hpp"
#include "support/tools.hpp"

using namespace abci;

namespace {

signer::Pkcs11Config config_for(const test::SoftHsm& hsm, const std::string& key, std::string pin = test::SoftHsm::pin()) {
    return {test::SoftHsm::module(), hsm.token(), key, std::move(pin)};
}

// How many signatures the main test asks for: a few hundred in the test
// command, 10,000 in `make pkcs11-long` (ABCI_PKCS11_SIGNATURES).
int signature_count() {
    const char* n = std::getenv("ABCI_PKCS11_SIGNATURES");
    return n ? std::atoi(n) : 500;
}

eth::Hash32 random_digest(test::Random& random) {
    const eth::Bytes bytes = random.bytes(32);
    eth::Hash32 digest{};
    std::copy(bytes.begin(), bytes.end(), digest.begin());
    return digest;
}

// The error a call throws, for checking its message too.
template <class F>
Error error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    FAIL("no abci::Error was thrown");
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("pkcs11 signer: a key pkcs11-tool made on SoftHSM2 signs random digests, every one low-s and "
          "recovering its address, cast verifying a sample", "[pkcs11]") {
    test::SoftHsm hsm;
    hsm.generate_with_pkcs11_tool("minter", "a1b2");
    const auto signer = signer::open_pkcs11_signer(config_for(hsm, "minter"));
    // The same key found by its CKA_ID.
    CHECK(signer::open_pkcs11_signer(config_for(hsm, "a1b2"))->address() == signer->address());

    test::Random random(36);
    const int n = signature_count();
    for (int i = 0; i < n; ++i) {
        const eth::Hash32 digest = random_digest(random);
        const eth::Signature sig = signer->sign(digest);
        INFO("digest " << eth::to_hex(digest) << " signature " << sig.to_hex());
        REQUIRE(eth::is_low_s(sig));
        REQUIRE(eth::recover_address(digest, sig) == signer->address());
    }
    // cast recovers the address from personal_sign signatures on its own.
    for (int i = 0; i < 5; ++i) {
        const std::string message = "abcictl pkcs11 sample " + std::to_string(i);
        const eth::Signature sig = signer->sign_message(eth::as_bytes(message));
        (void)test::cast({"wallet", "verify", "--address", signer->address().checksummed(), message, sig.to_hex()});
    }
}

TEST_CASE("pkcs11 signer: many threads sign at once through the session pool", "[pkcs11]") {
    test::SoftHsm hsm;
    hsm.generate_with_pkcs11_tool("minter", "01");
    const auto signer = signer::open_pkcs11_signer(config_for(hsm, "minter"));
    std::vector<std::future<bool>> results;
    for (int t = 0; t < 8; ++t)
        results.push_back(std::async(std::launch::async, [&signer, t] {
            for (int i = 0; i < 25; ++i) {
                const eth::Hash32 digest = eth::keccak256("thread " + std::to_string(t) + " " + std::to_string(i));
                if (eth::recover_address(digest, signer->sign(digest)) != signer->address()) return false;
            }
            return true;
        }));
    for (auto& r : results) CHECK(r.get());
}

TEST_CASE("pkcs11 signer: a wrong PIN stops start-up and is tried once only", "[pkcs11]") {
    test::SoftHsm hsm;
    hsm.generate_with_pkcs11_tool("minter", "01");
    // OpenSC's pkcs11-spy between us and SoftHSM2 logs every call the module gets.
    // It leaks what its C_Initialize allocates, which LeakSanitizer reports once
    // it is unloaded: the sanitized tree asks SoftHSM2 directly and counts nothing.
    const bool spied = !test::sanitized_build();
    test::TempDir logs;
    const std::string spy_log = logs / "spy.log";
    signer::Pkcs11Config config = config_for(hsm, "minter", "000000");
    if (spied) {
        ::setenv("PKCS11SPY", test::SoftHsm::module().c_str(), 1);
        ::setenv("PKCS11SPY_OUTPUT", spy_log.c_str(), 1);
        config.module = "/usr/lib/x86_64-linux-gnu/pkcs11/pkcs11-spy.so";
    }
    const Error e = error_of([&] { (void)signer::open_pkcs11_signer(config); });
    ::unsetenv("PKCS11SPY");
    ::unsetenv("PKCS11SPY_OUTPUT");
    CHECK(e.kind() == ErrorKind::unauthenticated);
    CHECK_THAT(e.what(), Catch::Contains("wrong PIN") && Catch::Contains("'abci'") && Catch::Contains("not tried again"));
    if (!spied) return;
    std::ifstream log(spy_log);
    std::stringstream text;
    text << log.rdbuf();
    std::size_t logins = 0;
    for (std::size_t at = 0; (at = text.str().find("C_Login", at)) != std::string::npos; ++at) ++logins;
    CHECK(logins == 1);
}

TEST_CASE("pkcs11 signer: a missing module, token or key and a key of another curve are start-up errors naming them",
          "[pkcs11]") {
    test::SoftHsm hsm;
    hsm.generate_with_pkcs11_tool("p256", "02", "EC:prime256v1");

    signer::Pkcs11Config missing_module = config_for(hsm, "p256");
    missing_module.module = "/usr/lib/no-such-pkcs11.so";
    const Error no_module = error_of([&] { (void)signer::open_pkcs11_signer(missing_module); });
    CHECK(no_module.kind() == ErrorKind::not_found);
    CHECK_THAT(no_module.what(), Catch::Contains("/usr/lib/no-such-pkcs11.so") && Catch::Contains("pkcs11Module"));

    signer::Pkcs11Config missing_token = config_for(hsm, "p256");
    missing_token.token = "elsewhere";
    const Error no_token = error_of([&] { (void)signer::open_pkcs11_signer(missing_token); });
    CHECK(no_token.kind() == ErrorKind::not_found);
    CHECK_THAT(no_token.what(), Catch::Contains("'elsewhere'") && Catch::Contains("'abci'"));

    const Error no_key = error_of([&] { (void)signer::open_pkcs11_signer(config_for(hsm, "minter")); });
    CHECK(no_key.kind() == ErrorKind::not_found);
    CHECK_THAT(no_key.what(), Catch::Contains("'minter'") && Catch::Contains("signer keygen"));

    const Error p256 = error_of([&] { (void)signer::open_pkcs11_signer(config_for(hsm, "p256")); });
    CHECK(p256.kind() == ErrorKind::invalid_input);
    CHECK_THAT(p256.what(), Catch::Contains("not on secp256k1") && Catch::Contains("06082a8648ce3d030107"));
}

TEST_CASE("pkcs11 signer: generated keys are secp256k1, sensitive and never extractable, and sign", "[pkcs11]") {
    test::SoftHsm hsm;
    const eth::Address address = signer::generate_pkcs11_key(config_for(hsm, "made-here"));
    const auto signer = signer::open_pkcs11_signer(config_for(hsm, "made-here"));
    CHECK(signer->address() == address);
    const eth::Hash32 digest = eth::keccak256("made here");
    CHECK(eth::recover_address(digest, signer->sign(digest)) == address);
    // What OpenSC reads of the two halves.
    const auto private_half = hsm.pkcs11_tool({"--list-objects", "--type", "privkey"});
    CHECK_THAT(private_half.out, Catch::Contains("made-here") && Catch::Contains("Usage:      sign\n") &&
                                     Catch::Contains("always sensitive, never extractable"));
    const auto public_half = hsm.pkcs11_tool({"--list-objects", "--type", "pubkey"});
    CHECK_THAT(public_half.out, Catch::Contains("made-here") && Catch::Contains("EC_PARAMS:  06052b8104000a"));
    // A second key under the same label would make the label ambiguous.
    CHECK(test::error_kind([&] { (void)signer::generate_pkcs11_key(config_for(hsm, "made-here")); }) ==
          ErrorKind::conflict);
}

TEST_CASE("pkcs11 signer: a token that goes away mid-run fails signing with a clear error", "[pkcs11]") {
    test::SoftHsm hsm;
    hsm.generate_with_pkcs11_tool("minter", "01");
    const auto signer = signer::open_pkcs11_signer(config_for(hsm, "minter"));
    const eth::Hash32 digest = eth::keccak256("before");
    CHECK(eth::recover_address(digest, signer->sign(digest)) == signer->address());
    std::filesystem::remove_all(hsm.token_dir());
    const Error gone = error_of([&] { (void)signer->sign(eth::keccak256("after")); });
    CHECK(gone.kind() == ErrorKind::unavailable);
    CHECK_THAT(gone.what(), Catch::Contains("'abci'"));
}

namespace {

// A devnet whose token lets `minter` mint, and gas for it: what an operator
// does for a new signer (its admin grants the role, someone funds it).
void enlist_minter(const test::Anvil& anvil, const std::string& contract, const std::string& minter) {
    const auto& admin = test::Anvil::dev_accounts()[0];
    const std::string role = test::cast({"keccak", "MINTER_ROLE"});
    (void)test::cast({"send", contract, "grantRole(bytes32,address)", role, minter, "--private-key", admin.private_key,
                      "--rpc-url", anvil.url()});
    (void)test::cast({"send", minter, "--value", "10ether", "--private-key", admin.private_key, "--rpc-url", anvil.url()});
}

std::string signer_config(const test::SoftHsm& hsm, const std::string& pin_file) {
    return "[signer]\npkcs11Module = \"" + test::SoftHsm::module() + "\"\npkcs11Token = \"" + hsm.token() +
           "\"\npkcs11Key = \"minter\"\npkcs11PinFile = \"" + pin_file + "\"\n";
}

// A token whose key pkcs11-tool made, enlisted as a minter of anvil's token,
// and a server minting with it; the chain read by cast.
struct TokenMinting {
    test::SoftHsm hsm;
    std::string minter;
    test::Anvil anvil;
    std::string contract;
    std::unique_ptr<test::Server> server;
    test::Session admin;
    std::string holder = test::Anvil::dev_accounts()[5].address;

    TokenMinting() {
        hsm.generate_with_pkcs11_tool("minter", "01");
        minter = signer::open_pkcs11_signer(config_for(hsm, "minter"))->address().checksummed();
        contract = test::deploy_token(anvil);
        enlist_minter(anvil, contract, minter);
        server = std::make_unique<test::Server>(test::Server::Options{
            .config = signer_config(hsm, hsm.pin_file()) + "[rate_limit]\nabci = \"0\"\n" +
                      test::chain_entry(test::ChainServer::blockchain_id, test::ChainServer::blockchain_name,
                                        anvil.url(), contract, "testnet"),
            .env = hsm.env()});
        admin = server->login_admin();
    }

    [[nodiscard]] test::HttpResponse mint(const std::string& id) const {
        return server->http().post("/abci/contracts/mint-entity-token", test::entity_mint_body(holder, "report", id),
                                   admin.token);
    }
    [[nodiscard]] std::string reports_held() const {
        return test::cast({"call", contract, "balanceOf(address,uint256)(uint256)", holder, "1000", "--rpc-url",
                           anvil.url()});
    }
    [[nodiscard]] std::string nonce() const { return test::cast({"nonce", minter, "--rpc-url", anvil.url()}); }
};

}  // namespace

TEST_CASE("pkcs11 signer: serve mints through a SoftHSM2 token, the chain holds the tokens sent by the token's key, and "
          "once the token is gone mints fail and nothing is sent",
          "[pkcs11][anvil]") {
    TokenMinting m;
    CHECK_THAT(m.server->log(), Catch::Contains("signer loaded") && Catch::Contains(m.minter));
    for (int i = 1; i <= 3; ++i) {
        const auto r = m.mint("R-" + std::to_string(i));
        INFO(r.body);
        REQUIRE(r.status == 200);
    }
    // The chain is the oracle: three tokens, and three transactions from the token's key.
    CHECK(m.reports_held() == "3");
    CHECK(m.nonce() == "3");

    // The token goes away: the next mints fail saying so, nothing more is sent, and the server stays up.
    std::filesystem::remove_all(m.hsm.token_dir());
    for (int i = 4; i <= 5; ++i) {
        const auto r = m.mint("R-" + std::to_string(i));
        INFO(r.body);
        CHECK(r.status == 503);
        CHECK_THAT(r.body, Catch::Contains("PKCS#11 token 'abci'"));
    }
    CHECK(m.nonce() == "3");
    CHECK(m.reports_held() == "3");
}

TEST_CASE("pkcs11 signer: the token going away in a burst of concurrent mints fails the mints it did not sign, loses "
          "none and sends none twice",
          "[pkcs11][anvil]") {
    TokenMinting m;
    // Mints come one every 30 ms; the token goes once a few are on chain, while others are being signed.
    std::vector<std::future<test::HttpResponse>> answers;
    auto remover = std::async(std::launch::async, [&] {
        CHECK(test::eventually([&] { return std::stoi(m.nonce()) >= 3; }));
        std::filesystem::remove_all(m.hsm.token_dir());
    });
    for (int i = 0; i < 20; ++i) {
        answers.push_back(std::async(std::launch::async, [&m, i] { return m.mint("B-" + std::to_string(i)); }));
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    remover.get();
    const int minted = test::count_minted(answers, "PKCS#11 token 'abci'");
    // The chain is the oracle: exactly the mints answered 200 are on it, each once.
    CHECK(minted >= 3);
    CHECK(minted < 20);
    CHECK(m.reports_held() == std::to_string(minted));
    CHECK(m.nonce() == std::to_string(minted));
}

TEST_CASE("pkcs11 signer: /readyz is false while the token is away, naming it, and true again once it is back, "
          "without a restart",
          "[pkcs11][anvil]") {
    TokenMinting m;
    REQUIRE(test::readyz_turns(*m.server, true));
    const std::string away = m.hsm.token_dir() + ".away";
    std::filesystem::rename(m.hsm.token_dir(), away);
    REQUIRE(test::readyz_turns(*m.server, false));
    CHECK_THAT(test::readyz_message(*m.server, "signer:" + std::string(test::ChainServer::blockchain_id)),
               Catch::Contains("PKCS#11 token 'abci'"));
    const auto refused = m.mint("away");
    INFO(refused.body);
    CHECK(refused.status == 503);

    std::filesystem::rename(away, m.hsm.token_dir());
    REQUIRE(test::readyz_turns(*m.server, true));
    const auto r = m.mint("back");
    INFO(r.body);
    REQUIRE(r.status == 200);
    // The chain is the oracle: the mint refused while the token was away sent nothing.
    CHECK(m.nonce() == "1");
    CHECK(m.reports_held() == "1");
}

TEST_CASE("pkcs11 signer: serve with a wrong PIN refuses to start, naming the token", "[pkcs11]") {
    test::SoftHsm hsm;
    hsm.generate_with_pkcs11_tool("minter", "01");
    test::Anvil anvil;
    test::TempDir dir;
    const std::string config = dir.write(
        "abcictl.toml", signer_config(hsm, dir.write("wrong-pin", "999999\n")) +
                            test::chain_entry("devnet", "Anvil devnet", anvil.url(), "", "testnet"));
    auto env = hsm.env();
    env["ABCI_DATA_DIR"] = dir / "data";
    const auto r = test::run_abcictl({"serve", "--config", config, "--listen", "127.0.0.1:0"}, {}, env);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains("wrong PIN for the PKCS#11 token 'abci'"));
}

TEST_CASE("pkcs11 signer: abcictl signer keygen makes a key in the token with the PIN from a file, the environment "
          "or a prompt without echo, and signer address prints what serve would sign with",
          "[pkcs11]") {
    test::SoftHsm hsm;
    const std::vector<std::string> keygen = {"-q", "signer", "keygen", "--pkcs11-module", test::SoftHsm::module(),
                                             "--token", hsm.token(), "--label"};
    const auto with = [&](std::vector<std::string> args, const std::vector<std::string>& more) {
        args.insert(args.end(), more.begin(), more.end());
        return args;
    };
    const auto from_file = test::run_abcictl(with(keygen, {"minter", "--pin-file", hsm.pin_file()}), {}, hsm.env());
    INFO(from_file.err);
    REQUIRE(from_file.exit_code == 0);
    const std::string address = from_file.out.substr(0, from_file.out.find('\n'));
    CHECK(eth::Address::parse(address).checksummed() == address);

    auto env = hsm.env();
    env["ABCI_SIGNER_PIN"] = test::SoftHsm::pin();
    const auto from_env = test::run_abcictl(with(keygen, {"second"}), {}, env);
    CHECK(from_env.exit_code == 0);
    const auto prompted = test::run_abcictl_on_terminal(with(keygen, {"third"}), {test::SoftHsm::pin()}, hsm.env());
    CHECK(prompted.exit_code == 0);
    CHECK(prompted.prompts == 1);
    CHECK_FALSE(prompted.echoed_at_prompt);
    CHECK(prompted.transcript.find(test::SoftHsm::pin()) == std::string::npos);

    // Three keys, three addresses; each opens and signs in this process.
    std::set<std::string> addresses;
    for (const std::string label : {"minter", "second", "third"}) {
        const auto signer = signer::open_pkcs11_signer(config_for(hsm, label));
        const eth::Hash32 digest = eth::keccak256(label);
        CHECK(eth::recover_address(digest, signer->sign(digest)) == signer->address());
        addresses.insert(signer->address().checksummed());
    }
    CHECK(addresses.size() == 3);
    CHECK(addresses.contains(address));

    // The same label twice, or a wrong PIN: one line saying what is wrong.
    const auto again = test::run_abcictl(with(keygen, {"minter", "--pin-file", hsm.pin_file()}), {}, hsm.env());
    CHECK(again.exit_code != 0);
    CHECK_THAT(again.err, Catch::Contains("already holds a key labelled 'minter'"));
    test::TempDir dir;
    const auto wrong = test::run_abcictl(with(keygen, {"fourth", "--pin-file", dir.write("pin", "000000\n")}), {},
                                         hsm.env());
    CHECK(wrong.exit_code != 0);
    CHECK_THAT(wrong.err, Catch::Contains("wrong PIN for the PKCS#11 token 'abci'"));
    CHECK(std::count(wrong.err.begin(), wrong.err.end(), '\n') == 1);

    const std::string config = dir.write("abcictl.toml", signer_config(hsm, hsm.pin_file()));
    const auto shown = test::run_abcictl({"-q", "signer", "address", "--config", config}, {}, hsm.env());
    INFO(shown.err);
    CHECK(shown.exit_code == 0);
    CHECK(shown.out == address + "\n");
}
