#include <catch2/catch.hpp>

#include "core/util/suggest.hpp"

using abci::util::closest_match;

TEST_CASE("closest_match suggests the likely intended word, or none", "[suggest]") {
    const std::vector<std::string> keys{"listen", "dataDir", "domain", "trustedProxies", "rate_limit", "limits", "threads"};
    CHECK(closest_match("lisen", keys) == "listen");
    CHECK(closest_match("dataDri", keys) == "dataDir");  // a transposition counts one
    CHECK(closest_match("datadir", keys) == "dataDir");
    CHECK(closest_match("trustedProxy", keys) == "trustedProxies");
    CHECK(closest_match("rate_limits", keys) == "rate_limit");
    CHECK(closest_match("thread", keys) == "threads");
    CHECK_FALSE(closest_match("mystery", keys));
    CHECK_FALSE(closest_match("x", keys));
    CHECK_FALSE(closest_match("listen", keys));  // not a typo of itself
    CHECK_FALSE(closest_match("anything", {}));
}
