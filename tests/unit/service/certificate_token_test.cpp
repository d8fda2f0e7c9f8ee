// A certificate's stored token (core/service/certificate_token.hpp): the rows
// earlier releases wrote stay readable, and what cannot be read is refused.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/service/certificate_token.hpp"
#include "support/error_kind.hpp"

namespace {

using abci::service::CertificateToken;

// The text releases before this module stored (json{…}.dump(): members in
// name order, no "version"), for a certificate minted on a devnet.
constexpr const char* kTokenV1 =
    R"({"amount":1,"blockNumber":42,"blockchain":{"chainId":31337,"name":"Anvil devnet"},)"
    R"("ipfsHash":"bafkreifmrftacomoo5yisdsebg4hfhpny5inckokovlo25d5srmetyasqa",)"
    R"("metadataUri":"ipfs://bafkreifmrftacomoo5yisdsebg4hfhpny5inckokovlo25d5srmetyasqa","tokenId":1300,)"
    R"("transactionHash":"0x5b1c1e6bd6bbd0c33d6b3b7ae3a0d4d0a4a4b53a8f2c1e9f7d6c5b4a39281706"})";

// What parsing `text` refuses with: its message.
std::string token_refusal(const std::string& text) {
    return abci::test::error_message(abci::ErrorKind::internal, [&] { (void)CertificateToken::parse(text); });
}

}  // namespace

TEST_CASE("certificate token: reads the tokens version 1 wrote without a version, and what it writes reads back", "[certificate_token]") {
    const CertificateToken expected{1300, 1, "0x5b1c1e6bd6bbd0c33d6b3b7ae3a0d4d0a4a4b53a8f2c1e9f7d6c5b4a39281706", 42,
                                    "bafkreifmrftacomoo5yisdsebg4hfhpny5inckokovlo25d5srmetyasqa", "Anvil devnet", 31337};
    CHECK(CertificateToken::parse(kTokenV1) == expected);
    const auto text = expected.serialize();
    CHECK(nlohmann::json::parse(text)["version"] == CertificateToken::kVersion);
    CHECK(CertificateToken::parse(text) == expected);
}

TEST_CASE("certificate token: a token it cannot read whole is refused, naming why", "[certificate_token]") {
    const auto v1 = nlohmann::json::parse(kTokenV1);
    for (const char* member : {"tokenId", "amount", "transactionHash", "blockNumber", "metadataUri", "ipfsHash", "blockchain"}) {
        auto missing = v1;
        missing.erase(member);
        CHECK_THAT(token_refusal(missing.dump()), Catch::Contains(std::string("it has no \"") + member + "\""));
    }
    auto mistyped = v1;
    mistyped["blockNumber"] = "42";
    CHECK_THAT(token_refusal(mistyped.dump()), Catch::Contains("its \"blockNumber\" is no non-negative integer"));
    mistyped = v1;
    mistyped["blockchain"]["chainId"] = -1;
    CHECK_THAT(token_refusal(mistyped.dump()), Catch::Contains("its \"blockchain\": its \"chainId\" is no non-negative integer"));
    mistyped = v1;
    mistyped["blockchain"] = "anvil";
    CHECK_THAT(token_refusal(mistyped.dump()), Catch::Contains("its \"blockchain\": it is no JSON object"));
    auto inconsistent = v1;
    inconsistent["metadataUri"] = "https://example.org/metadata.json";
    CHECK_THAT(token_refusal(inconsistent.dump()), Catch::Contains("its \"metadataUri\" is not ipfs:// and its ipfsHash"));
    auto newer = v1;
    newer["version"] = CertificateToken::kVersion + 1;
    CHECK_THAT(token_refusal(newer.dump()), Catch::Contains("it is version 2, this release reads versions up to 1"));
}
