// GET /abci/contracts/token-balance (spec 4.3) and /abci/tokens/user-balance
// (spec 4.7, balance entries 2.5) against a real chain: after mints, and after
// a transfer the server took no part in (cast send), for both wallets.

#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/tools.hpp"

namespace abci::test::abci_balance_tests {
namespace {

std::string balance_query(const std::string& address, const std::string& rest = {}) {
    return "userAddress=" + address + "&blockchainId=" + ChainServer::blockchain_id + rest;
}

nlohmann::json blockchain_ref() { return {{"name", ChainServer::blockchain_name}, {"chainId", 31337}}; }

// The 200 answer of spec 4.3 for one token; returns its data.
nlohmann::json token_balance(const ChainServer& chain, const std::string& token, const std::string& address,
                             std::uint64_t token_id) {
    const auto r = chain.http().get(
        "/abci/contracts/token-balance?" + balance_query(address, "&tokenId=" + std::to_string(token_id)), token);
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 200);
    REQUIRE(has_exactly_keys(r.json, {"success", "data", "metadata"}));
    CHECK(r.json["success"] == true);
    CHECK(r.json["metadata"] == nlohmann::json{{"blockchain", blockchain_ref()}, {"contractAddress", chain.contract()}});
    const auto& data = r.json["data"];
    REQUIRE(has_exactly_keys(data, {"userAddress", "tokenId", "balance", "tokenType", "tokenName", "isSoulbound",
                                    "mintedAt", "lastUpdated"}));
    CHECK(data["userAddress"] == address);
    CHECK(data["tokenId"] == token_id);
    CHECK(is_decimal_string(data["balance"]));
    CHECK(data["balance"] == chain.chain_balance(address, token_id));
    const bool role = token_id >= 10000;
    CHECK(data["tokenType"] == (role ? "role" : "entity"));
    CHECK(data["isSoulbound"] == role);
    CHECK(data["tokenName"].is_string());
    CHECK((data["mintedAt"].is_null() || is_utc_timestamp(data["mintedAt"])));
    // Null only for a wallet that never held the token (nothing was ever recorded).
    CHECK((is_utc_timestamp(data["lastUpdated"]) || (data["lastUpdated"].is_null() && data["balance"] == "0")));
    return data;
}

// The 200 answer of spec 4.7; returns the balances by token id.
std::map<std::uint64_t, nlohmann::json> user_balance(const ChainServer& chain, const std::string& token,
                                                     const std::string& address) {
    const auto r = chain.http().get("/abci/tokens/user-balance?" + balance_query(address), token);
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 200);
    REQUIRE(has_exactly_keys(r.json, {"success", "data", "metadata"}));
    CHECK(r.json["success"] == true);
    const auto& metadata = r.json["metadata"];
    REQUIRE(has_exactly_keys(metadata, {"blockchain", "contractAddress", "lastSynced"}));
    CHECK(metadata["blockchain"] == blockchain_ref());
    CHECK(metadata["contractAddress"] == chain.contract());
    CHECK(is_utc_timestamp(metadata["lastSynced"]));
    const auto& data = r.json["data"];
    REQUIRE(has_exactly_keys(data, {"userAddress", "totalTokens", "balances"}));
    CHECK(data["userAddress"] == address);
    REQUIRE(data["balances"].is_array());
    CHECK(data["totalTokens"].is_number_integer());
    CHECK(data["totalTokens"] == data["balances"].size());
    std::map<std::uint64_t, nlohmann::json> out;
    for (const auto& entry : data["balances"]) {
        INFO(entry.dump());
        const bool role = entry.value("tokenType", "") == "role";
        REQUIRE(has_exactly_keys(entry, {"tokenId", "tokenType", "category", "balance", "name", "isSoulbound",
                                         role ? "mintedAt" : "lastMinted"}));
        REQUIRE(entry["tokenId"].is_number_integer());
        const auto id = entry["tokenId"].get<std::uint64_t>();
        CHECK(entry["tokenType"] == (id >= 10000 ? "role" : "entity"));
        CHECK(entry["category"].is_string());
        CHECK(entry["name"].is_string());
        CHECK(is_decimal_string(entry["balance"]));
        CHECK(entry["balance"] == chain.chain_balance(address, id));
        CHECK(entry["isSoulbound"] == role);
        // Null for tokens that came by transfer: the server minted none to this wallet.
        CHECK((is_utc_timestamp(entry[role ? "mintedAt" : "lastMinted"]) || entry[role ? "mintedAt" : "lastMinted"].is_null()));
        CHECK(out.emplace(id, entry).second);
    }
    return out;
}

}  // namespace

TEST_CASE("abci balances: token-balance and user-balance after mints and after a transfer outside the server",
          "[serve][abci]") {
    // Every read asks the node for its head: the transfer shows at once.
    ChainServer chain(ChainServer::Options{.devnet_keys = "headMaxAgeMs = 0\n"});
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    const auto& holder = Anvil::dev_accounts()[5];
    const auto& receiver = Anvil::dev_accounts()[6];
    server.add_user("producer@example.org", "farmer", "producer pass 1234");
    server.link_wallet("producer@example.org", holder.address);
    REQUIRE(http.post("/abci/contracts/mint-role-token", role_mint_body(holder.address, "producer"), admin.token)
                .status == 200);
    REQUIRE(http.post("/abci/contracts/mint-entity-token", entity_mint_body(holder.address, "report", "R-1", 3),
                      admin.token)
                .status == 200);

    const auto role = token_balance(chain, admin.token, holder.address, 10000);
    CHECK(role["balance"] == "1");
    CHECK(role["tokenName"] == "Producer Role");
    CHECK(is_utc_timestamp(role["mintedAt"]));
    const auto report = token_balance(chain, admin.token, holder.address, 1000);
    CHECK(report["balance"] == "3");
    CHECK(report["tokenName"] == "Report");
    CHECK(token_balance(chain, admin.token, holder.address, 1300)["balance"] == "0");

    auto held = user_balance(chain, admin.token, holder.address);
    CHECK(held.size() == 2);
    CHECK(held[10000]["balance"] == "1");
    CHECK(held[10000]["category"] == "producer");
    CHECK(held[10000]["name"] == "Producer Role");
    CHECK(held[1000]["balance"] == "3");
    CHECK(held[1000]["category"] == "report");
    CHECK(held[1000]["name"] == "Report");
    CHECK(is_utc_timestamp(held[10000]["mintedAt"]));
    CHECK(is_utc_timestamp(held[1000]["lastMinted"]));

    // The holder moves one report token on its own; the server learns it from the chain.
    (void)cast({"send", chain.contract(), "safeTransferFrom(address,address,uint256,uint256,bytes)", holder.address,
                receiver.address, "1000", "1", "0x", "--private-key", holder.private_key, "--rpc-url",
                chain.anvil().url()});
    held = user_balance(chain, admin.token, holder.address);
    CHECK(held.size() == 2);
    CHECK(held[1000]["balance"] == "2");
    const auto received = user_balance(chain, admin.token, receiver.address);
    CHECK(received.size() == 1);
    CHECK(received.count(1000) == 1);
    CHECK(received.at(1000)["balance"] == "1");
    CHECK(token_balance(chain, admin.token, receiver.address, 1000)["balance"] == "1");
    CHECK(token_balance(chain, admin.token, holder.address, 1000)["balance"] == "2");

    // An API key with abci:read may look.
    const auto reader = server.create_api_key("reader", {"abci:read"});
    CHECK(token_balance(chain, reader, receiver.address, 1000)["balance"] == "1");
}

TEST_CASE("abci balances: a read relies on a head observed within headMaxAgeMs, and lastSynced says when",
          "[serve][abci]") {
    ChainServer chain(ChainServer::Options{.devnet_keys = "headMaxAgeMs = 60000\n"});
    const auto admin = chain.server().login_admin();
    const auto& holder = Anvil::dev_accounts()[5];
    const auto& receiver = Anvil::dev_accounts()[6];
    REQUIRE(chain.http().post("/abci/contracts/mint-entity-token", entity_mint_body(holder.address, "report", "R-1", 3),
                              admin.token)
                .status == 200);
    const auto read = [&] {
        const auto r = chain.http().get("/abci/tokens/user-balance?" + balance_query(holder.address), admin.token);
        INFO(r.body);
        REQUIRE(r.status == 200);
        return r.json;
    };
    const auto first = read();
    REQUIRE(first["data"]["balances"].size() == 1);
    CHECK(first["data"]["balances"][0]["balance"] == "3");

    (void)cast({"send", chain.contract(), "safeTransferFrom(address,address,uint256,uint256,bytes)", holder.address,
                receiver.address, "1000", "1", "0x", "--private-key", holder.private_key, "--rpc-url",
                chain.anvil().url()});
    REQUIRE(chain.chain_balance(holder.address, 1000) == "2");
    // Within the minute the head seen by the first read stands: the stored
    // balance is answered, as current as of that observation, not of now.
    const auto second = read();
    CHECK(second["data"]["balances"][0]["balance"] == "3");
    CHECK(second["metadata"]["lastSynced"] == first["metadata"]["lastSynced"]);
}

// Spec 4.7: lastSynced is a timestamp, the time of the chain read, also for a wallet that holds nothing.
TEST_CASE("abci balances: a wallet that never held a token has no entries, synced now", "[serve][abci]") {
    ChainServer chain;
    const auto admin = chain.server().login_admin();
    CHECK(user_balance(chain, admin.token, Anvil::dev_accounts()[7].address).empty());
}

TEST_CASE("abci balances: 400 for bad query parameters, 404 for an unknown blockchain", "[serve][abci]") {
    ChainServer chain;
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    const auto who = Anvil::dev_accounts()[5].address;
    for (const auto& path : std::vector<std::string>{
             "/abci/contracts/token-balance",
             "/abci/contracts/token-balance?tokenId=1000&blockchainId=devnet",
             "/abci/contracts/token-balance?userAddress=" + who + "&blockchainId=devnet",
             "/abci/contracts/token-balance?userAddress=" + who + "&tokenId=1000",
             "/abci/contracts/token-balance?userAddress=0x1234&tokenId=1000&blockchainId=devnet",
             "/abci/contracts/token-balance?userAddress=" + who + "&tokenId=ten&blockchainId=devnet",
             "/abci/contracts/token-balance?userAddress=" + who + "&tokenId=-1000&blockchainId=devnet",
             "/abci/contracts/token-balance?userAddress=" + who + "&tokenId=42&blockchainId=devnet",
             "/abci/contracts/token-balance?userAddress=" + who + "&tokenId=99999999999999999999999&blockchainId=devnet",
             "/abci/tokens/user-balance",
             "/abci/tokens/user-balance?blockchainId=devnet",
             "/abci/tokens/user-balance?userAddress=" + who,
             "/abci/tokens/user-balance?userAddress=nothex&blockchainId=devnet",
         }) {
        INFO(path);
        require_invalid_request(http.get(path, admin.token));
    }
    require_error(http.get("/abci/tokens/user-balance?userAddress=" + who + "&blockchainId=mainnet", admin.token), 404,
                  "not_found");
    require_error(
        http.get("/abci/contracts/token-balance?userAddress=" + who + "&tokenId=1000&blockchainId=mainnet", admin.token),
        404, "not_found");
}

}  // namespace abci::test::abci_balance_tests
