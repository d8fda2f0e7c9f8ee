#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/limits/rate_limiter.hpp"

using abci::limits::parse_rate_limit;
using abci::limits::RateLimit;
using abci::limits::RateLimiter;
using namespace std::chrono_literals;

TEST_CASE("rate limits parse from requests/seconds", "[ratelimit]") {
    const auto ten = parse_rate_limit("10/60", "test");
    CHECK(ten.limit == 10);
    CHECK(ten.window == 60s);
    CHECK_FALSE(parse_rate_limit("0", "test").enabled());
    for (const auto* bad : {"", "10", "10/", "/60", "0/60", "10/0", "-1/60", "10/60s", "ten/60", "10/60/1"})
        CHECK_THROWS_AS(parse_rate_limit(bad, "test"), abci::Error);
}

TEST_CASE("a key gets its limit per window, then waits for the window to end", "[ratelimit]") {
    RateLimiter limiter(RateLimit{10, 60s});
    const auto start = RateLimiter::Clock::now();
    for (std::uint32_t i = 1; i <= 10; ++i) {
        const auto decision = limiter.hit("user-1", start + std::chrono::seconds(i - 1));
        CHECK(decision.allowed);
        CHECK(decision.limit == 10);
        CHECK(decision.remaining == 10 - i);
    }
    const auto refused = limiter.hit("user-1", start + 20s);
    CHECK_FALSE(refused.allowed);
    CHECK(refused.remaining == 0);
    CHECK(refused.reset == 40s);  // the window opened at the first request

    CHECK(limiter.hit("user-2", start + 20s).allowed);  // keys do not share windows
    CHECK(limiter.hit("user-1", start + 60s).allowed);  // a new window
}

TEST_CASE("concurrent hits of one key are all counted", "[ratelimit]") {
    RateLimiter limiter(RateLimit{1000, 60s});
    std::atomic<int> allowed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 200; ++i)
                if (limiter.hit("shared").allowed) ++allowed;
        });
    for (auto& thread : threads) thread.join();
    CHECK(allowed == 1000);
}

TEST_CASE("a disabled limit allows everything", "[ratelimit]") {
    RateLimiter limiter(parse_rate_limit("0", "test"));
    for (int i = 0; i < 100; ++i) CHECK(limiter.hit("k").allowed);
}
