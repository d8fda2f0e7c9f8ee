// Many threads on one store, as the server's workers use it.

#include <catch2/catch.hpp>

#include <exception>
#include <map>
#include <thread>

#include "unit/store/store_fixture.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

namespace abci::store::testing {

/// Runs `work(t)` on `threads` threads at once; the first exception any of
/// them threw is rethrown here (Catch2's assertions are not thread-safe, so
/// threads only collect and the test asserts after the join).
template <class Work>
void on_threads(int threads, Work work) {
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            try {
                work(t);
            } catch (...) {
                errors[static_cast<std::size_t>(t)] = std::current_exception();
            }
        });
    }
    for (auto& th : pool) th.join();
    for (const auto& e : errors) {
        if (e) std::rethrow_exception(e);
    }
}

}  // namespace abci::store::testing

TEST_CASE("store: concurrent takers get each ticket exactly once", "[store]") {
    FreshStore f;
    constexpr int kTickets = 50;
    constexpr int kThreads = 8;
    const TimePoint now = millis_from_now(0ms);
    for (int i = 0; i < kTickets; ++i) {
        f.store->put_ticket("nonce", "key-" + std::to_string(i), "payload-" + std::to_string(i), now + 1min);
    }

    std::vector<std::vector<std::pair<int, std::string>>> taken(kThreads);
    on_threads(kThreads, [&](int t) {
        for (int i = 0; i < kTickets; ++i) {
            if (auto payload = f.store->take_ticket("nonce", "key-" + std::to_string(i), now)) {
                taken[static_cast<std::size_t>(t)].emplace_back(i, *payload);
            }
        }
    });

    std::map<int, int> times_taken;
    for (const auto& mine : taken) {
        for (const auto& [i, payload] : mine) {
            ++times_taken[i];
            CHECK(payload == "payload-" + std::to_string(i));
        }
    }
    CHECK(times_taken.size() == kTickets);
    for (const auto& [i, n] : times_taken) CHECK(n == 1);
}

TEST_CASE("store: concurrent refreshes of one token: exactly one marks it used", "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "race@example.org");
    constexpr int kTokens = 20;
    constexpr int kThreads = 8;
    for (int i = 0; i < kTokens; ++i) {
        f.store->add_refresh_token(RefreshToken{"hash-" + std::to_string(i), "family", u.id, millis_from_now(1h)});
    }
    std::vector<int> wins(kThreads, 0);
    on_threads(kThreads, [&](int t) {
        for (int i = 0; i < kTokens; ++i) {
            if (f.store->mark_refresh_token_used("hash-" + std::to_string(i))) ++wins[static_cast<std::size_t>(t)];
        }
    });
    int total = 0;
    for (int w : wins) total += w;
    CHECK(total == kTokens);
}

TEST_CASE("store: more writer threads than pooled connections all succeed", "[store]") {
    FreshStore f;
    constexpr int kThreads = 16;  // twice the pool: some wait for a connection, all wait on the write lock
    constexpr int kUsersEach = 5;
    on_threads(kThreads, [&](int t) {
        for (int i = 0; i < kUsersEach; ++i) {
            const User u = add_user(*f.store, "u" + std::to_string(t) + "-" + std::to_string(i) + "@example.org");
            f.store->link_wallet(u.id, "0x" + std::to_string(t) + "-" + std::to_string(i));
            if (!f.store->find_user_by_id(u.id)) throw std::runtime_error("a created user is missing");
        }
    });
    CHECK(f.store->count_users() == kThreads * kUsersEach);
    CHECK(f.store->list_users().size() == kThreads * kUsersEach);
}
