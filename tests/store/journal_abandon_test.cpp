// Journal::abandon: the operator's way out of a pending journal entry
// (`abcictl admin journal abandon`); only pending leaves pending.

#include <catch2/catch.hpp>

#include "core/service/journal_admin.hpp"
#include "support/error_kind.hpp"
#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;

namespace {

JournalEntry journal_entry(const std::string& hash, std::uint64_t nonce) {
    JournalEntry entry;
    entry.hash = hash;
    entry.blockchain_id = "devnet";
    entry.sender = "0x1111111111111111111111111111111111111111";
    entry.nonce = nonce;
    entry.raw = "0x02f8";
    entry.purpose = R"({"op":"mint"})";
    return entry;
}

}  // namespace

TEST_CASE("Journal::abandon gives up a pending entry, and only a pending one", "[store]") {
    FreshStore f;
    f.store->journal().add({journal_entry("0x01", 1), journal_entry("0x02", 2), journal_entry("0x03", 3)});
    f.store->journal().settle({{"0x02", chain::TxStatus::mined, 9}});

    CHECK(f.store->journal().abandon("0x01"));
    const auto abandoned = f.store->journal().find("0x01");
    REQUIRE(abandoned);
    CHECK(abandoned->status == chain::TxStatus::abandoned);
    CHECK(abandoned->block_number == 0);
    CHECK(abandoned->updated_at >= abandoned->created_at);
    // Final is final: abandoned again, or mined, nothing changes.
    CHECK_FALSE(f.store->journal().abandon("0x01"));
    CHECK_FALSE(f.store->journal().abandon("0x02"));
    CHECK(f.store->journal().find("0x02")->status == chain::TxStatus::mined);
    CHECK(f.store->journal().find("0x02")->block_number == 9);
    // An abandoned entry is no longer pending, and a settlement leaves it as it is.
    const auto pending = f.store->journal().pending("devnet");
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].hash == "0x03");
    f.store->journal().settle({{"0x01", chain::TxStatus::dropped, 0}});
    CHECK(f.store->journal().find("0x01")->status == chain::TxStatus::abandoned);
    CHECK(f.store->journal().list("devnet", {chain::TxStatus::abandoned}, 10).size() == 1);

    CHECK(test::error_kind([&] { (void)f.store->journal().abandon("0x04"); }) == ErrorKind::not_found);
    CHECK(f.store->journal().find("0x03")->status == chain::TxStatus::pending);
}

// Issue 30 item 9: what the chain shows has the last word over the
// operator's. An abandoned entry that a receipt shows landed is settled as
// such; its mint, released by the abandon, is reopened for the answer the
// chain proves, and its key claimed again unless a retry took it meanwhile.
TEST_CASE("an abandoned entry found mined is settled mined, and its released mint reopened", "[store]") {
    FreshStore f;
    f.store->journal().add({journal_entry("0x01", 1), journal_entry("0x02", 2)});
    REQUIRE(f.store->journal().abandon("0x01"));
    REQUIRE(f.store->journal().abandon("0x02"));
    f.store->journal().settle({{"0x01", chain::TxStatus::mined, 12}, {"0x02", chain::TxStatus::replaced, 0}});
    CHECK(f.store->journal().find("0x01")->status == chain::TxStatus::mined);
    CHECK(f.store->journal().find("0x01")->block_number == 12);
    CHECK(f.store->journal().find("0x02")->status == chain::TxStatus::abandoned);

    constexpr auto kind = MintKind::role;
    const auto released = mint_request("user-1", kind, "k1", "fp");
    const auto retried = mint_request("user-1", kind, "k2", "fp");
    CHECK_FALSE(f.store->mints().begin(released));
    CHECK_FALSE(f.store->mints().begin(retried));
    f.store->mints().release(released.id, R"({"kind":"unavailable"})");
    f.store->mints().release(retried.id, R"({"kind":"unavailable"})");
    // A retry of k2 claimed its key meanwhile: it keeps it.
    const auto retry = mint_request("user-1", kind, "k2", "fp-2");
    CHECK_FALSE(f.store->mints().begin(retry));

    CHECK(f.store->mints().reopen(released.id));
    const auto reopened = f.store->mints().find(released.id);
    CHECK(reopened->state == MintState::pending);
    CHECK(reopened->answer.empty());
    CHECK(f.store->mints().find_by_key({"user-1", kind, "k1"})->id == released.id);
    CHECK(f.store->mints().finish(released.id, MintState::done, R"({"success":true})"));
    CHECK(f.store->mints().begin(mint_request("user-1", kind, "k1", "fp"))->answer == R"({"success":true})");

    CHECK(f.store->mints().reopen(retried.id));
    CHECK(f.store->mints().find_by_key({"user-1", kind, "k2"})->id == retry.id);
    // Only a failed mint is reopened.
    CHECK_FALSE(f.store->mints().reopen(released.id));
    CHECK_FALSE(f.store->mints().reopen(retry.id));
    CHECK(test::error_kind([&] { (void)f.store->mints().reopen("missing"); }) == ErrorKind::not_found);
}

TEST_CASE("a lane records the chain's block 0 under its fence", "[store][lanes]") {
    FreshStore f;
    const std::string lane = "devnet/0x1111111111111111111111111111111111111111";
    const std::string genesis = "0x" + std::string(63, '0') + "a";
    const auto election = f.store->open_lane_election("server-a");
    const auto fence = election->hold(lane);
    REQUIRE(fence);
    CHECK(f.store->lanes().find(lane)->genesis.empty());  // none recorded yet
    f.store->lanes().record_genesis(*fence, genesis);
    CHECK(f.store->lanes().find(lane)->genesis == genesis);
    f.store->lanes().record_genesis(LaneFence{lane, fence->epoch + 1}, "0x" + std::string(64, 'b'));  // not its owner
    CHECK(f.store->lanes().find(lane)->genesis == genesis);
}

// `abandon --force` on a database that replicas share has no data directory
// lock to take: a server sending for the lane is the one holding its lease.
TEST_CASE("Journal abandon: the lane's owner is the server holding its lease, none once given up", "[store]") {
    FreshStore f;
    service::AbandonPlan plan;
    plan.lane = "devnet/0x1111111111111111111111111111111111111111";
    CHECK_FALSE(service::lane_owner(*f.store, plan));  // never held
    const auto election = f.store->open_lane_election("replica-a");
    REQUIRE(election->hold(plan.lane));
    CHECK(service::lane_owner(*f.store, plan) == "replica-a");
    election->release(plan.lane);
    CHECK_FALSE(service::lane_owner(*f.store, plan));
}
