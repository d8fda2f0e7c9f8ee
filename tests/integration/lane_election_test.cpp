// Several servers contending for a lane on one PostgreSQL database
// (lanes.hpp, DESIGN.md §9): one owner at a time; a dead owner's lane is
// free at once, a frozen one's once its lease has run out; and the replaced
// owner can write nothing when it comes back.

#include <catch2/catch.hpp>

#include <thread>

#include "core/store/postgresql/connection.hpp"
#include "core/store/store.hpp"
#include "support/error_kind.hpp"
#include "support/eventually.hpp"
#include "support/postgres.hpp"

using namespace abci;
using namespace abci::store;
using namespace std::chrono_literals;

namespace {

constexpr const char* kLane = "devnet/0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

JournalEntry fenced_entry(const std::string& hash, std::uint64_t nonce) {
    return JournalEntry{hash, "devnet", "0xf39f", nonce, "0x02f8", "{}", chain::TxStatus::pending, 0, {}, {}, {}};
}

// Ends the sessions holding advisory locks, as the death of their process would.
int end_lock_sessions(postgresql::Connection& admin) {
    return admin.exec("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted").rows();
}

// Two servers' stores and elections on one database.
struct TwoServers {
    test::Postgres pg;
    std::string url = pg.create_database("lanes");
    std::unique_ptr<Store> a_store = open_postgresql_store({.url = url, .password_file = {}});
    std::unique_ptr<Store> b_store = open_postgresql_store({.url = url, .password_file = {}});
    std::unique_ptr<LaneElection> a = a_store->open_lane_election("a");
    std::unique_ptr<LaneElection> b = b_store->open_lane_election("b");
};

}  // namespace

TEST_CASE("lanes on PostgreSQL: one owner of two, the other takes over at once when the owner's session dies",
          "[postgres][lanes]") {
    TwoServers s;
    auto& [pg, url, a_store, b_store, a, b] = s;
    (void)a_store->webhooks().create_subscription(NewWebhookSubscription{.id = "wh_lanes",
                                                                         .url = "https://hooks.example.org/in",
                                                                         .events = {"lane.owner_changed"},
                                                                         .sealed_secret = "v1.x"});

    const auto a_fence = a->hold(kLane);
    REQUIRE(a_fence);
    CHECK_FALSE(b->hold(kLane));
    CHECK(a->hold(kLane));  // renewed
    CHECK_FALSE(b->hold(kLane));
    CHECK(a_store->lanes().find(kLane)->owner == "a");

    postgresql::Connection admin(url);
    REQUIRE(end_lock_sessions(admin) == 1);
    // The session ends a moment after it is told to; b asks as its server would, every round.
    std::optional<LaneFence> b_fence;
    REQUIRE(test::eventually([&] { return (b_fence = b->hold(kLane)).has_value(); }));
    CHECK(b_fence->epoch == a_fence->epoch + 1);
    CHECK(b_store->lanes().find(kLane)->owner == "b");

    // a's process lives on, unaware: its renewal fails, and so does any write under its epoch.
    CHECK_FALSE(a->hold(kLane));
    CHECK(test::error_kind([&] { a_store->journal().add({fenced_entry("0x01", 1)}, a_fence); }) == ErrorKind::unavailable);
    CHECK_FALSE(a_store->journal().find("0x01"));
    b_store->journal().add({fenced_entry("0x01", 1)}, b_fence);
    CHECK_FALSE(a->hold(kLane));  // and it stays out while b holds the lane

    // Each taking wrote lane.owner_changed in its own transaction, read by either server.
    std::vector<std::pair<std::string, std::string>> owners;
    for (auto claimed = a_store->webhooks().claim_events("a", 60s, 10); !claimed.empty();
         claimed = a_store->webhooks().claim_events("a", 60s, 10))
        for (const auto& outbox : claimed) {
            const auto& event = std::get<LaneEvent>(outbox.event);
            CHECK(event.lane == kLane);
            CHECK(event.epoch == (event.owner == "a" ? a_fence->epoch : b_fence->epoch));
            owners.emplace_back(event.previous_owner, event.owner);
            CHECK(a_store->webhooks().fan_out(outbox.id, "a", "body") == 1u);
        }
    CHECK(owners == std::vector<std::pair<std::string, std::string>>{{"", "a"}, {"a", "b"}});
}

TEST_CASE("lanes on PostgreSQL: a frozen owner is ended once its lease ran out, and a released lane is free at once",
          "[postgres][lanes]") {
    TwoServers s;
    auto& [pg, url, a_store, b_store, a, b] = s;
    const auto a_fence = a->hold(kLane);
    REQUIRE(a_fence);
    const auto lease_until = a_store->lanes().find(kLane)->lease_until;

    // a stops renewing (frozen) and keeps its session; b asks as its server would.
    std::optional<LaneFence> b_fence;
    for (int tries = 0; !b_fence && tries < 200; ++tries) {
        b_fence = b->hold(kLane);
        if (!b_fence) std::this_thread::sleep_for(100ms);
    }
    REQUIRE(b_fence);
    const auto taken = std::chrono::system_clock::now();
    CHECK(taken >= lease_until);  // never while a's lease ran
    CHECK(b_fence->epoch == a_fence->epoch + 1);
    // a wakes: its session was ended, its hold is gone, its epoch fenced.
    CHECK_FALSE(a->hold(kLane));
    CHECK(test::error_kind([&] { a_store->journal().add({fenced_entry("0x01", 1)}, a_fence); }) == ErrorKind::unavailable);

    // A stopping owner gives the lane up: the next takes it without waiting for the lease.
    b->release(kLane);
    const auto a_again = a->hold(kLane);
    REQUIRE(a_again);
    CHECK(a_again->epoch == b_fence->epoch + 1);
}
