// A mint's stored answer (core/service/mint_result.hpp) renders as the spec's
// answer (serve/routes/abci_views.cpp), whichever release stored it.
//
// tests/fixtures/mint_records/answers_v1.db holds the mint_requests rows of
// main at f7f45e4 (the last release that stored the spec's body itself,
// version 1), made with
//   tests/fixtures/mint_records/make-fixture.sh <that release's abcictl> journal.db answers_v1.db
// (role and entity mints, with and without Idempotency-Keys, a role
// request's approval, a batch of three).

#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include "core/error.hpp"
#include "core/service/mint_result.hpp"
#include "serve/routes/abci_views.hpp"
#include "support/error_kind.hpp"

namespace mint_result_view_test {

using abci::service::MintResult;
using nlohmann::json;

struct StoredAnswer {
    std::string route;
    std::string answer;
};

std::vector<StoredAnswer> fixture_answers() {
    SQLite::Database db(std::string(ABCI_SOURCE_DIR) + "/tests/fixtures/mint_records/answers_v1.db",
                        SQLite::OPEN_READONLY);
    SQLite::Statement rows(db, "SELECT route, state, answer FROM mint_requests");
    std::vector<StoredAnswer> answers;
    while (rows.executeStep()) {
        CHECK(rows.getColumn("state").getString() == "done");
        answers.push_back({rows.getColumn("route").getString(), rows.getColumn("answer").getString()});
    }
    return answers;
}

}  // namespace mint_result_view_test

using namespace mint_result_view_test;

TEST_CASE("mint result: the answers version 1 stored render as they were stored (fixture answers_v1.db)",
          "[mint_result]") {
    const auto answers = fixture_answers();
    REQUIRE(answers.size() == 8);  // two role, two entity, the approval's role, three batched entity mints
    int roles = 0;
    for (const auto& [route, answer] : answers) {
        INFO(route << ": " << answer);
        const auto result = MintResult::parse(answer);
        roles += result.family == abci::service::TokenFamily::role;
        CHECK(abci::serve::mint_result_view(result) == json::parse(answer));
        // Stored again by this release (version 2), it renders the same.
        CHECK(abci::serve::mint_result_view(MintResult::parse(result.serialize())) == json::parse(answer));
    }
    CHECK(roles == 3);
}

TEST_CASE("mint result: a stored answer no release wrote is refused", "[mint_result]") {
    for (const char* stored : {"", "{}", R"({"version":3})", R"({"version":2,"family":"role"})", "[]",
                               R"({"success":true,"data":{}})"}) {
        INFO(stored);
        CHECK(abci::test::error_kind([&] { (void)MintResult::parse(stored); }) == abci::ErrorKind::internal);
    }
}
