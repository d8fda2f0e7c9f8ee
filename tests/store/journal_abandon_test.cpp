// Journal::abandon: the operator's way out of a pending journal entry
// (`abcictl admin journal abandon`); only pending leaves pending.

#include <catch2/catch.hpp>

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
