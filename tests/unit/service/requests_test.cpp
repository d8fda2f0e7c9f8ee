// The mint request rules shared by the server and the command line (spec 4.1,
// 4.2), and the canonical encoding a request's fingerprint is computed over.

#include <catch2/catch.hpp>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/service/requests.hpp"
#include "core/wire/requests.hpp"

namespace {

using nlohmann::json;
using abci::wire::parse_mint_entity;
using abci::wire::parse_mint_role;

constexpr const char* kAddress = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

json entity(json amount) {
    return {{"userAddress", kAddress}, {"entityType", "report"}, {"entityId", "r-1"}, {"blockchainId", "devnet"},
            {"amount", std::move(amount)}, {"metadata", {{"name", "Report"}}}};
}

std::vector<std::string> problems(const std::function<void()>& parse) {
    try {
        parse();
    } catch (const abci::Error& e) {
        CHECK(e.kind() == abci::ErrorKind::invalid_input);
        return e.details();
    }
    FAIL("accepted");
    return {};
}

}  // namespace

TEST_CASE("mint-entity amounts: 1 … 2^53-1 whether parsed or built in code, nothing else", "[abci][requests]") {
    CHECK(parse_mint_entity(entity(1)).amount == 1);                           // signed, as code builds it
    CHECK(parse_mint_entity(json::parse(entity(1).dump())).amount == 1);       // unsigned, as parsed
    CHECK(parse_mint_entity(entity(9007199254740991ULL)).amount == 9007199254740991ULL);
    for (const auto& bad : {json(0), json::parse("0"), json(-3), json(9007199254740992ULL), json(1.5), json("2"), json(nullptr)})
        CHECK_FALSE(problems([&] { (void)parse_mint_entity(entity(bad)); }).empty());
}

TEST_CASE("mint-role requests: every problem is listed at once", "[abci][requests]") {
    const auto found = problems([] {
        (void)parse_mint_role({{"userAddress", "0x123"}, {"roleType", "boss"}, {"metadata", {{"x", 1}, {"approvedAt", "yesterday"}}}});
    });
    CHECK(found == std::vector<std::string>{"blockchainId is required",
                                            "userAddress must be an EVM address: 42 characters starting with 0x",
                                            "roleType must be one of producer, verifier, valuator, certifier",
                                            "metadata.approvedAt must be an ISO 8601 timestamp",
                                            "metadata.x is not a known field"});
    const auto ok = parse_mint_role({{"userAddress", kAddress}, {"roleType", "verifier"}, {"blockchainId", "devnet"},
                                     {"metadata", {{"approvalId", "a1"}, {"approvedAt", "2026-11-22T10:00:00Z"}}}});
    CHECK(ok.kind.id == 10100);
    CHECK(ok.user_address.checksummed() == kAddress);
    CHECK(ok.attributes().size() == 3);
    // A mixed-case address with a wrong EIP-55 checksum is refused.
    CHECK(problems([] {
              (void)parse_mint_role({{"userAddress", "0x70997970c51812dc3A010C7d01b50e0d17dc79C8"}, {"roleType", "producer"},
                                     {"blockchainId", "devnet"}});
          }).size() == 1);
}

TEST_CASE("mint requests: the zero address is no recipient, for either mint", "[abci][requests]") {
    const std::string zero = "0x0000000000000000000000000000000000000000";
    const std::vector<std::string> expected{"userAddress must not be the zero address"};
    CHECK(problems([&] {
              (void)parse_mint_role({{"userAddress", zero}, {"roleType", "producer"}, {"blockchainId", "devnet"}});
          }) == expected);
    json body = entity(1);
    body["userAddress"] = zero;
    CHECK(problems([&] { (void)parse_mint_entity(body); }) == expected);
    // Listed with the others, not instead of them.
    body["amount"] = 0;
    CHECK(problems([&] { (void)parse_mint_entity(body); }).size() == 2);
}

namespace {

std::string hex(const std::string& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (const unsigned char c : bytes) {
        out += kDigits[c >> 4];
        out += kDigits[c & 0xf];
    }
    return out;
}

const char* const kRoleBody = R"({"userAddress": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "roleType": "verifier",
    "blockchainId": "devnet", "metadata": {"approvalId": "a1", "approvedAt": "2026-11-22T10:00:00Z"}})";
const char* const kEntityBody = R"({"userAddress": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "entityType": "report",
    "entityId": "r-1", "blockchainId": "devnet", "amount": 3, "metadata": {"name": "Report",
    "external_url": "https://example.org/r/1", "attributes": [{"trait_type": "hectares", "value": 42},
    {"trait_type": "yield", "value": 4.5, "display_type": "number"}, {"trait_type": "delta", "value": -3},
    {"trait_type": "whole", "value": 2.0}, {"trait_type": "note", "value": "say \"hi\"\n\u0001\u00e9"}]}})";

}  // namespace

// Fixed vectors, worked out by hand from the encoding's definition
// (requests.hpp): a change of these bytes changes every stored fingerprint,
// and a repeat of a key stored before it would be refused as another request.
TEST_CASE("mint requests: canonical() bytes, version 2, are fixed", "[abci][requests][fingerprint]") {
    const auto role = parse_mint_role(json::parse(kRoleBody));
    CHECK(hex(canonical(role)) ==
          "0000000b6d696e742d726f6c652f320000002a3078373039393739373063353138313264633361303130633764303162353065"
          "30643137646337396338000000087665726966696572000000066465766e6574000000985b7b2274726169745f74797065223a"
          "22726f6c65222c2276616c7565223a227665726966696572227d2c7b2274726169745f74797065223a22617070726f76616c49"
          "64222c2276616c7565223a226131227d2c7b22646973706c61795f74797065223a2264617465222c2274726169745f74797065"
          "223a22617070726f7665644174222c2276616c7565223a313739353334313630307d5d");
    CHECK(role.fingerprint().current == "2:2762a1828138ebbeb36cf4331190db29ca3765a32eab12f229165635fc33bc38");

    const auto entity = parse_mint_entity(json::parse(kEntityBody));
    CHECK(canonical_json(entity.metadata.attributes) ==
          R"([{"trait_type":"hectares","value":42},{"display_type":"number","trait_type":"yield","value":4.5},)"
          R"({"trait_type":"delta","value":-3},{"trait_type":"whole","value":2.0},)"
          "{\"trait_type\":\"note\",\"value\":\"say \\\"hi\\\"\\n\\u0001\xc3\xa9\"}]");
    CHECK(hex(canonical(entity)) ==
          "0000000d6d696e742d656e746974792f320000002a30783730393937393730633531383132646333613031306337643031623530"
          "6530643137646337396338000000067265706f727400000003722d31000000066465766e65740000000133000000065265706f"
          "727400000000000000000000001768747470733a2f2f6578616d706c652e6f72672f722f31000000db5b7b2274726169745f74"
          "797065223a226865637461726573222c2276616c7565223a34327d2c7b22646973706c61795f74797065223a226e756d626572"
          "222c2274726169745f74797065223a227969656c64222c2276616c7565223a342e357d2c7b2274726169745f74797065223a22"
          "64656c7461222c2276616c7565223a2d337d2c7b2274726169745f74797065223a2277686f6c65222c2276616c7565223a322e"
          "307d2c7b2274726169745f74797065223a226e6f7465222c2276616c7565223a22736179205c2268695c225c6e5c7530303031"
          "c3a9227d5d");
    CHECK(entity.fingerprint().current == "2:1aead87e7b558fdad59aa9170feca41fc191036e77a3a0e5e8663f80c75ff7b8");
}

TEST_CASE("mint requests: the fingerprint is the request's, not its spelling, and the previous release's still matches",
          "[abci][requests][fingerprint]") {
    const auto body = json::parse(kRoleBody);
    const auto role = parse_mint_role(body);
    // Another order, the address in lower case, the same instant in another offset: the same request.
    const auto respelled = parse_mint_role(json::parse(
        R"({"metadata":{"approvedAt":"2026-11-22T11:00:00+01:00","approvalId":"a1"},"blockchainId":"devnet",)"
        R"("roleType":"verifier","userAddress":"0x70997970c51812dc3a010c7d01b50e0d17dc79c8"})"));
    CHECK(respelled.fingerprint().current == role.fingerprint().current);
    CHECK(respelled.fingerprint().matches(role.fingerprint().current));
    auto other = body;
    other["metadata"]["approvalId"] = "a2";
    CHECK_FALSE(parse_mint_role(other).fingerprint().matches(role.fingerprint().current));

    // What the previous release stored: the body's hash, no prefix.
    const auto stored_before = abci::crypto::sha256_hex(body.dump());
    CHECK(role.fingerprint().matches(stored_before));
    CHECK_FALSE(parse_mint_role(other).fingerprint().matches(stored_before));
    // A request with no body of the previous release's (legacy "") matches none of its hashes.
    auto built = role;
    built.legacy_fingerprint.clear();
    CHECK_FALSE(built.fingerprint().matches(stored_before));
    CHECK_FALSE(built.fingerprint().matches(""));

    auto entity_body = json::parse(kEntityBody);
    const auto entity = parse_mint_entity(entity_body);
    entity_body["amount"] = 4;
    CHECK(parse_mint_entity(entity_body).fingerprint().current != entity.fingerprint().current);
    entity_body["amount"] = 3;
    entity_body["metadata"]["attributes"][3]["value"] = 2;  // 2 is not 2.0: the record prints it otherwise
    CHECK(parse_mint_entity(entity_body).fingerprint().current != entity.fingerprint().current);
}
