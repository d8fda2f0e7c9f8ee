// The store's record of what the service did on chain (issue 4): role-request
// approval, token balances, minted entities, the transaction journal,
// idempotency keys and certificates.

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <optional>
#include <thread>

#include "support/error_kind.hpp"
#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

namespace abci::store::testing {

const std::string kStoreChainId = "31337";
const std::string kStoreWallet = "0x1111111111111111111111111111111111111111";

MintRecord test_mint(std::uint64_t token_id, const std::string& amount, const std::string& tx_hash, TimePoint time) {
    return MintRecord{kStoreChainId, kStoreWallet, token_id, amount, "role", "producer", tx_hash, 7, time};
}

JournalEntry test_journal_entry(const std::string& hash, std::uint64_t nonce,
                                const std::string& chain = kStoreChainId) {
    return JournalEntry{hash, chain, kStoreWallet, nonce, "0x02f8", R"({"kind":"mint"})", chain::TxStatus::pending, 0, {}, {}, {}};
}

MintRequest test_mint(const std::string& key, const std::string& fingerprint = "fp") {
    return mint_request("user-1", MintKind::role, key, fingerprint);
}

}  // namespace abci::store::testing

TEST_CASE("role requests move by compare-and-set, record the approver and the mint", "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "requester@example.org");
    const RoleRequest r =
        f.store->role_requests().create(NewRoleRequest{u.id, "producer", kStoreWallet, kStoreChainId, "note"});
    CHECK(r.approved_by.empty());
    CHECK_FALSE(r.approved_at);

    const auto fresh = f.store->role_requests().find(r.id);
    REQUIRE(fresh);
    CHECK(fresh->status == RoleRequestStatus::pending);
    CHECK(fresh->approved_by.empty());
    CHECK_FALSE(fresh->approved_at);
    CHECK(fresh->tx_hash.empty());
    CHECK(fresh->block_number == 0);
    CHECK_FALSE(f.store->role_requests().find("missing"));

    CHECK_FALSE(f.store->role_requests().transition(r.id, RoleRequestStatus::approved, RoleRequestStatus::minted, "admin"));  // not in "approved"
    CHECK_FALSE(f.store->role_requests().transition("missing", RoleRequestStatus::pending, RoleRequestStatus::approved, "admin"));
    CHECK(f.store->role_requests().transition(r.id, RoleRequestStatus::pending, RoleRequestStatus::approved, "admin"));
    CHECK_FALSE(f.store->role_requests().transition(r.id, RoleRequestStatus::pending, RoleRequestStatus::approved, "late-admin"));
    const auto approved = f.store->role_requests().find(r.id);
    REQUIRE(approved);
    CHECK(approved->status == RoleRequestStatus::approved);
    CHECK(approved->approved_by == "admin");
    REQUIRE(approved->approved_at);
    CHECK(std::chrono::abs(*approved->approved_at - std::chrono::system_clock::now()) < 5s);
    CHECK(approved->updated_at == *approved->approved_at);

    f.store->role_requests().set_minted(r.id, "0xabc", 42);
    const auto minted = f.store->role_requests().find(r.id);
    REQUIRE(minted);
    CHECK(minted->status == RoleRequestStatus::minted);
    CHECK(minted->tx_hash == "0xabc");
    CHECK(minted->block_number == 42);
    CHECK(minted->approved_by == "admin");                // other moves keep the approval
    f.store->role_requests().set_minted(r.id, "0xabc", 42);  // idempotent
    CHECK(f.store->role_requests().find(r.id)->updated_at == minted->updated_at);
    CHECK(f.store->role_requests().list(RoleRequestStatus::minted).at(0).tx_hash == "0xabc");
    CHECK(test::error_kind([&] { f.store->role_requests().set_minted("missing", "0xabc", 42); }) == ErrorKind::not_found);

    // A move to another status leaves the approval fields alone.
    const RoleRequest other =
        f.store->role_requests().create(NewRoleRequest{u.id, "verifier", kStoreWallet, kStoreChainId, ""});
    CHECK(f.store->role_requests().transition(other.id, RoleRequestStatus::pending, RoleRequestStatus::rejected, "admin"));
    const auto rejected = f.store->role_requests().find(other.id);
    CHECK(rejected->status == RoleRequestStatus::rejected);
    CHECK(rejected->approved_by.empty());
    CHECK_FALSE(rejected->approved_at);
}

TEST_CASE("role requests: one pending per wallet, role and chain, and a refused approval fails, then is rejected or "
          "approved again",
          "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "twins@example.org");
    auto& requests = f.store->role_requests();
    const RoleRequest first = requests.create(NewRoleRequest{u.id, "producer", kStoreWallet, kStoreChainId, ""});
    std::string refusal;
    try {
        (void)requests.create(NewRoleRequest{u.id, "producer", kStoreWallet, kStoreChainId, "again"});
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::conflict);
        refusal = e.what();
    }
    CHECK(refusal.find(first.id) != std::string::npos);
    // Another role, wallet or chain is another request.
    (void)requests.create(NewRoleRequest{u.id, "verifier", kStoreWallet, kStoreChainId, ""});
    (void)requests.create(NewRoleRequest{u.id, "producer", "0x2222222222222222222222222222222222222222", kStoreChainId, ""});
    (void)requests.create(NewRoleRequest{u.id, "producer", kStoreWallet, "other-chain", ""});
    CHECK(requests.list(RoleRequestStatus::pending).size() == 4);

    CHECK_FALSE(requests.fail(first.id, "not approved yet"));
    REQUIRE(requests.transition(first.id, RoleRequestStatus::pending, RoleRequestStatus::approved, "admin"));
    CHECK(requests.find(first.id)->attempt == 0);
    // No longer pending: the same request may be filed again.
    const RoleRequest second = requests.create(NewRoleRequest{u.id, "producer", kStoreWallet, kStoreChainId, ""});
    CHECK(requests.transition(second.id, RoleRequestStatus::pending, RoleRequestStatus::rejected, "admin"));

    CHECK(requests.fail(first.id, "0x11 already holds the producer role token"));
    CHECK_FALSE(requests.fail(first.id, "twice"));
    const auto failed = requests.find(first.id);
    REQUIRE(failed);
    CHECK(failed->status == RoleRequestStatus::failed);
    CHECK(failed->failure == "0x11 already holds the producer role token");
    CHECK(failed->approved_by == "admin");
    CHECK(requests.list(RoleRequestStatus::failed).size() == 1);

    // Approved again: a new attempt, the failure cleared, the new approver recorded.
    REQUIRE(requests.transition(first.id, RoleRequestStatus::failed, RoleRequestStatus::approved, "second-admin"));
    const auto retried = requests.find(first.id);
    CHECK(retried->status == RoleRequestStatus::approved);
    CHECK(retried->attempt == 1);
    CHECK(retried->failure.empty());
    CHECK(retried->approved_by == "second-admin");
    CHECK(requests.fail(first.id, "refused again"));
    CHECK(requests.transition(first.id, RoleRequestStatus::failed, RoleRequestStatus::rejected, "admin"));
    CHECK(requests.find(first.id)->status == RoleRequestStatus::rejected);
    CHECK(requests.find(first.id)->attempt == 1);
}

TEST_CASE("concurrent record_mint calls each land once, and one that fails fails alone", "[store]") {
    FreshStore f;
    const TimePoint now = millis_from_now(0ms);
    const std::string max = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    f.store->tokens().record_mint(test_mint(3, max, "0x00", now));
    // 64 threads: the recordings that meet share transactions (group commit),
    // and the one that would overflow must not take its neighbours with it.
    std::vector<std::thread> threads;
    std::vector<std::optional<ErrorKind>> outcome(64);
    for (int i = 0; i < 64; ++i)
        threads.emplace_back([&, i] {
            MintRecord m = i == 13 ? test_mint(3, "1", "0xff", now) : test_mint(1, "1", fmt::format("0x{:02x}", i + 1), now);
            if (i != 13) m.address = fmt::format("0x{:040x}", i + 1);
            try {  // no Catch2 assertions off the test's thread
                f.store->tokens().record_mint(m);
            } catch (const Error& e) {
                outcome[i] = e.kind();
            }
        });
    for (auto& t : threads) t.join();
    for (int i = 0; i < 64; ++i) {
        INFO("recording " << i);
        if (i == 13) {
            CHECK(outcome[i] == ErrorKind::invalid_input);
        } else {
            CHECK_FALSE(outcome[i]);
            CHECK(f.store->tokens().find_balance(kStoreChainId, fmt::format("0x{:040x}", i + 1), 1)->balance == "1");
        }
    }
    CHECK(f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 3)->balance == max);
}

TEST_CASE("record_mint adds to the balance, beyond 64 bits, once per transaction", "[store]") {
    FreshStore f;
    const TimePoint t1 = millis_from_now(-1min);
    const TimePoint t2 = millis_from_now(0ms);
    CHECK_FALSE(f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 1));

    f.store->tokens().record_mint(test_mint(1, "18446744073709551615", "0xaa", t1));  // 2^64 - 1
    auto balance = f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 1);
    REQUIRE(balance);
    CHECK(balance->balance == "18446744073709551615");
    CHECK(balance->token_type == "role");
    CHECK(balance->category == "producer");
    CHECK(balance->tx_hash == "0xaa");
    CHECK(balance->block_number == 7);
    CHECK(balance->minted_at == t1);
    CHECK(balance->last_minted == t1);
    CHECK(balance->last_updated == t1);
    CHECK_FALSE(balance->last_synced);

    f.store->tokens().record_mint(test_mint(1, "1", "0xaa", t2));  // the same transaction again: nothing
    CHECK(f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 1)->balance == "18446744073709551615");

    f.store->tokens().record_mint(test_mint(1, "2", "0xbb", t2));
    balance = f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 1);
    CHECK(balance->balance == "18446744073709551617");
    CHECK(balance->tx_hash == "0xbb");
    CHECK(balance->minted_at == t1);
    CHECK(balance->last_minted == t2);
    CHECK(balance->last_updated == t2);

    // One transaction minting to another token and another wallet adds to each.
    f.store->tokens().record_mint(test_mint(2, "5", "0xbb", t2));
    MintRecord elsewhere = test_mint(1, "3", "0xbb", t2);
    elsewhere.address = "0x2222222222222222222222222222222222222222";
    f.store->tokens().record_mint(elsewhere);
    CHECK(f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 2)->balance == "5");
    CHECK(f.store->tokens().find_balance(kStoreChainId, elsewhere.address, 1)->balance == "3");
    CHECK(f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 1)->balance == "18446744073709551617");
    CHECK_FALSE(f.store->tokens().find_balance("1", kStoreWallet, 1));

    CHECK(test::error_kind([&] { f.store->tokens().record_mint(test_mint(1, "12x", "0xcc", t2)); }) == ErrorKind::invalid_input);
    const std::string max = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    f.store->tokens().record_mint(test_mint(3, max, "0xdd", t2));
    CHECK(test::error_kind([&] { f.store->tokens().record_mint(test_mint(3, "1", "0xee", t2)); }) == ErrorKind::invalid_input);
    CHECK(f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 3)->balance == max);
    f.store->tokens().record_mint(test_mint(3, "0", "0xee", t2));  // the failed overflow left no trace of 0xee:
    CHECK(f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 3)->tx_hash == "0xee");  // this one is not a repeat
}

TEST_CASE("balances_of lists the non-zero rows by token id", "[store]") {
    FreshStore f;
    const TimePoint t = millis_from_now(0ms);
    const std::uint64_t huge = (std::uint64_t{1} << 63) + 5;  // stored negative: must still sort last
    f.store->tokens().record_mint(test_mint(huge, "1", "0x01", t));
    f.store->tokens().record_mint(test_mint(9, "4", "0x02", t));
    f.store->tokens().record_mint(test_mint(2, "0", "0x03", t));
    f.store->tokens().record_mint(test_mint(3, "1", "0x04", t));
    const auto rows = f.store->tokens().balances_of(kStoreChainId, kStoreWallet);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].token_id == 3);
    CHECK(rows[1].token_id == 9);
    CHECK(rows[1].balance == "4");
    CHECK(rows[2].token_id == huge);
    CHECK(f.store->tokens().balances_of(kStoreChainId, "0x3333333333333333333333333333333333333333").empty());
}

TEST_CASE("sync_balances creates and updates rows, last_updated only on change", "[store]") {
    FreshStore f;
    const TimePoint minted = millis_from_now(-2h);
    const TimePoint sync1 = millis_from_now(-1h);
    const TimePoint sync2 = millis_from_now(0ms);
    f.store->tokens().record_mint(test_mint(1, "10", "0xaa", minted));
    f.store->tokens().record_mint(test_mint(2, "20", "0xbb", minted));

    f.store->tokens().sync_balances(kStoreChainId, kStoreWallet,
                                 {ChainBalance{1, "10", "role", "producer"}, ChainBalance{2, "25", "role", "verifier"},
                                  ChainBalance{5, "0x3", "entity", "report"}, ChainBalance{6, "0", "entity", "x"}},
                                 sync1);
    auto same = f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 1);
    CHECK(same->balance == "10");
    CHECK(same->last_updated == minted);
    CHECK(same->last_synced == sync1);
    auto changed = f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 2);
    CHECK(changed->balance == "25");
    CHECK(changed->last_updated == sync1);
    CHECK(changed->last_synced == sync1);
    CHECK(changed->tx_hash == "0xbb");       // the service's own mint is still on record
    CHECK(changed->category == "producer");  // and so is what it knew of the token
    auto created = f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 5);
    REQUIRE(created);
    CHECK(created->balance == "3");  // stored in decimal whatever the chain's form
    CHECK(created->token_type == "entity");
    CHECK(created->category == "report");
    CHECK(created->tx_hash.empty());
    CHECK_FALSE(created->minted_at);
    CHECK_FALSE(created->last_minted);
    CHECK(created->last_updated == sync1);
    CHECK(created->last_synced == sync1);
    CHECK_FALSE(f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 6));  // zero and unknown: no row

    f.store->tokens().sync_balances(kStoreChainId, kStoreWallet, {ChainBalance{1, "0", "role", "producer"}}, sync2);
    same = f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 1);
    CHECK(same->balance == "0");
    CHECK(same->last_updated == sync2);
    CHECK(same->last_synced == sync2);
    CHECK(f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 2)->last_synced == sync1);  // not named this time
    const auto listed = f.store->tokens().balances_of(kStoreChainId, kStoreWallet);
    REQUIRE(listed.size() == 2);
    CHECK(listed[0].token_id == 2);
    CHECK(listed[1].token_id == 5);

    CHECK(test::error_kind([&] {
              f.store->tokens().sync_balances(kStoreChainId, kStoreWallet,
                                           {ChainBalance{2, "1", "role", ""}, ChainBalance{3, "-1", "role", ""}},
                                           sync2);
          }) == ErrorKind::invalid_input);
    CHECK(f.store->tokens().find_balance(kStoreChainId, kStoreWallet, 2)->balance == "25");  // all or nothing
}

TEST_CASE("Entities::find returns the latest of a token, or the one with an entity id", "[store]") {
    FreshStore f;
    const Entity first = f.store->entities().record(Entity{
        0, kStoreChainId, "report", "report-1", 100, kStoreWallet, 1, "bafy1", R"({"name":"a"})", "0x01", 10, {}});
    const Entity second = f.store->entities().record(Entity{
        0, kStoreChainId, "report", "report-2", 100, kStoreWallet, 2, "bafy2", R"({"name":"b"})", "0x02", 11, {}});
    (void)f.store->entities().record(
        Entity{0, "1", "report", "report-3", 100, kStoreWallet, 3, "bafy3", "{}", "0x03", 12, {}});  // another network
    CHECK(second.id > first.id);
    CHECK(std::chrono::abs(first.created_at - std::chrono::system_clock::now()) < 5s);

    const auto latest = f.store->entities().find(kStoreChainId, 100, std::nullopt);
    REQUIRE(latest);
    CHECK(latest->id == second.id);
    CHECK(latest->entity_id == "report-2");
    CHECK(latest->metadata == R"({"name":"b"})");
    CHECK(latest->created_at == second.created_at);

    const auto by_id = f.store->entities().find(kStoreChainId, 100, std::string("report-1"));
    REQUIRE(by_id);
    CHECK(by_id->id == first.id);
    CHECK(by_id->entity_type == "report");
    CHECK(by_id->token_id == 100);
    CHECK(by_id->recipient == kStoreWallet);
    CHECK(by_id->amount == 1);
    CHECK(by_id->cid == "bafy1");
    CHECK(by_id->tx_hash == "0x01");
    CHECK(by_id->block_number == 10);
    CHECK_FALSE(f.store->entities().find(kStoreChainId, 100, std::string("report-3")));
    CHECK_FALSE(f.store->entities().find(kStoreChainId, 101, std::nullopt));
}

TEST_CASE("the journal adds pending entries, settles them, lists pending by nonce", "[store]") {
    FreshStore f;
    f.store->journal().add({test_journal_entry("0x03", 3), test_journal_entry("0x01", 1)});
    f.store->journal().add({test_journal_entry("0x02", 2), test_journal_entry("0x09", 0, "1")});

    const auto one = f.store->journal().find("0x01");
    REQUIRE(one);
    CHECK(one->status == chain::TxStatus::pending);
    CHECK(one->sender == kStoreWallet);
    CHECK(one->nonce == 1);
    CHECK(one->raw == "0x02f8");
    CHECK(one->purpose == R"({"kind":"mint"})");
    CHECK(one->block_number == 0);
    CHECK(one->created_at == one->updated_at);
    CHECK(std::chrono::abs(one->created_at - std::chrono::system_clock::now()) < 5s);
    CHECK_FALSE(f.store->journal().find("0x04"));

    auto pending = f.store->journal().pending(kStoreChainId);
    REQUIRE(pending.size() == 3);
    CHECK(pending[0].hash == "0x01");
    CHECK(pending[1].hash == "0x02");
    CHECK(pending[2].hash == "0x03");

    f.store->journal().settle({{"0x02", chain::TxStatus::mined, 99}});
    const auto mined = f.store->journal().find("0x02");
    CHECK(mined->status == chain::TxStatus::mined);
    CHECK(mined->block_number == 99);
    f.store->journal().settle({{"0x01", chain::TxStatus::dropped, 0}});
    pending = f.store->journal().pending(kStoreChainId);
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].hash == "0x03");
    CHECK(f.store->journal().pending("1").size() == 1);
    CHECK(test::error_kind([&] { f.store->journal().settle({{"0x04", chain::TxStatus::mined, 1}}); }) == ErrorKind::not_found);
    // A batch with an unknown hash settles none of it.
    CHECK(test::error_kind([&] { f.store->journal().settle({{"0x03", chain::TxStatus::mined, 7}, {"0x04", chain::TxStatus::mined, 7}}); }) ==
          ErrorKind::not_found);
    CHECK(f.store->journal().find("0x03")->status == chain::TxStatus::pending);

    // A duplicate hash refuses the whole batch.
    CHECK(test::error_kind([&] {
              f.store->journal().add({test_journal_entry("0x05", 5), test_journal_entry("0x03", 3)});
          }) == ErrorKind::conflict);
    CHECK_FALSE(f.store->journal().find("0x05"));
    CHECK(f.store->journal().find("0x03")->nonce == 3);

    // Several at once.
    f.store->journal().settle({{"0x03", chain::TxStatus::mined, 7}, {"0x09", chain::TxStatus::reverted, 8}});
    CHECK(f.store->journal().find("0x03")->status == chain::TxStatus::mined);
    CHECK(f.store->journal().find("0x03")->block_number == 7);
    CHECK(f.store->journal().find("0x09")->status == chain::TxStatus::reverted);
    CHECK(f.store->journal().pending(kStoreChainId).empty());
}

TEST_CASE("the journal takes a refused transaction's bytes again, and nothing else twice", "[store]") {
    FreshStore f;
    f.store->journal().add({test_journal_entry("0x01", 1), test_journal_entry("0x02", 2)});
    f.store->journal().settle({{"0x01", chain::TxStatus::refused, 0}, {"0x02", chain::TxStatus::mined, 9}});
    f.store->journal().add({test_journal_entry("0x01", 1)});
    CHECK(f.store->journal().find("0x01")->status == chain::TxStatus::pending);
    CHECK(test::error_kind([&] { f.store->journal().add({test_journal_entry("0x01", 1)}); }) == ErrorKind::conflict);
    CHECK(test::error_kind([&] { f.store->journal().add({test_journal_entry("0x02", 2)}); }) == ErrorKind::conflict);
    // A final entry keeps its fate.
    f.store->journal().settle({{"0x02", chain::TxStatus::dropped, 0}});
    CHECK(f.store->journal().find("0x02")->status == chain::TxStatus::mined);
    CHECK(f.store->journal().list("", {chain::TxStatus::pending}, 10).size() == 1);
    CHECK(f.store->journal().list(kStoreChainId, {}, 10).size() == 2);
    CHECK(f.store->journal().list("other", {}, 10).empty());

    // A reorg deeper than the confirmations takes a mined entry back to pending; nothing else moves.
    f.store->journal().reopen("0x02");
    CHECK(f.store->journal().find("0x02")->status == chain::TxStatus::pending);
    CHECK(f.store->journal().find("0x02")->block_number == 0);
    f.store->journal().settle({{"0x01", chain::TxStatus::replaced, 0}});
    f.store->journal().reopen("0x01");
    CHECK(f.store->journal().find("0x01")->status == chain::TxStatus::replaced);
}

TEST_CASE("mints: begin with a key, replay, finish, release and reclaim", "[store]") {
    FreshStore f;
    const auto first = test_mint("k1", "fp-1");
    CHECK_FALSE(f.store->mints().begin(first));
    auto again = f.store->mints().begin(test_mint("k1", "fp-2"));
    REQUIRE(again);
    CHECK(again->id == first.id);  // the first mint, unchanged
    CHECK(again->state == store::MintState::pending);
    CHECK(again->fingerprint == "fp-1");
    CHECK(std::chrono::abs(again->created_at - std::chrono::system_clock::now()) < 5s);
    CHECK(f.store->journal().of_mint(first.id).empty());

    // Journaled transactions are linked to their mints in the same write.
    auto tx = test_journal_entry("0xfeed", 4);
    tx.mint_ids = {first.id};
    f.store->journal().add({tx});
    REQUIRE(f.store->journal().of_mint(first.id).size() == 1);
    CHECK(f.store->journal().of_mint(first.id)[0].nonce == 4);

    CHECK(f.store->mints().finish(first.id, store::MintState::done, R"({"success":true})"));
    const auto done = f.store->mints().begin(test_mint("k1"));
    REQUIRE(done);
    CHECK(done->state == store::MintState::done);
    CHECK(done->answer == R"({"success":true})");
    CHECK_FALSE(f.store->mints().release(first.id, "{}"));  // a final mint stays as it is, key included
    CHECK_FALSE(f.store->mints().finish(first.id, store::MintState::failed, "{}"));
    CHECK(f.store->mints().begin(test_mint("k1"))->state == store::MintState::done);
    CHECK(f.store->mints().find_by_key({"user-1", first.kind, "k1"})->id == first.id);

    // Another actor, kind or key is another mint; without a key every mint is new.
    auto other_actor = test_mint("k1");
    other_actor.actor = "apikey:2";
    CHECK_FALSE(f.store->mints().begin(other_actor));
    auto other_kind = test_mint("k1");
    other_kind.kind = MintKind::entity;
    CHECK_FALSE(f.store->mints().begin(other_kind));
    CHECK_FALSE(f.store->mints().begin(test_mint("")));
    CHECK_FALSE(f.store->mints().begin(test_mint("")));

    const auto k2 = test_mint("k2");
    CHECK_FALSE(f.store->mints().begin(k2));
    const auto pending = f.store->mints().pending();  // k1 of user-1 is done
    REQUIRE(pending.size() == 5);
    CHECK(pending[0].actor == "apikey:2");
    CHECK(pending[1].kind == MintKind::entity);
    CHECK(pending[4].idempotency_key == "k2");
    // Released: failed with its answer, and the key free for a new mint.
    CHECK(f.store->mints().release(k2.id, R"({"kind":"timeout"})"));
    CHECK(f.store->mints().find(k2.id)->state == store::MintState::failed);
    CHECK_FALSE(f.store->mints().release(k2.id, "{}"));  // made final once: the metrics count it once
    CHECK(f.store->mints().find(k2.id)->answer == R"({"kind":"timeout"})");
    const auto k2_again = test_mint("k2", "fp-3");
    CHECK_FALSE(f.store->mints().begin(k2_again));
    CHECK(f.store->mints().begin(test_mint("k2"))->fingerprint == "fp-3");
    CHECK(f.store->mints().find_by_key({"user-1", k2.kind, "k2"})->id == k2_again.id);

    CHECK(test::error_kind([&] { f.store->mints().finish("missing", store::MintState::done, ""); }) == ErrorKind::not_found);
    CHECK(test::error_kind([&] { f.store->mints().release("missing", ""); }) == ErrorKind::not_found);
    CHECK_FALSE(f.store->mints().find("missing"));
}

TEST_CASE("certificates are created pending, found, listed and marked minted", "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "certifier@example.org", "verifier");
    const User other = add_user(*f.store, "other@example.org");
    const std::string recipient = "0x2222222222222222222222222222222222222222";
    const Certificate c1 = f.store->certificates().create(
        NewCertificate{u.id, kStoreChainId, kStoreWallet, recipient, "Organic", "2025", "bafyc1"});
    const Certificate c2 = f.store->certificates().create(
        NewCertificate{u.id, kStoreChainId, kStoreWallet, kStoreWallet, "Second", "", "bafyc2"});
    CHECK(c1.status == CertificateStatus::pending);
    CHECK(c1.created_at == c1.updated_at);

    const auto found = f.store->certificates().find(c1.id);
    REQUIRE(found);
    CHECK(found->user_id == u.id);
    CHECK(found->blockchain_id == kStoreChainId);
    CHECK(found->wallet_address == kStoreWallet);
    CHECK(found->recipient == recipient);
    CHECK(found->title == "Organic");
    CHECK(found->description == "2025");
    CHECK(found->status == CertificateStatus::pending);
    CHECK(found->cid == "bafyc1");
    CHECK(found->token_id == 0);
    CHECK(found->tx_hash.empty());
    CHECK(found->token.empty());
    CHECK(found->created_at == c1.created_at);
    CHECK_FALSE(f.store->certificates().find("missing"));

    const auto mine = f.store->certificates().of_user(u.id);
    REQUIRE(mine.size() == 2);
    CHECK(mine[0].id == c1.id);
    CHECK(mine[1].id == c2.id);
    CHECK(f.store->certificates().of_user(other.id).empty());

    f.store->certificates().set_minted(c1.id, 1000001, "0xcafe", 77, R"({"tokenId":"1000001"})", "mint-1");
    const auto minted = f.store->certificates().find(c1.id);
    CHECK(minted->status == CertificateStatus::minted);
    CHECK(minted->token_id == 1000001);
    CHECK(minted->tx_hash == "0xcafe");
    CHECK(minted->block_number == 77);
    CHECK(minted->token == R"({"tokenId":"1000001"})");
    f.store->certificates().set_minted(c1.id, 1000001, "0xcafe", 77, R"({"tokenId":"1000001"})", "mint-1");  // idempotent
    CHECK(f.store->certificates().find(c1.id)->updated_at == minted->updated_at);
    CHECK(f.store->certificates().find(c2.id)->status == CertificateStatus::pending);

    CHECK(test::error_kind([&] { f.store->certificates().set_minted("missing", 1, "0x1", 1, "{}", ""); }) ==
          ErrorKind::not_found);
    CHECK(test::error_kind([&] {
              (void)f.store->certificates().create(
                  NewCertificate{"missing", kStoreChainId, kStoreWallet, kStoreWallet, "t", "d", "c"});
          }) == ErrorKind::not_found);
}
