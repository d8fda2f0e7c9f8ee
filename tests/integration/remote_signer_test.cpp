// The remote JSON-RPC signer (DESIGN.md §10) against a real anvil, whose
// unlocked dev accounts answer eth_signTransaction, and against a hostile
// stand-in in front of it (tests/support/remote_signer_standin.*): what it
// returns is used only when it is the transaction asked for, signed low-s by
// the configured account; the chain is the oracle of what was sent.

#include <catch2/catch.hpp>

#include <future>
#include <memory>
#include <string>
#include <vector>

#include "support/anvil.hpp"
#include "support/chain_node.hpp"
#include "support/chain_server.hpp"
#include "support/cli_runner.hpp"
#include "support/mint_burst.hpp"
#include "support/readiness.hpp"
#include "support/remote_signer_standin.hpp"
#include "support/serve.hpp"
#include "support/tools.hpp"

using namespace abci;

namespace {

using Answer = test::RemoteSignerStandIn::Answer;

// The account the remote signer holds: an anvil dev account other than the
// token's deployer, funded by anvil and granted the minter role here.
const test::DevAccount& remote_account() { return test::Anvil::dev_accounts()[2]; }

void grant_minter(const test::Anvil& anvil, const std::string& contract, const std::string& minter) {
    const auto& admin = test::Anvil::dev_accounts()[0];
    (void)test::cast({"send", contract, "grantRole(bytes32,address)", test::cast({"keccak", "MINTER_ROLE"}), minter,
                      "--private-key", admin.private_key, "--rpc-url", anvil.url()});
}

std::string remote_config(const std::string& url, const std::string& more = "") {
    return "[signer]\nremote = \"" + url + "\"\nremoteAddress = \"" + remote_account().address + "\"\n" + more;
}

// Anvil with the token, the remote account enlisted as a minter, the
// stand-in in front of anvil, and a server signing through the stand-in
// (`more` added to its [signer]); the chain read by cast.
struct RemoteMinting {
    test::Anvil anvil;
    std::string contract;
    test::RemoteSignerStandIn signer{anvil.url(), remote_account().private_key};
    std::unique_ptr<test::Server> server;
    test::Session admin;

    /// `signer_up` false: the server starts while the signer cannot be reached.
    explicit RemoteMinting(const std::string& more = "", bool signer_up = true, test::Anvil::Options node = {})
        : anvil(std::move(node)), contract(test::deploy_token(anvil)) {
        grant_minter(anvil, contract, remote_account().address);
        if (!signer_up) signer.stop();
        server = std::make_unique<test::Server>(test::Server::Options{
            .config = remote_config(signer.url(), more) + "[rate_limit]\nabci = \"0\"\n" +
                      test::chain_entry(test::ChainServer::blockchain_id, test::ChainServer::blockchain_name,
                                        anvil.url(), contract, "testnet")});
        admin = server->login_admin();
    }

    [[nodiscard]] test::HttpResponse mint(const std::string& id) const {
        return server->http().post("/abci/contracts/mint-entity-token", test::entity_mint_body(holder(), "report", id),
                                   admin.token);
    }
    [[nodiscard]] std::string reports_held() const {
        return test::cast({"call", contract, "balanceOf(address,uint256)(uint256)", holder(), "1000", "--rpc-url",
                           anvil.url()});
    }
    [[nodiscard]] std::string nonce() const {
        return test::cast({"nonce", remote_account().address, "--rpc-url", anvil.url()});
    }
    static std::string holder() { return test::Anvil::dev_accounts()[5].address; }
};

}  // namespace

TEST_CASE("remote signer: serve mints through eth_signTransaction on anvil with a bearer token never logged, and the "
          "chain holds the tokens sent by the remote account",
          "[remote][anvil]") {
    test::TempDir dir;
    const std::string token = "remote-signer-bearer-7f3a9c";
    RemoteMinting m("remoteTokenFile = \"" + dir.write("token", token + "\n") + "\"\n");
    CHECK_THAT(m.server->log(), Catch::Contains("signer loaded") && Catch::Contains(remote_account().address));
    for (int i = 1; i <= 3; ++i) {
        const auto r = m.mint("R-" + std::to_string(i));
        INFO(r.body);
        REQUIRE(r.status == 200);
    }
    CHECK(m.signer.authorization() == "Bearer " + token);
    CHECK(m.signer.signatures() == 3);
    CHECK(m.reports_held() == "3");
    CHECK(m.nonce() == "3");
    CHECK(m.server->log().find(token) == std::string::npos);
}

TEST_CASE("remote signer: every answer that is not the transaction asked for, signed low-s by the account, is refused, "
          "naming what differs, and nothing is sent",
          "[remote][anvil]") {
    RemoteMinting m;
    REQUIRE(m.mint("honest-1").status == 200);

    const std::vector<std::pair<Answer, std::string>> hostile{
        {Answer::other_nonce, "whose nonce is 2, not the 1 asked for"},
        {Answer::other_to, "whose to is 0x000000000000000000000000000000000000dEaD, not the " + m.contract},
        {Answer::other_chain_id, "whose chain id is 31338, not the 31337 asked for"},
        {Answer::other_value, "whose value is 1, not the 0 asked for"},
        {Answer::other_data, "whose data differs"},
        {Answer::other_fee_cap, "whose maxFeePerGas is "},
        {Answer::other_gas, "whose gas is "},
        {Answer::high_s, "s is in the upper half of the curve order"},
        {Answer::other_key, ", not by " + remote_account().address},
        {Answer::garbage, "returned a transaction that cannot be sent"},
    };
    int n = 0;
    for (const auto& [answer, says] : hostile) {
        m.signer.answer(answer);
        const auto r = m.mint("hostile-" + std::to_string(++n));
        INFO(says << "\n" << r.body);
        CHECK(r.status == 503);
        CHECK_THAT(r.body, Catch::Contains("the remote signer at " + m.signer.url()) && Catch::Contains(says) &&
                               Catch::Contains("nothing was sent"));
        // Nothing reached the chain nor its pool.
        CHECK(m.nonce() == "1");
        CHECK(test::cast({"rpc", "txpool_status", "--rpc-url", m.anvil.url()}).find("\"pending\":\"0x0\"") !=
              std::string::npos);
    }
    CHECK(m.reports_held() == "1");
    // The nonce each refusal held was given back: the next honest answer is mined with it.
    m.signer.answer(Answer::honest);
    REQUIRE(m.mint("honest-2").status == 200);
    CHECK(m.nonce() == "2");
    CHECK(m.reports_held() == "2");
}

TEST_CASE("remote signer: on a chain without a base fee the signer signs legacy transactions with the gas price "
          "asked, and every answer that differs is refused as strictly",
          "[remote][anvil]") {
    // A base fee of 0 stays 0 under light load: the sender sends legacy
    // transactions (chain/fees.hpp), as on a chain before London, which the
    // token's bytecode (PUSH0) cannot be deployed on.
    RemoteMinting m("", true, {.extra_args = {"--base-fee", "0"}});
    const auto first = m.mint("legacy-1");
    INFO(first.body);
    REQUIRE(first.status == 200);
    const auto hash = first.json["data"]["transactionHash"].get<std::string>();
    const auto sent = nlohmann::json::parse(test::cast({"tx", hash, "--json", "--rpc-url", m.anvil.url()}));
    CHECK(sent["type"] == "0x0");
    CHECK(sent.contains("gasPrice"));
    CHECK_FALSE(sent.contains("maxFeePerGas"));

    const std::vector<std::pair<Answer, std::string>> hostile{
        {Answer::other_nonce, "whose nonce is 2, not the 1 asked for"},
        {Answer::other_chain_id, "whose chain id is 31338, not the 31337 asked for"},
        {Answer::other_fee_cap, "whose gasPrice is "},
        {Answer::other_key, ", not by " + remote_account().address},
    };
    int n = 0;
    for (const auto& [answer, says] : hostile) {
        m.signer.answer(answer);
        const auto r = m.mint("legacy-hostile-" + std::to_string(++n));
        INFO(says << "\n" << r.body);
        CHECK(r.status == 503);
        CHECK_THAT(r.body, Catch::Contains(says) && Catch::Contains("nothing was sent"));
        CHECK(m.nonce() == "1");
    }
    m.signer.answer(Answer::honest);
    REQUIRE(m.mint("legacy-2").status == 200);
    CHECK(m.nonce() == "2");
    CHECK(m.reports_held() == "2");
}

TEST_CASE("remote signer: going down in a burst of concurrent mints fails the mints it did not sign, loses none and "
          "sends none twice",
          "[remote][anvil]") {
    RemoteMinting m;
    constexpr int kMints = 20;
    constexpr unsigned kSigned = 8;
    m.signer.stop_after(kSigned);
    std::vector<std::future<test::HttpResponse>> answers;
    for (int i = 0; i < kMints; ++i)
        answers.push_back(std::async(std::launch::async, [&m, i] { return m.mint("B-" + std::to_string(i)); }));
    const int minted = test::count_minted(answers, "the remote signer at " + m.signer.url() + " cannot be reached");
    // The chain is the oracle: exactly the mints answered 200 are on it, each once.
    CHECK(minted == static_cast<int>(kSigned));
    CHECK(m.reports_held() == std::to_string(minted));
    CHECK(m.nonce() == std::to_string(minted));

    // The signer back: the next mint takes the next nonce, and the server never stopped.
    m.signer.stop();
    m.signer.start();
    REQUIRE(m.mint("after").status == 200);
    CHECK(m.nonce() == std::to_string(minted + 1));
}

TEST_CASE("remote signer: serve starts unready while the signer cannot be reached, its mints answered 503 naming it, "
          "ready once the signer is up, unready while it is down again, and ready after, without a restart",
          "[remote][anvil]") {
    RemoteMinting m("", false);
    const std::string check = "signer:" + std::string(test::ChainServer::blockchain_id);
    const std::string unreachable = "the remote signer at " + m.signer.url() + " cannot be reached";
    CHECK(m.server->http().get("/readyz").status == 503);
    CHECK_THAT(test::readyz_message(*m.server, check), Catch::Contains(unreachable));
    const auto refused = m.mint("down");
    INFO(refused.body);
    CHECK(refused.status == 503);
    CHECK_THAT(refused.body, Catch::Contains(unreachable));

    m.signer.start();
    REQUIRE(test::readyz_turns(*m.server, true));
    REQUIRE(m.mint("up").status == 200);

    m.signer.stop();
    REQUIRE(test::readyz_turns(*m.server, false));
    CHECK_THAT(test::readyz_message(*m.server, check), Catch::Contains(unreachable));
    m.signer.start();
    REQUIRE(test::readyz_turns(*m.server, true));
    REQUIRE(m.mint("again").status == 200);
    // The chain is the oracle: the two mints signed, the one refused sent nothing.
    CHECK(m.nonce() == "2");
    CHECK(m.reports_held() == "2");
}

TEST_CASE("remote signer: serve refuses to start when the signer answers without remoteAddress, naming it, and "
          "abcictl signer address prints the address it holds, or fails naming a signer it cannot reach",
          "[remote][anvil]") {
    test::Anvil anvil;
    test::TempDir dir;
    const auto run_with = [&](const std::string& url, const std::string& address, std::vector<std::string> args) {
        args.insert(args.end(), {"--config", dir.write("abcictl.toml", "[signer]\nremote = \"" + url +
                                                                           "\"\nremoteAddress = \"" + address + "\"\n" +
                                                                           test::chain_entry("devnet", "Anvil devnet",
                                                                                             anvil.url(), "", "testnet"))});
        return test::run_abcictl(args, {}, {{"ABCI_DATA_DIR", dir / "data"}});
    };
    const std::vector<std::string> serve{"serve", "--listen", "127.0.0.1:0"};
    const std::string stranger = "0x000000000000000000000000000000000000bEEF";
    const auto not_held = run_with(anvil.url(), stranger, serve);
    CHECK(not_held.exit_code != 0);
    CHECK_THAT(not_held.err, Catch::Contains("does not hold signer.remoteAddress " + stranger));

    const auto address = run_with(anvil.url(), remote_account().address, {"-q", "signer", "address"});
    INFO(address.err);
    CHECK(address.exit_code == 0);
    CHECK(address.out == remote_account().address + "\n");

    // serve starts unready then; the command's address would be unverified.
    test::RemoteSignerStandIn gone(anvil.url(), remote_account().private_key);
    const std::string gone_url = gone.url();
    gone.stop();
    const auto unreachable = run_with(gone_url, remote_account().address, {"-q", "signer", "address"});
    CHECK(unreachable.exit_code == 1);
    CHECK(unreachable.out.empty());
    CHECK_THAT(unreachable.err, Catch::Contains("the remote signer at " + gone_url + " cannot be reached"));
}
