// A failed mint's stored answer (core/service/mint_failure.hpp): the rows
// earlier releases wrote stay readable, and what cannot be read is refused.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/service/mint_failure.hpp"
#include "support/error_kind.hpp"

namespace {

using abci::ErrorKind;
using abci::service::MintFailure;

// What parsing `answer` refuses with: its message.
std::string failure_refusal(const std::string& answer) {
    return abci::test::error_message(abci::ErrorKind::internal, [&] { (void)MintFailure::parse(answer); });
}

// A version 1 answer, as releases before this module wrote it (no "version").
nlohmann::json failure_v1() {
    return {{"kind", "unavailable"}, {"message", "the mint was not made: its transaction was dropped; send it again"}};
}

}  // namespace

TEST_CASE("mint failure: reads the answers version 1 wrote without a version, and what it writes reads back", "[mint_failure]") {
    // The exact bytes of the earlier writer (json{{"kind", …}, {"message", …}}.dump()).
    const auto old = MintFailure::parse(
        R"({"kind":"unavailable","message":"the mint was not made: its transaction was dropped; send it again"})");
    CHECK(old == MintFailure{ErrorKind::unavailable, "the mint was not made: its transaction was dropped; send it again"});

    const MintFailure failure = MintFailure::of(abci::Error(ErrorKind::conflict, "0xabc already holds the farmer role token"));
    const auto text = failure.serialize();
    CHECK(nlohmann::json::parse(text)["version"] == MintFailure::kVersion);
    CHECK(MintFailure::parse(text) == failure);
    const auto error = failure.error();
    CHECK(error.kind() == ErrorKind::conflict);
    CHECK(std::string(error.what()) == "0xabc already holds the farmer role token");
}

TEST_CASE("mint failure: an answer it cannot read whole is refused, naming why", "[mint_failure]") {
    for (const char* member : {"kind", "message"}) {
        auto missing = failure_v1();
        missing.erase(member);
        CHECK_THAT(failure_refusal(missing.dump()), Catch::Contains(std::string("it has no \"") + member + "\""));
    }
    auto mistyped = failure_v1();
    mistyped["message"] = 7;
    CHECK_THAT(failure_refusal(mistyped.dump()), Catch::Contains("its \"message\" is no string"));
    auto unknown = failure_v1();
    unknown["kind"] = "meltdown";
    CHECK_THAT(failure_refusal(unknown.dump()), Catch::Contains("its \"kind\" names no error kind this release knows: 'meltdown'"));
    auto newer = failure_v1();
    newer["version"] = MintFailure::kVersion + 1;
    CHECK_THAT(failure_refusal(newer.dump()), Catch::Contains("it is version 2, this release reads versions up to 1"));
    CHECK_THAT(failure_refusal("Internal Server Error"), Catch::Contains("it is no JSON object"));
}
