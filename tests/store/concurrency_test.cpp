// Many threads on one store, as the server's workers use it.

#include <catch2/catch.hpp>

#include <map>

#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

TEST_CASE("concurrent takers get each ticket exactly once", "[store]") {
    FreshStore f;
    constexpr int kTickets = 50;
    constexpr int kThreads = 8;
    const TimePoint now = millis_from_now(0ms);
    for (int i = 0; i < kTickets; ++i) {
        f.store->tickets().put("nonce", "key-" + std::to_string(i), "payload-" + std::to_string(i), now + 1min);
    }

    std::vector<std::vector<std::pair<int, std::string>>> taken(kThreads);
    on_threads(kThreads, [&](int t) {
        for (int i = 0; i < kTickets; ++i) {
            if (auto payload = f.store->tickets().take("nonce", "key-" + std::to_string(i), now)) {
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

TEST_CASE("concurrent refreshes of one token: exactly one marks it used", "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "race@example.org");
    constexpr int kTokens = 20;
    constexpr int kThreads = 8;
    for (int i = 0; i < kTokens; ++i) {
        f.store->sessions().add_refresh_token(RefreshToken{"hash-" + std::to_string(i), "family", u.id, millis_from_now(1h)});
    }
    std::vector<int> wins(kThreads, 0);
    on_threads(kThreads, [&](int t) {
        for (int i = 0; i < kTokens; ++i) {
            if (f.store->sessions().mark_refresh_token_used("hash-" + std::to_string(i))) ++wins[static_cast<std::size_t>(t)];
        }
    });
    int total = 0;
    for (int w : wins) total += w;
    CHECK(total == kTokens);
}

TEST_CASE("more writer threads than pooled connections all succeed", "[store]") {
    FreshStore f;
    constexpr int kThreads = 16;  // twice the pool: some wait for a connection, all wait on the write lock
    constexpr int kUsersEach = 5;
    on_threads(kThreads, [&](int t) {
        for (int i = 0; i < kUsersEach; ++i) {
            const User u = add_user(*f.store, "u" + std::to_string(t) + "-" + std::to_string(i) + "@example.org");
            f.store->credentials().link_wallet(u.id, "0x" + std::to_string(t) + "-" + std::to_string(i));
            if (!f.store->users().find_by_id(u.id)) throw std::runtime_error("a created user is missing");
        }
    });
    CHECK(f.store->users().count() == kThreads * kUsersEach);
    CHECK(f.store->users().list().size() == kThreads * kUsersEach);
}

TEST_CASE("concurrent claims of one idempotency key: exactly one wins, the rest see its claim", "[store]") {
    FreshStore f;
    constexpr int kKeys = 10;
    constexpr int kThreads = 8;
    std::vector<std::vector<std::optional<MintRequest>>> answers(kThreads);
    on_threads(kThreads, [&](int t) {
        for (int i = 0; i < kKeys; ++i) {
            answers[static_cast<std::size_t>(t)].push_back(f.store->mints().begin(
                mint_request("actor", MintKind::role, "key-" + std::to_string(i), "fp-" + std::to_string(t))));
        }
    });
    for (int i = 0; i < kKeys; ++i) {
        INFO("key " << i);
        int winners = 0;
        std::string winning_fingerprint;
        for (int t = 0; t < kThreads; ++t) {
            if (!answers[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)]) {
                ++winners;
                winning_fingerprint = "fp-" + std::to_string(t);
            }
        }
        REQUIRE(winners == 1);
        for (const auto& mine : answers) {
            const auto& answer = mine[static_cast<std::size_t>(i)];
            if (!answer) continue;
            CHECK(answer->state == store::MintState::pending);
            CHECK(answer->fingerprint == winning_fingerprint);
        }
    }
}

TEST_CASE("concurrent identical role requests: exactly one is filed, every other names it", "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "file-race@example.org");
    constexpr int kThreads = 8;
    std::vector<std::optional<std::string>> filed(kThreads);
    std::vector<std::string> refusals(kThreads);
    on_threads(kThreads, [&](int t) {
        try {
            filed[static_cast<std::size_t>(t)] =
                f.store->role_requests().create(NewRoleRequest{u.id, "producer", "0x11", "31337", ""}).id;
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::conflict);
            refusals[static_cast<std::size_t>(t)] = e.what();
        }
    });
    std::vector<std::string> ids;
    for (const auto& id : filed)
        if (id) ids.push_back(*id);
    REQUIRE(ids.size() == 1);
    for (int t = 0; t < kThreads; ++t)
        if (!filed[static_cast<std::size_t>(t)]) CHECK(refusals[static_cast<std::size_t>(t)].find(ids[0]) != std::string::npos);
    CHECK(f.store->role_requests().list(RoleRequestStatus::pending).size() == 1);
}

TEST_CASE("concurrent approvals of one role request: exactly one moves it", "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "approve-race@example.org");
    constexpr int kRequests = 10;
    constexpr int kThreads = 8;
    std::vector<std::string> ids;
    for (int i = 0; i < kRequests; ++i) {
        ids.push_back(f.store->role_requests().create(NewRoleRequest{u.id, "producer", "0x1" + std::to_string(i), "31337", ""}).id);
    }
    std::vector<std::vector<std::string>> won(kThreads);
    on_threads(kThreads, [&](int t) {
        for (const std::string& id : ids) {
            if (f.store->role_requests().transition(id, RoleRequestStatus::pending, RoleRequestStatus::approved, "admin-" + std::to_string(t))) {
                won[static_cast<std::size_t>(t)].push_back(id);
            }
        }
    });
    std::map<std::string, std::string> winner;
    for (int t = 0; t < kThreads; ++t) {
        for (const std::string& id : won[static_cast<std::size_t>(t)]) {
            CHECK(winner.emplace(id, "admin-" + std::to_string(t)).second);
        }
    }
    REQUIRE(winner.size() == kRequests);
    for (const auto& [id, admin] : winner) CHECK(f.store->role_requests().find(id)->approved_by == admin);
}
