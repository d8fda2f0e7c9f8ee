// A lane's stored stuck transactions (core/store/stuck_record.hpp): the rows
// earlier releases wrote stay readable, and what cannot be read is refused.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/store/stuck_record.hpp"
#include "support/error_kind.hpp"

namespace {

using abci::store::StuckRecord;
using abci::store::TimePoint;

// The text releases before this module stored (json members in name order).
constexpr const char* kStuckV1 =
    R"([{"hash":"0x5b1c1e6bd6bbd0c33d6b3b7ae3a0d4d0a4a4b53a8f2c1e9f7d6c5b4a39281706","nonce":7,"since":1764280000123}])";

// What parsing `text` refuses with: its message.
std::string stuck_refusal(const std::string& text) {
    return abci::test::error_message(abci::ErrorKind::internal, [&] { (void)StuckRecord::parse(text); });
}

}  // namespace

TEST_CASE("stuck record: reads what version 1 wrote, and what it writes reads back", "[stuck_record]") {
    const auto read = StuckRecord::parse(kStuckV1);
    REQUIRE(read.transactions.size() == 1);
    CHECK(read.transactions[0].nonce == 7);
    CHECK(read.transactions[0].hash == "0x5b1c1e6bd6bbd0c33d6b3b7ae3a0d4d0a4a4b53a8f2c1e9f7d6c5b4a39281706");
    CHECK(read.transactions[0].since == TimePoint(std::chrono::milliseconds(1764280000123)));
    CHECK(read.serialize() == kStuckV1);
    CHECK(StuckRecord::parse("[]").transactions.empty());
    CHECK(StuckRecord{}.serialize() == "[]");
}

TEST_CASE("stuck record: a record it cannot read whole is refused, naming why", "[stuck_record]") {
    const auto v1 = nlohmann::json::parse(kStuckV1);
    for (const char* member : {"nonce", "hash", "since"}) {
        auto missing = v1;
        missing[0].erase(member);
        CHECK_THAT(stuck_refusal(missing.dump()), Catch::Contains(std::string("it has no \"") + member + "\""));
    }
    auto mistyped = v1;
    mistyped[0]["nonce"] = "7";
    CHECK_THAT(stuck_refusal(mistyped.dump()), Catch::Contains("its \"nonce\" is no non-negative integer"));
    mistyped = v1;
    mistyped[0]["hash"] = nullptr;
    CHECK_THAT(stuck_refusal(mistyped.dump()), Catch::Contains("its \"hash\" is no string"));
    CHECK_THAT(stuck_refusal(R"([7])"), Catch::Contains("it is no JSON object"));
    CHECK_THAT(stuck_refusal(R"({"version":2,"transactions":[]})"),
               Catch::Contains("it is version 2, this release reads versions up to 1"));
    CHECK_THAT(stuck_refusal(R"({"transactions":[]})"), Catch::Contains("version 1 is a JSON array"));
    CHECK_THAT(stuck_refusal(""), Catch::Contains("it is no JSON object"));
}
