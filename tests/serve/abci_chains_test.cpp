// GET /abci/blockchains/list (spec 4.4, records 2.1), /abci/blockchains/{id}/status
// (spec 4.5) and /abci/health (spec 4.8) against a real chain, next to a
// configured node that is never reached and a disabled chain; health follows
// the node going away and coming back.

#include <thread>

#include "core/eth/u256.hpp"
#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/tools.hpp"

namespace abci::test::abci_chain_tests {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// A provider URL with a key in its path, on a name that never resolves to a node.
constexpr const char* kProviderKey = "0123456789abcdef0123456789abcdef";

// The request's answer and how long it took.
std::pair<HttpResponse, Clock::duration> timed_get(const Http& http, const std::string& path, const std::string& token) {
    const auto start = Clock::now();
    auto r = http.get(path, token);
    return {std::move(r), Clock::now() - start};
}

// {low, standard, fast}: decimal strings in that order.
void require_fee_tiers(const nlohmann::json& tiers) {
    INFO(tiers.dump());
    REQUIRE(has_exactly_keys(tiers, {"low", "standard", "fast"}));
    for (const char* tier : {"low", "standard", "fast"}) REQUIRE(is_decimal_string(tiers[tier]));
    const auto value = [&](const char* tier) { return eth::U256::parse(tiers[tier].get<std::string>()); };
    CHECK(value("low") <= value("standard"));
    CHECK(value("standard") <= value("fast"));
}

}  // namespace

TEST_CASE("abci blockchains: list per spec 2.1 with a masked provider URL, status per spec 4.5, 404 for an unknown id",
          "[serve][abci]") {
    ChainServer::Options options;
    options.extra_config =
        chain_entry("provider", "Hosted node", std::string("https://rpc.example/v3/") + kProviderKey,
                    "0x5fbdb2315678afecb367f032d93f642f64180aa3", "active") +
        "[chains.nativeCurrency]\nname = \"Test Ether\"\nsymbol = \"tETH\"\ndecimals = 18\n" +
        chain_entry("paused", "Paused devnet", "{anvil}", "", "disabled");
    ChainServer chain(options);
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();

    const auto [list, list_took] = timed_get(http, "/abci/blockchains/list", admin.token);
    INFO(list.status << " " << list.body);
    CHECK(list_took < 5s);  // the unreachable node costs at most its probe's deadline
    REQUIRE(list.status == 200);
    REQUIRE(has_exactly_keys(list.json, {"success", "data", "metadata"}));
    CHECK(list.json["success"] == true);
    CHECK(list.json["metadata"] ==
          nlohmann::json{{"totalNetworks", 2}, {"activeNetworks", 1}, {"testNetworks", 1}});
    const auto& data = list.json["data"];
    REQUIRE(data.is_array());
    REQUIRE(data.size() == 2);  // the disabled chain is not listed
    for (const auto& record : data)
        REQUIRE(has_exactly_keys(record, {"id", "name", "chainId", "network", "rpcUrl", "contractAddress",
                                          "nativeCurrency", "blockExplorer", "status", "gasPrice"}));
    const auto& devnet = data[0];
    CHECK(devnet["id"] == ChainServer::blockchain_id);
    CHECK(devnet["name"] == ChainServer::blockchain_name);
    CHECK(devnet["chainId"].is_number_integer());
    CHECK(devnet["chainId"] == 31337);
    CHECK(devnet["network"] == "ethereum");
    CHECK(devnet["rpcUrl"] == chain.anvil().url());  // nothing to mask
    CHECK(devnet["contractAddress"] == chain.contract());
    CHECK(devnet["nativeCurrency"] == nlohmann::json{{"name", "Ether"}, {"symbol", "ETH"}, {"decimals", 18}});
    CHECK(devnet["blockExplorer"] == "https://explorer.example");
    CHECK(devnet["status"] == "testnet");
    require_fee_tiers(devnet["gasPrice"]);

    const auto& hosted = data[1];
    CHECK(hosted["id"] == "provider");
    REQUIRE(hosted["rpcUrl"].is_string());
    const auto masked = hosted["rpcUrl"].get<std::string>();
    CHECK(masked.starts_with("https://rpc.example/"));
    CHECK(masked.find('*') != std::string::npos);
    CHECK(masked.find(kProviderKey) == std::string::npos);
    CHECK(masked.find(std::string(kProviderKey).substr(0, 8)) == std::string::npos);
    CHECK(hosted["contractAddress"] == "0x5FbDB2315678afecb367f032d93F642f64180aa3");
    CHECK(hosted["nativeCurrency"] == nlohmann::json{{"name", "Test Ether"}, {"symbol", "tETH"}, {"decimals", 18}});
    CHECK(hosted["status"] == "active");
    CHECK(hosted["gasPrice"].is_null());  // unreachable
    CHECK(list.body.find(kProviderKey) == std::string::npos);

    // Status of the devnet: every part readable.
    const auto status = http.get("/abci/blockchains/devnet/status", admin.token);
    INFO(status.status << " " << status.body);
    REQUIRE(status.status == 200);
    REQUIRE(has_exactly_keys(status.json, {"success", "data", "metadata"}));
    CHECK(status.json["metadata"] ==
          nlohmann::json{{"blockchain", {{"name", ChainServer::blockchain_name}, {"chainId", 31337}}}});
    const auto& s = status.json["data"];
    REQUIRE(has_exactly_keys(s, {"id", "name", "status", "latestBlock", "blockTime", "gasPrice", "contractStatus",
                                 "health"}));
    CHECK(s["id"] == ChainServer::blockchain_id);
    CHECK(s["name"] == ChainServer::blockchain_name);
    CHECK(s["status"] == "healthy");
    REQUIRE(s["latestBlock"].is_number_integer());
    const auto head = chain.anvil().block_number();
    CHECK(s["latestBlock"].get<std::uint64_t>() <= head);
    CHECK(s["latestBlock"].get<std::uint64_t>() >= 1);  // the deployment's block
    CHECK(s["blockTime"].is_number());
    REQUIRE(has_exactly_keys(s["gasPrice"], {"current", "recommended"}));
    CHECK(is_decimal_string(s["gasPrice"]["current"]));
    require_fee_tiers(s["gasPrice"]["recommended"]);
    const auto& contract = s["contractStatus"];
    REQUIRE(has_exactly_keys(contract, {"address", "deployed", "version", "lastUpgrade"}));
    CHECK(contract["address"] == chain.contract());
    CHECK(contract["deployed"] == true);
    CHECK(contract["version"] == "1.0.0");
    CHECK(is_utc_timestamp(contract["lastUpgrade"]));
    REQUIRE(has_exactly_keys(s["health"], {"rpcConnectivity", "contractAccessible", "lastChecked"}));
    CHECK(s["health"]["rpcConnectivity"] == "healthy");
    CHECK(s["health"]["contractAccessible"] == "healthy");
    CHECK(is_utc_timestamp(s["health"]["lastChecked"]));

    // Status of the unreachable node: answered, with what could not be read as null.
    const auto [hosted_status, hosted_took] = timed_get(http, "/abci/blockchains/provider/status", admin.token);
    INFO(hosted_status.status << " " << hosted_status.body);
    CHECK(hosted_took < 5s);
    REQUIRE(hosted_status.status == 200);
    const auto& h = hosted_status.json["data"];
    CHECK(h["status"] == "degraded");
    CHECK(h["latestBlock"].is_null());
    CHECK(h["health"]["rpcConnectivity"] == "unreachable");
    // Whether the contract is deployed is unknown without the node: null, never false (issue 14).
    CHECK(h["health"]["contractAccessible"] == "unknown");
    CHECK(h["contractStatus"]["deployed"].is_null());

    require_error(http.get("/abci/blockchains/mainnet/status", admin.token), 404, "not_found");
}

TEST_CASE("abci health: healthy, 503 degraded within 3 s once the node stops, healthy again when it is back",
          "[serve][abci]") {
    ChainServer::Options options;
    options.anvil.persist_state = true;  // the contract survives the node's restart
    ChainServer chain(options);
    const auto http = chain.http();
    const auto key = chain.server().create_api_key("monitor", {"abci:health"});
    std::vector<std::string> checks{"network:devnet", "contract:devnet", "minter:devnet", "signer:devnet",
                                    "lane:devnet",    "contentStorage",  "database",      "webhooks"};
    // The replicas keep their JWT key in the database, so they seal no webhook secrets and say so (healthy).
    if (replicas_topology()) checks.push_back("webhookSecrets");

    const auto require_health = [&](const HttpResponse& r, bool healthy) {
        INFO(r.status << " " << r.body);
        REQUIRE(r.status == (healthy ? 200 : 503));
        REQUIRE(has_exactly_keys(r.json, {"status", "checks", "timestamp"}));
        CHECK(r.json["status"] == (healthy ? "healthy" : "degraded"));
        CHECK(is_utc_timestamp(r.json["timestamp"]));
        REQUIRE(has_exactly_keys(r.json["checks"], checks));
        for (const auto& name : checks) {
            INFO(name);
            const auto& check = r.json["checks"][name];
            REQUIRE(check["healthy"].is_boolean());
            // The node's checks follow it; content storage, the database, the lane and the webhooks' do not.
            CHECK(check["healthy"] == (healthy || name == "contentStorage" || name == "database" ||
                                       name == "lane:devnet" || name == "webhooks" || name == "webhookSecrets"));
        }
    };

    const auto up = http.get("/abci/health", key);
    require_health(up, true);
    const auto& network = up.json["checks"]["network:devnet"];
    CHECK(network["chainId"] == 31337);
    CHECK(network["latestBlock"].is_number_integer());
    CHECK(up.json["checks"]["contract:devnet"]["version"] == "1.0.0");
    CHECK(up.json["checks"]["contract:devnet"]["address"] == chain.contract());
    CHECK(up.json["checks"]["signer:devnet"]["address"] == ChainServer::signer());
    CHECK(is_decimal_string(up.json["checks"]["signer:devnet"]["balance"]));
    const auto& lane = up.json["checks"]["lane:devnet"];
    CHECK(lane["ownedHere"] == true);
    CHECK(lane["epoch"] == 1);
    CHECK_THAT(lane["owner"].get<std::string>(), Catch::Contains("pid"));
    CHECK(lane["pendingTransactions"] == 0);

    chain.anvil().stop();
    const auto [down, took] = timed_get(http, "/abci/health", key);
    CHECK(took < 3s);
    require_health(down, false);
    CHECK(down.json["checks"]["network:devnet"]["message"].is_string());

    chain.anvil().start();
    // The server may hold a connection the old node closed: give it a moment to notice.
    auto back = http.get("/abci/health", key);
    for (const auto deadline = Clock::now() + 5s; back.status != 200 && Clock::now() < deadline;) {
        std::this_thread::sleep_for(200ms);
        back = http.get("/abci/health", key);
    }
    require_health(back, true);
}

}  // namespace abci::test::abci_chain_tests
