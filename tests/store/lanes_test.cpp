// Lanes (lanes.hpp) on one server: the election gives a lane an epoch, the
// journal writes only under the epoch that owns it. Several servers
// contending for a lane need PostgreSQL: tests/integration/lane_election_test.cpp.

#include <catch2/catch.hpp>

#include "support/error_kind.hpp"
#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

namespace {

JournalEntry lane_entry(const std::string& hash, std::uint64_t nonce) {
    return JournalEntry{hash, "chain", "0xabc", nonce, "0x02f8", "{}", chain::TxStatus::pending, 0, {}, {}, {}};
}

}  // namespace

TEST_CASE("a lane is taken with a new epoch, renewed under it, and journal writes are fenced by it", "[store][lanes]") {
    FreshStore f;
    const std::string lane = "chain/0xabc";
    const auto before = std::chrono::system_clock::now();
    {
        const auto election = f.store->open_lane_election("server-a");
        const auto fence = election->hold(lane);
        REQUIRE(fence);
        CHECK(fence->lane == lane);
        CHECK(fence->epoch == 1);
        CHECK(election->hold(lane)->epoch == 1);  // renewed, same epoch

        const auto status = f.store->lanes().find(lane);
        REQUIRE(status);
        CHECK(status->owner == "server-a");
        CHECK(status->epoch == 1);
        CHECK(status->lease_until > before);
        CHECK(status->halted.empty());

        f.store->journal().add({lane_entry("0x01", 1)}, fence);
        CHECK(f.store->journal().find("0x01"));
        CHECK(test::error_kind([&] { f.store->journal().add({lane_entry("0x02", 2)}, LaneFence{lane, 7}); }) ==
              ErrorKind::unavailable);
        CHECK_FALSE(f.store->journal().find("0x02"));
        CHECK(test::error_kind([&] { f.store->journal().add({lane_entry("0x03", 3)}, LaneFence{"other/0x1", 1}); }) ==
              ErrorKind::unavailable);
        CHECK_FALSE(f.store->journal().find("0x03"));
    }
    // Given up when its server stopped: the lease ends then, not 3 s later.
    CHECK(f.store->lanes().find(lane)->lease_until <= std::chrono::system_clock::now());

    // The next owner (a restart) fences the last: its writes are refused.
    const auto next = f.store->open_lane_election("server-b");
    const auto fence = next->hold(lane);
    REQUIRE(fence);
    CHECK(fence->epoch == 2);
    CHECK(test::error_kind([&] { f.store->journal().add({lane_entry("0x04", 4)}, LaneFence{lane, 1}); }) ==
          ErrorKind::unavailable);
    f.store->journal().add({lane_entry("0x04", 4)}, fence);

    // A halt under a stale epoch is ignored; under the owner's, recorded.
    f.store->lanes().halt(LaneFence{lane, 1}, "stale");
    CHECK(f.store->lanes().find(lane)->halted.empty());
    f.store->lanes().halt(*fence, "the signer's nonce moved on without us");
    CHECK(f.store->lanes().find(lane)->halted == "the signer's nonce moved on without us");
    CHECK(f.store->lanes().list().size() == 1);
}

TEST_CASE("a lane's accepted nonce is set under its fence, a halt is cleared by resume, and the journal names its next nonce",
          "[store][lanes]") {
    FreshStore f;
    const std::string lane = "chain/0xabc";
    const auto election = f.store->open_lane_election("server-a");
    const auto fence = election->hold(lane);
    REQUIRE(fence);
    CHECK_FALSE(f.store->lanes().find(lane)->accepted_nonce);
    f.store->lanes().accept_nonce({lane, fence->epoch + 1}, 3);  // a stale fence writes nothing
    CHECK_FALSE(f.store->lanes().find(lane)->accepted_nonce);
    f.store->lanes().accept_nonce(*fence, 7);
    CHECK(f.store->lanes().find(lane)->accepted_nonce == 7u);

    CHECK_FALSE(f.store->lanes().resume(lane));  // not halted
    f.store->lanes().halt(*fence, "the key is used elsewhere");
    CHECK(f.store->lanes().find(lane)->halted == "the key is used elsewhere");
    CHECK(f.store->lanes().resume(lane));
    const auto resumed = f.store->lanes().find(lane);
    CHECK(resumed->halted.empty());
    CHECK_FALSE(resumed->accepted_nonce);  // the next owner takes the chain's
    CHECK_FALSE(f.store->lanes().resume("other/0xabc"));

    CHECK_FALSE(f.store->journal().next_nonce("chain", "0xabc"));
    f.store->journal().add({lane_entry("0x" + std::string(64, '1'), 4), lane_entry("0x" + std::string(64, '2'), 9)});
    CHECK(f.store->journal().next_nonce("chain", "0xabc") == 10u);
    CHECK_FALSE(f.store->journal().next_nonce("chain", "0xdef"));
    CHECK_FALSE(f.store->journal().next_nonce("other", "0xabc"));
}

TEST_CASE("a lane's stuck transactions are replaced under its fence and read back whole", "[store][lanes]") {
    FreshStore f;
    const std::string lane = "chain/0xabc";
    const auto election = f.store->open_lane_election("server-a");
    const auto fence = election->hold(lane);
    REQUIRE(fence);
    CHECK(f.store->lanes().find(lane)->stuck.empty());
    const std::vector<StuckTransaction> stuck{{.nonce = 7, .hash = "0x" + std::string(64, 'a'), .since = millis_from_now(-40s)},
                                              {.nonce = 8, .hash = "0x" + std::string(64, 'b'), .since = millis_from_now(-35s)}};
    f.store->lanes().report_stuck({lane, fence->epoch + 1}, stuck);  // a stale fence writes nothing
    CHECK(f.store->lanes().find(lane)->stuck.empty());
    f.store->lanes().report_stuck(*fence, stuck);
    CHECK(f.store->lanes().find(lane)->stuck == stuck);
    CHECK(f.store->lanes().list().front().stuck == stuck);
    f.store->lanes().report_stuck(*fence, {});
    CHECK(f.store->lanes().find(lane)->stuck.empty());
}
