// What the servers on one database share: request counts (rate_windows.hpp)
// and secrets (shared_secrets.hpp).

#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

TEST_CASE("rate windows count a key's hits, per key, and start over once the window passed", "[store][rate]") {
    FreshStore f;
    auto& windows = f.store->rate_windows();
    const TimePoint t0 = millis_from_now(0ms);
    for (std::uint32_t n = 1; n <= 3; ++n) {
        const auto w = windows.hit("abci:user-1", 60s, t0 + std::chrono::seconds(n));
        CHECK(w.count == n);
        CHECK(w.started_at == t0 + 1s);  // opened by the first hit
    }
    CHECK(windows.hit("abci:user-2", 60s, t0 + 5s).count == 1);
    CHECK(windows.hit("api:user-1", 60s, t0 + 5s).count == 1);

    // 60 s after it opened, the window is over: this hit opens the next.
    const auto next = windows.hit("abci:user-1", 60s, t0 + 61s);
    CHECK(next.count == 1);
    CHECK(next.started_at == t0 + 61s);
    CHECK(windows.hit("abci:user-1", 60s, t0 + 62s).count == 2);
}

TEST_CASE("a rate window tells when it ends while it is open, and counts nothing for it", "[store][rate]") {
    FreshStore f;
    auto& windows = f.store->rate_windows();
    const TimePoint t0 = millis_from_now(0ms);
    CHECK_FALSE(windows.open_until("backoff:a", t0));
    (void)windows.hit("backoff:a", 4s, t0);
    CHECK(windows.open_until("backoff:a", t0 + 1s) == t0 + 4s);
    CHECK(windows.open_until("backoff:a", t0 + 3999ms) == t0 + 4s);
    CHECK_FALSE(windows.open_until("backoff:a", t0 + 4s));
    CHECK_FALSE(windows.open_until("backoff:b", t0 + 1s));
    // A hit with a longer length stretches the open window from where it opened.
    CHECK(windows.hit("backoff:a", 8s, t0 + 2s).count == 2);
    CHECK(windows.open_until("backoff:a", t0 + 5s) == t0 + 8s);
}

TEST_CASE("concurrent hits of one key each get a distinct count, none lost", "[store][rate]") {
    FreshStore f;
    constexpr int kThreads = 8;
    constexpr int kHits = 40;
    const TimePoint now = millis_from_now(0ms);
    std::vector<std::vector<std::uint32_t>> seen(kThreads);
    on_threads(kThreads, [&](int t) {
        for (int i = 0; i < kHits; ++i)
            seen[static_cast<std::size_t>(t)].push_back(f.store->rate_windows().hit("abci:busy", 60s, now).count);
    });
    std::vector<std::uint32_t> all;
    for (const auto& mine : seen) all.insert(all.end(), mine.begin(), mine.end());
    std::sort(all.begin(), all.end());
    std::vector<std::uint32_t> expected(kThreads * kHits);
    std::iota(expected.begin(), expected.end(), 1U);
    CHECK(all == expected);
}

TEST_CASE("a shared secret is the first one stored, whoever asks", "[store][secrets]") {
    FreshStore f;
    constexpr int kThreads = 8;
    std::vector<std::string> got(kThreads);
    on_threads(kThreads, [&](int t) {
        got[static_cast<std::size_t>(t)] = f.store->shared_secrets().get_or_create("jwt", "candidate-" + std::to_string(t));
    });
    CHECK(got[0].starts_with("candidate-"));
    for (const auto& secret : got) CHECK(secret == got[0]);
    CHECK(f.store->shared_secrets().get_or_create("jwt", "another") == got[0]);
    CHECK(f.store->shared_secrets().get_or_create("other", "another") == "another");
}
