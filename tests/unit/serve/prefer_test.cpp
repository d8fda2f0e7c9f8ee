// The Prefer header as RFC 7240 §2 writes it: lists, repeated lines, case,
// values, parameters and quoted strings.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "serve/prefer.hpp"

// Everything in a namespace of its own: the suite is built as one translation unit.
namespace prefer_test {

using abci::serve::has_preference;

bool async(const std::vector<std::string>& lines) { return has_preference(lines, "respond-async"); }

TEST_CASE("Prefer: respond-async among other preferences, in any case, on any line", "[unit][serve][prefer]") {
    CHECK(async({"respond-async"}));
    CHECK(async({"Respond-Async"}));
    CHECK(async({"RESPOND-ASYNC"}));
    CHECK(async({"  respond-async  "}));
    CHECK(async({"return=minimal, respond-async, wait=10"}));
    CHECK(async({"wait=10,respond-async"}));
    CHECK(async({"return=minimal", "respond-async"}));
    // A value or parameters (RFC 7240 allows both on any preference) do not hide the name.
    CHECK(async({"respond-async; foo=bar"}));
    CHECK(async({"respond-async=yes"}));
    CHECK(async({"respond-async ; x=\"a,b\""}));
    CHECK(async({"handling=lenient; p=\"q;r, s\", respond-async"}));
}

TEST_CASE("Prefer without respond-async as a preference of its own", "[unit][serve][prefer]") {
    CHECK_FALSE(async({}));
    CHECK_FALSE(async({""}));
    CHECK_FALSE(async({"wait=10"}));
    CHECK_FALSE(async({"return=representation"}));
    CHECK_FALSE(async({"respond-asynchronously"}));
    CHECK_FALSE(async({"no-respond-async"}));
    CHECK_FALSE(async({"respond async"}));
    // In a value, a parameter or a quoted string it is not a preference.
    CHECK_FALSE(async({"return=respond-async"}));
    CHECK_FALSE(async({"wait=10; respond-async"}));
    CHECK_FALSE(async({"foo=\"x, respond-async\""}));
    CHECK_FALSE(async({"foo=\"x\\\", respond-async\""}));
}

}  // namespace prefer_test
