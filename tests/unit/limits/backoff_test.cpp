#include <catch2/catch.hpp>

#include "core/limits/backoff.hpp"

using abci::limits::Backoff;
using abci::limits::BackoffPolicy;
using namespace std::chrono_literals;

TEST_CASE("a back-off lets failures up to its threshold through, then doubles the wait up to its cap", "[backoff]") {
    Backoff backoff(BackoffPolicy{3, 300s, 1s, 8s});
    const auto t = Backoff::Clock::now();
    for (int i = 0; i < 3; ++i) backoff.failed("account", t);
    CHECK(backoff.wait("account", t) == 0s);  // at the threshold: nothing yet

    backoff.failed("account", t);
    CHECK(backoff.wait("account", t) == 1s);
    CHECK(backoff.wait("account", t + 400ms) == 1s);  // rounded up
    CHECK(backoff.wait("account", t + 1s) == 0s);
    CHECK(backoff.wait("another", t) == 0s);  // per key

    const std::chrono::seconds expected[] = {2s, 4s, 8s, 8s, 8s};
    for (const auto wait : expected) {
        backoff.failed("account", t + 1s);
        CHECK(backoff.wait("account", t + 1s) == wait);
    }
    // Never a lock: the wait ends by itself, and so does the window.
    CHECK(backoff.wait("account", t + 9s) == 0s);
    backoff.failed("account", t + 301s);
    CHECK(backoff.wait("account", t + 301s) == 0s);
}

// Concurrent logins: one asks for its wait with the time it read just before
// another's failure (below the threshold) was counted with a later time.
// That failure holds nobody back: the serve suite's ten concurrent wrong
// passwords got a 429 "try again in 1 s" among their 401s.
TEST_CASE("a failure below the threshold holds back no attempt, whatever time it asks with", "[backoff]") {
    Backoff backoff(BackoffPolicy{3, 300s, 1s, 8s});
    const auto t = Backoff::Clock::now();
    backoff.failed("account", t + 5ms);
    CHECK(backoff.wait("account", t) == 0s);
    CHECK(backoff.wait("account", t + 5ms) == 0s);
}

TEST_CASE("a back-off with threshold 0 never holds anyone back", "[backoff]") {
    Backoff backoff(BackoffPolicy{0, 300s, 1s, 8s});
    const auto t = Backoff::Clock::now();
    for (int i = 0; i < 100; ++i) backoff.failed("account", t);
    CHECK(backoff.wait("account", t) == 0s);
}
