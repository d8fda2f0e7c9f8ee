// POST /abci/contracts/mint-entity-token (spec 4.2) and GET
// /abci/tokens/metadata/{tokenId} (spec 4.6) against a real chain: the answer,
// the receipt and balance on chain, the metadata record (spec 2.4) served at
// /ipfs/{cid} under its own hash, who may mint, validation, and Idempotency-Key.

#include <algorithm>

#include "core/content/cid.hpp"
#include "core/crypto/encoding.hpp"
#include "core/eth/address.hpp"
#include "core/eth/bytes.hpp"
#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/random.hpp"

namespace abci::test::abci_entity_tests {
namespace {

constexpr const char* kRoute = "/abci/contracts/mint-entity-token";

std::string metadata_path(const std::string& token_id, const std::string& query = {}) {
    return "/abci/tokens/metadata/" + token_id + "?blockchainId=" + ChainServer::blockchain_id + query;
}

// The record of spec 2.4 for a mint of `body`'s entity (or `role`'s token) to `beneficiary`.
void require_metadata_record(const nlohmann::json& record, std::uint64_t token_id, const std::string& token_type,
                             const std::string& category, const std::string& beneficiary) {
    INFO(record.dump());
    REQUIRE(has_exactly_keys(record, {"tokenId", "tokenType", "category", "name", "description", "image",
                                      "external_url", "attributes", "properties"}));
    CHECK(record["tokenId"].is_number_integer());
    CHECK(record["tokenId"] == token_id);
    CHECK(record["tokenType"] == token_type);
    CHECK(record["category"] == category);
    for (const char* text : {"name", "description", "image", "external_url"}) CHECK(record[text].is_string());
    REQUIRE(record["attributes"].is_array());
    for (const auto& attribute : record["attributes"]) {
        CHECK(attribute["trait_type"].is_string());
        CHECK((attribute["value"].is_string() || attribute["value"].is_number()));
        CHECK((!attribute.contains("display_type") || attribute["display_type"].is_string()));
    }
    const auto& p = record["properties"];
    REQUIRE(has_exactly_keys(p, {"issuer", "beneficiary", "issuedAt", "expiresAt", "transferable", "revocable"}));
    CHECK(p["issuer"] == ChainServer::signer());
    CHECK(p["beneficiary"] == beneficiary);
    CHECK(is_utc_timestamp(p["issuedAt"]));
    CHECK((p["expiresAt"].is_null() || is_utc_timestamp(p["expiresAt"])));
    CHECK(p["transferable"] == (token_type == "entity"));
    CHECK(p["revocable"].is_boolean());
}

// GET /ipfs/{cid} (public): the bytes hash to `cid`; returns them parsed.
nlohmann::json fetch_content(const Http& http, const std::string& cid) {
    const auto r = http.get("/ipfs/" + cid);
    INFO(r.status << " " << r.body.substr(0, 300));
    REQUIRE(r.status == 200);
    CHECK(content::Cid::of(eth::as_bytes(r.body)).to_string() == cid);
    REQUIRE(r.json.is_object());
    return r.json;
}

}  // namespace

TEST_CASE("abci mint-entity-token: spec 4.2 answer and chain, its metadata at /ipfs/{cid} and /abci/tokens/metadata",
          "[serve][abci]") {
    ChainServer chain;
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    Random random(41);
    const auto to = random.address().checksummed();

    const auto first_body = entity_mint_body(to, "report", "R-1", 5);
    const auto first = http.post(kRoute, first_body, admin.token);
    const auto first_cid = require_entity_minted(first, first_body);
    const auto receipt = chain.receipt(first.json["data"]["transactionHash"].get<std::string>());
    CHECK(receipt["status"] == "0x1");
    CHECK(quantity_to_decimal(receipt["blockNumber"]) ==
          std::to_string(first.json["data"]["blockNumber"].get<std::uint64_t>()));
    CHECK(quantity_to_decimal(receipt["gasUsed"]) == first.json["data"]["gasUsed"]);
    CHECK(chain.chain_balance(to, 1000) == "5");

    // The stored record: spec 2.4, with the caller's metadata in it.
    const auto record = fetch_content(http, first_cid);
    require_metadata_record(record, 1000, "entity", "report", to);
    CHECK(record["name"] == first_body["metadata"]["name"]);
    CHECK(record["description"] == first_body["metadata"]["description"]);
    CHECK(record["image"] == first_body["metadata"]["image"]);
    CHECK(record["external_url"] == first_body["metadata"]["external_url"]);
    for (const auto& attribute : first_body["metadata"]["attributes"]) {
        INFO(attribute.dump());
        CHECK(std::find(record["attributes"].begin(), record["attributes"].end(), attribute) !=
              record["attributes"].end());
    }

    // A later report: the metadata route answers the latest, or the one named by entityId.
    const auto second_body = entity_mint_body(to, "report", "R-2", 1);
    const auto second_cid = require_entity_minted(http.post(kRoute, second_body, admin.token), second_body);
    CHECK(second_cid != first_cid);
    CHECK(chain.chain_balance(to, 1000) == "6");
    for (const auto& [query, cid] : std::vector<std::pair<std::string, std::string>>{
             {"", second_cid}, {"&entityId=R-1", first_cid}, {"&entityId=R-2", second_cid}}) {
        const auto r = http.get(metadata_path("1000", query), admin.token);
        INFO(query << ": " << r.status << " " << r.body);
        REQUIRE(r.status == 200);
        REQUIRE(has_exactly_keys(r.json, {"success", "data", "metadata"}));
        CHECK(r.json["success"] == true);
        CHECK(r.json["data"] == fetch_content(http, cid));
        const auto& metadata = r.json["metadata"];
        CHECK(has_exactly_keys(metadata, {"ipfsHash", "blockchain", "lastUpdated"}));
        CHECK(metadata["ipfsHash"] == cid);
        CHECK(metadata["blockchain"] == nlohmann::json{{"name", ChainServer::blockchain_name}, {"chainId", 31337}});
        CHECK(is_utc_timestamp(metadata["lastUpdated"]));
    }

    // A role id's record: the role itself, for the named holder.
    const auto role = http.get(metadata_path("10100", "&userAddress=" + to), admin.token);
    INFO(role.body);
    REQUIRE(role.status == 200);
    require_metadata_record(role.json["data"], 10100, "role", "verifier", to);
    CHECK(fetch_content(http, role.json["metadata"]["ipfsHash"].get<std::string>()) == role.json["data"]);

    require_error(http.get(metadata_path("1000", "&entityId=R-9"), admin.token), 404, "not_found");
    require_error(http.get(metadata_path("1300"), admin.token), 404, "not_found");  // no certificate minted
    require_error(http.get(metadata_path("999"), admin.token), 404, "not_found");
    require_error(http.get("/abci/tokens/metadata/1000?blockchainId=mainnet", admin.token), 404, "not_found");
    require_invalid_request(http.get(metadata_path("ten"), admin.token));
    require_invalid_request(http.get("/abci/tokens/metadata/1000", admin.token));
}

TEST_CASE("abci mint-entity-token: an API key with abci:mint-entity may mint, others may not, 400 lists every problem",
          "[serve][abci]") {
    ChainServer chain;
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    const std::string password = "farmer pass 12345";
    server.add_user("farmer@example.org", "farmer", password);
    const auto minter = server.create_api_key("minter", {"abci:mint-entity"});
    const auto reader = server.create_api_key("reader", {"abci:read", "abci:health"});
    Random random(42);
    const auto to = random.address().checksummed();

    const auto body = entity_mint_body(to, "certificate", "C-1", 2);
    (void)require_entity_minted(http.post(kRoute, body, minter), body);
    CHECK(chain.chain_balance(to, 1300) == "2");
    require_forbidden(http.post(kRoute, body, reader));
    require_forbidden(http.post(kRoute, body, server.login("farmer@example.org", password).token));

    const auto nonce = chain.nonce(ChainServer::signer());
    auto require_problems = [&](const nlohmann::json& bad, const std::vector<std::string>& named) {
        const auto r = http.post(kRoute, bad, admin.token);
        require_invalid_request(r);
        for (const auto& name : named) {
            INFO("no detail names " << name << ": " << r.body);
            CHECK(r.body.find(name) != std::string::npos);
        }
    };
    require_problems(nlohmann::json::object(),
                     {"userAddress", "entityType", "entityId", "blockchainId", "amount", "metadata"});
    require_problems({{"userAddress", "0xnothex"},
                      {"entityType", "poem"},
                      {"entityId", "P-1"},
                      {"blockchainId", ChainServer::blockchain_id},
                      {"amount", -3},
                      {"metadata", {{"name", 5}, {"image", "ftp://example.org/x.png"}, {"rarity", "high"}}}},
                     {"userAddress", "entityType", "amount", "metadata.name", "metadata.image", "metadata.rarity"});
    auto wrong_attributes = entity_mint_body(to, "report", "R-1", 1);
    wrong_attributes["amount"] = 1.5;
    wrong_attributes["metadata"]["attributes"] = {{{"trait_type", "tonnes"}}, "loose"};
    require_problems(wrong_attributes, {"amount", "attributes[0]", "attributes[1]"});
    auto huge = entity_mint_body(to, "report", "R-1", 1);
    huge["amount"] = 1ULL << 53;
    require_problems(huge, {"amount"});
    auto elsewhere = entity_mint_body(to, "report", "R-1", 1);
    elsewhere["blockchainId"] = "mainnet";
    require_error(http.post(kRoute, elsewhere, admin.token), 404, "not_found");
    CHECK(chain.nonce(ChainServer::signer()) == nonce);
}

// A JSON 0 parses as unsigned: it must still be refused like -3.
TEST_CASE("abci mint-entity-token: amount 0 is a 400 and sends nothing", "[serve][abci]") {
    ChainServer chain;
    const auto admin = chain.server().login_admin();
    const auto to = Random(46).address().checksummed();
    const auto nonce = chain.nonce(ChainServer::signer());
    auto body = entity_mint_body(to, "report", "R-0", 1);
    body["amount"] = 0;
    const auto r = chain.http().post(kRoute, body, admin.token);
    require_invalid_request(r);
    CHECK(r.body.find("amount") != std::string::npos);
    CHECK(chain.nonce(ChainServer::signer()) == nonce);
}

TEST_CASE("abci mint-entity-token: an Idempotency-Key replays the first answer, another body is 422, actors are apart",
          "[serve][abci]") {
    ChainServer chain;
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    const auto minter = server.create_api_key("minter", {"abci:mint-entity"});
    Random random(43);
    const auto to = random.address().checksummed();
    const Headers key{{"Idempotency-Key", "order-7f3a"}};

    const auto body = entity_mint_body(to, "verification", "V-1", 3);
    const auto first = http.post(kRoute, body, admin.token, key);
    (void)require_entity_minted(first, body);
    const auto again = http.post(kRoute, body, admin.token, key);
    (void)require_entity_minted(again, body);
    CHECK(again.json == first.json);
    CHECK(chain.chain_balance(to, 1100) == "3");

    auto other = body;
    other["amount"] = 4;
    require_error(http.post(kRoute, other, admin.token, key), 422, "unprocessable");

    // The same key from another caller is that caller's own request.
    const auto from_key = http.post(kRoute, body, minter, key);
    (void)require_entity_minted(from_key, body);
    CHECK(from_key.json["data"]["transactionHash"] != first.json["data"]["transactionHash"]);
    CHECK(http.post(kRoute, body, minter, key).json == from_key.json);
    CHECK(chain.chain_balance(to, 1100) == "6");

    // A key outside 1–255 printable ASCII characters is refused before anything runs.
    require_invalid_request(http.post(kRoute, body, admin.token, {{"Idempotency-Key", std::string(256, 'k')}}));
    CHECK(chain.chain_balance(to, 1100) == "6");
}

TEST_CASE("abci mint-entity-token: an Idempotency-Key's fingerprint is the request's, not its spelling, and a key the "
          "previous release stored (the body's hash) still answers its body",
          "[serve][abci][fingerprint]") {
    ChainServer chain;
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    Random random(47);
    const auto to = random.address().checksummed();
    const Headers key{{"Idempotency-Key", "fp-1"}};
    const auto body = entity_mint_body(to, "report", "R-9", 2);
    const auto first = http.post(kRoute, body, admin.token, key);
    (void)require_entity_minted(first, body);

    // The address in lower case is the same request: its first answer, nothing minted.
    auto respelled = body;
    respelled["userAddress"] = eth::Address::parse(to).lower();
    const auto again = http.post(kRoute, respelled, admin.token, key);
    INFO(again.status << " " << again.body);
    CHECK(again.json == first.json);
    CHECK(chain.chain_balance(to, 1000) == "2");

    // A key as the previous release claimed it: the fingerprint the SHA-256 of the body as nlohmann printed it.
    const auto store = server.open_store();
    const auto location = first.header("Content-Location");
    const auto minted = store->mints().find(location.substr(location.rfind('/') + 1));
    REQUIRE(minted);
    auto before = *minted;
    before.id = crypto::random_uuid();
    before.idempotency_key = "fp-before";
    before.fingerprint = crypto::sha256_hex(body.dump());
    before.state = store::MintState::pending;
    before.answer.clear();
    REQUIRE_FALSE(store->mints().begin(before));
    REQUIRE(store->mints().finish(before.id, store::MintState::done, minted->answer));
    const Headers before_key{{"Idempotency-Key", "fp-before"}};
    const auto repeated = http.post(kRoute, body, admin.token, before_key);
    INFO(repeated.status << " " << repeated.body);
    CHECK(repeated.json == first.json);
    auto other = body;
    other["amount"] = 3;
    require_error(http.post(kRoute, other, admin.token, before_key), 422, "unprocessable");
    CHECK(chain.chain_balance(to, 1000) == "2");
}

}  // namespace abci::test::abci_entity_tests
