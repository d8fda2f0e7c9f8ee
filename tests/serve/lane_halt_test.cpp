// The signer's key used by something that does not journal here (another
// deployment, a script): the lane halts, at its next take or within seconds
// while its owner sends, rather than send beside it, says why in health and
// in every mint's refusal, and sends again once an operator resumes it
// (`abcictl admin lanes resume`).

#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "core/eth/address.hpp"

namespace abci::test::lane_halt_tests {

// A server sending for devnet, its admin, and entity mints to one holder.
struct Lane {
    ChainServer chain;
    Session admin = chain.server().login_admin();
    std::string holder = Anvil::dev_accounts()[5].address;
    std::string signer = eth::Address::parse(ChainServer::signer()).lower();
    std::string lane = std::string(ChainServer::blockchain_id) + "/" + signer;

    [[nodiscard]] HttpResponse mint(const std::string& key) const {
        return chain.http().post("/abci/contracts/mint-entity-token", entity_mint_body(holder, "report", key),
                                 admin.token, {{"Idempotency-Key", key}});
    }
    // The key sends something of its own (anvil signs for its dev accounts),
    // mined when this returns: anvil answers before it mines.
    void send_beside() const {
        const auto hash = chain.node_rpc("eth_sendTransaction",
                                         nlohmann::json::array({{{"from", signer}, {"to", holder}, {"value", "0x1"}}}));
        REQUIRE(eventually([&] { return !chain.node_rpc("eth_getTransactionReceipt", nlohmann::json::array({hash})).is_null(); },
                           std::chrono::seconds(10)));
    }
};

TEST_CASE("lanes: a signer nonce the journal does not account for halts the lane until an operator resumes it",
          "[serve][anvil][lanes]") {
    Lane l;
    auto& chain = l.chain;
    auto& server = chain.server();
    const auto& admin = l.admin;
    const auto& lane = l.lane;
    const auto mint = [&](const std::string& key) { return l.mint(key); };
    REQUIRE(mint("before").status == 200);
    const auto start_nonce = chain.nonce(ChainServer::signer());

    // While the server is down, the key sends something of its own.
    server.stop();
    l.send_beside();
    REQUIRE(chain.nonce(ChainServer::signer()) == start_nonce + 1);
    server.restart();

    const auto refused = mint("during");
    INFO(refused.body);
    require_error(refused, 503, "unavailable");
    CHECK_THAT(refused.json["message"].get<std::string>(),
               Catch::Contains("halted") && Catch::Contains("another program or server uses its key") &&
                   Catch::Contains("abcictl admin lanes resume " + lane));
    const auto health = chain.http().get("/abci/health", admin.token);
    INFO(health.body);
    CHECK(health.json["checks"]["lane:devnet"]["healthy"] == false);
    CHECK_THAT(health.json["checks"]["lane:devnet"]["message"].get<std::string>(), Catch::Contains("the lane is halted"));
    CHECK_THAT(server.log(), Catch::Contains("not sending: the lane is halted"));
    const auto listed = server.admin_cli({"admin", "lanes", "--json"});
    REQUIRE(listed.exit_code == 0);
    CHECK_THAT(nlohmann::json::parse(listed.out)[0]["halted"].get<std::string>(), Catch::Contains("nonce is"));
    CHECK(chain.nonce(ChainServer::signer()) == start_nonce + 1);  // nothing sent beside the other user

    const auto resumed = server.admin_cli({"admin", "lanes", "resume", lane});
    INFO(resumed.out << resumed.err);
    REQUIRE(resumed.exit_code == 0);
    const auto again = server.admin_cli({"admin", "lanes", "resume", lane});
    CHECK(again.exit_code != 0);
    CHECK_THAT(again.err, Catch::Contains("is not halted"));
    CHECK_THAT(server.admin_cli({"admin", "lanes", "resume", "devnet/0x0"}).err, Catch::Contains("there is no lane"));

    HttpResponse after;
    REQUIRE(eventually([&] { return (after = mint("during")).status != 503; }));
    INFO(after.body);
    CHECK(after.status == 200);
    CHECK(chain.nonce(ChainServer::signer()) == start_nonce + 2);

    // Restarted, the server takes the lane again without a halt: the chain and the journal agree.
    server.restart();
    CHECK(mint("after restart").status == 200);
}

TEST_CASE("lanes: the signer's key used elsewhere while the server sends halts the lane within seconds",
          "[serve][anvil][lanes]") {
    Lane l;
    auto& chain = l.chain;
    REQUIRE(l.mint("before").status == 200);
    const auto start_nonce = chain.nonce(ChainServer::signer());

    l.send_beside();
    HttpResponse health;
    REQUIRE(eventually(
        [&] {
            health = chain.http().get("/abci/health", l.admin.token);
            return health.json["checks"]["lane:devnet"]["healthy"] == false;
        },
        std::chrono::seconds(15)));
    INFO(health.body);
    CHECK_THAT(health.json["checks"]["lane:devnet"]["message"].get<std::string>(),
               Catch::Contains("the lane is halted") && Catch::Contains("another program or server uses its key"));
    require_error(l.mint("during"), 503, "unavailable");
    CHECK(chain.nonce(ChainServer::signer()) == start_nonce + 1);  // nothing sent beside the other user
}

}  // namespace abci::test::lane_halt_tests
