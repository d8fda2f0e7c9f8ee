#include <catch2/catch.hpp>

#include "core/util/suggest.hpp"

using abci::util::closest_match;

namespace {
const std::vector<std::string> kCommands{"mint-role", "mint-entity", "mint", "health", "chains", "list", "status"};
}

TEST_CASE("closest_match finds the word one slip away", "[suggest]") {
    CHECK(closest_match("mint-rol", kCommands) == "mint-role");      // a letter missing
    CHECK(closest_match("helth", kCommands) == "health");
    CHECK(closest_match("lst", kCommands) == "list");
    CHECK(closest_match("stauts", kCommands) == "status");            // two letters swapped count one
    CHECK(closest_match("HEALTH", kCommands) == "health");            // case is no slip
    CHECK(closest_match("--adress", {"--address", "--chain", "--token"}) == "--address");
    CHECK(closest_match("sever", {"server", "profile", "profiles"}) == "server");
}

TEST_CASE("closest_match prefers the nearest candidate, the first of equals", "[suggest]") {
    CHECK(closest_match("mint-entiy", kCommands) == "mint-entity");
    CHECK(closest_match("mimt", kCommands) == "mint");
    CHECK(closest_match("ab", {"ac", "ad"}) == "ac");
}

TEST_CASE("closest_match offers nothing for a word that is not a slip", "[suggest]") {
    CHECK_FALSE(closest_match("deploy", kCommands));
    CHECK_FALSE(closest_match("x", {"list", "status"}));
    CHECK_FALSE(closest_match("", {"list"}));
    CHECK_FALSE(closest_match("anything", {}));
    CHECK_FALSE(closest_match("lsit-x", {"list"}));
    // Two slips in a long word are still a typo, three are not; in a short word one is the most.
    CHECK(closest_match("mxnt-yole", {"mint-role"}) == "mint-role");
    CHECK_FALSE(closest_match("mxnt-yolx", {"mint-role"}));
    CHECK_FALSE(closest_match("hlth", {"health"}));
}

TEST_CASE("closest_match suggests config keys as typed in a server's config file", "[suggest]") {
    const std::vector<std::string> keys{"listen", "dataDir", "domain", "trustedProxies", "rate_limit", "limits", "threads"};
    CHECK(closest_match("lisen", keys) == "listen");
    CHECK(closest_match("dataDri", keys) == "dataDir");
    CHECK(closest_match("datadir", keys) == "dataDir");
    CHECK(closest_match("trustedProxy", keys) == "trustedProxies");  // three slips in a twelve-letter word
    CHECK(closest_match("rate_limits", keys) == "rate_limit");
    CHECK(closest_match("thread", keys) == "threads");
    CHECK_FALSE(closest_match("mystery", keys));
    CHECK_FALSE(closest_match("listen", keys));  // not a typo of itself
}
