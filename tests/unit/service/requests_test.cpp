// The mint request rules shared by the server and the command line (spec 4.1, 4.2).

#include <catch2/catch.hpp>

#include "core/service/requests.hpp"
#include "core/error.hpp"

namespace {

using nlohmann::json;
using abci::service::parse_mint_entity;
using abci::service::parse_mint_role;

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
    CHECK(ok.attributes.size() == 3);
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
