// Issue 14, items 10, 13 and 22 (server side): a refusal says what to do
// next; a 429 says how the limit is changed; a 401 names its scheme; a mint's
// log line names its transaction.

#include <chrono>
#include <thread>

#include "serve/expect.hpp"
#include "support/anvil.hpp"
#include "support/chain_server.hpp"

namespace abci::test::operator_message_tests {
namespace {

bool contains(const HttpResponse& r, const std::string& text) { return r.body.find(text) != std::string::npos; }

}  // namespace

TEST_CASE("refusals name the next step and keep the node's own words out of the message", "[serve][messages]") {
    ChainServer chain;
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin().token;
    const auto wallet = Anvil::dev_accounts()[3].address;

    // 401: the scheme, and whether the token was the problem.
    const auto missing = http.get("/abci/health");
    CHECK(missing.status == 401);
    CHECK(missing.header("WWW-Authenticate") == "Bearer realm=\"abci\"");
    const auto invalid = http.get("/api/admin/users", "not-a-token");
    CHECK(invalid.status == 401);
    CHECK(invalid.header("WWW-Authenticate") == "Bearer realm=\"abci\", error=\"invalid_token\"");

    const auto unknown = http.post("/abci/contracts/mint-role-token", role_mint_body(wallet, "producer", "devnett"), admin);
    CHECK(unknown.status == 404);
    CHECK(contains(unknown, "unknown blockchain 'devnett'; did you mean 'devnet'?"));
    CHECK(contains(unknown, "the configured ones are in `abcictl chains list` (GET /abci/blockchains/list)"));

    const auto unlinked = http.post("/abci/contracts/mint-role-token", role_mint_body(wallet, "producer"), admin);
    CHECK(unlinked.status == 422);
    // On the store this server uses: an admin running it elsewhere would link the wallet where nobody looks.
    CHECK(contains(unlinked, "link it with `abcictl admin user link-wallet --email EMAIL --address " + wallet +
                                 " --data-dir " + server.data_dir() + "`"));

    // A mint's request line in the log names its transaction.
    server.link_wallet(Server::admin_email, wallet);
    const auto minted = http.post("/abci/contracts/mint-role-token", role_mint_body(wallet, "producer"), admin);
    REQUIRE(minted.status == 200);
    const auto hash = minted.json["data"]["transactionHash"].get<std::string>();
    // The request's line is written once its answer has gone out: wait for it.
    const auto logged = "\"transaction_hash\":\"" + hash + "\"";
    auto log = server.log();
    for (int i = 0; i < 200 && log.find(logged) == std::string::npos; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        log = server.log();
    }
    const auto line_start = log.rfind('\n', log.find("\"transaction_hash\":\"" + hash + "\"")) + 1;
    INFO(log);
    CHECK(log.find("\"transaction_hash\":\"" + hash + "\"") != std::string::npos);
    CHECK(log.substr(line_start, log.find('\n', line_start) - line_start).find("\"path\":\"/abci/contracts/mint-role-token\"") !=
          std::string::npos);

    // An empty signer: the node's "Insufficient funds … (-32003)" becomes what to do.
    chain.node_rpc("anvil_setBalance", {ChainServer::signer(), "0x0"});
    const auto broke = http.post("/abci/contracts/mint-role-token", role_mint_body(wallet, "verifier"), admin);
    INFO(broke.body);
    CHECK(broke.status == 503);
    CHECK(contains(broke, "the signer " + ChainServer::signer() + " has 0 wei"));
    CHECK(contains(broke, "fund the signer and try again"));
    CHECK_FALSE(contains(broke, "-32003"));
    CHECK_FALSE(contains(broke, "Insufficient funds"));

    // A node that does not answer: plain words, not the RPC client's batch label and retries.
    chain.anvil().stop();
    const auto down = http.post("/abci/contracts/mint-role-token", role_mint_body(wallet, "verifier"), admin);
    INFO(down.body);
    CHECK(down.status == 503);
    CHECK(contains(down, "the node of blockchain 'devnet' ("));
    CHECK(contains(down, "did not answer, so nothing was sent"));
    CHECK_FALSE(contains(down, "batch of"));
    CHECK_FALSE(contains(down, "retries exhausted"));
}

TEST_CASE("a 429 says which setting sets the limit and how", "[serve][messages]") {
    Server server(Server::Options{"", 0, {{"ABCI_RATE_LIMIT", "2/60"}}});
    const auto http = server.http();
    HttpResponse limited;
    for (int i = 0; i < 3; ++i) limited = http.get("/abci/health");
    INFO(limited.body);
    REQUIRE(limited.status == 429);
    CHECK(limited.json["details"] == nlohmann::json{{"limit", 2}, {"windowSeconds", 60}, {"setting", "rate_limit.abci"},
                                                   {"environment", "ABCI_RATE_LIMIT"}});
    CHECK(contains(limited, "rate_limit.abci in its config file or ABCI_RATE_LIMIT"));
    CHECK(limited.has_header("Retry-After"));
}

}  // namespace abci::test::operator_message_tests
