// Store::create_accounts (bulk onboarding) on a real SQLite file: users and
// their wallets in one transaction, and nothing at all when any row clashes.

#include <catch2/catch.hpp>

#include "support/error_kind.hpp"
#include "unit/store/store_fixture.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;

TEST_CASE("store: create_accounts creates users with their wallets, in order", "[store]") {
    FreshStore f;
    const std::string w1 = "0x1111111111111111111111111111111111111111";
    const std::string w2 = "0x2222222222222222222222222222222222222222";
    const auto created = f.store->create_accounts({
        {NewUser{"Ann@Example.org", "farmer", true}, {w1, w2}},
        {NewUser{"bob@example.org", "verifier", true}, {}},
    });
    REQUIRE(created.size() == 2);
    CHECK(created[0].email == "ann@example.org");
    CHECK(created[1].role == "verifier");
    CHECK(created[0].id != created[1].id);
    CHECK(f.store->find_user_by_email("ann@example.org")->id == created[0].id);
    CHECK(f.store->wallets_of(created[0].id) == std::vector<std::string>{w1, w2});
    CHECK(f.store->find_user_by_wallet(w2)->id == created[0].id);
    CHECK(f.store->wallets_of(created[1].id).empty());
    CHECK(f.store->list_users().size() == 2);
    CHECK(f.store->create_accounts({}).empty());
}

TEST_CASE("store: create_accounts writes nothing when an e-mail or a wallet clashes", "[store]") {
    FreshStore f;
    const User ann = add_user(*f.store, "ann@example.org");
    const std::string taken = "0x1111111111111111111111111111111111111111";
    f.store->link_wallet(ann.id, taken);
    const std::string free = "0x2222222222222222222222222222222222222222";

    // Each batch's last account clashes: with the store, or with an earlier account of the batch.
    const std::vector<std::vector<NewAccount>> batches{
        {{NewUser{"new@example.org", "farmer", true}, {free}}, {NewUser{"ANN@example.org", "farmer", true}, {}}},
        {{NewUser{"new@example.org", "farmer", true}, {free}}, {NewUser{"other@example.org", "farmer", true}, {taken}}},
        {{NewUser{"new@example.org", "farmer", true}, {free}}, {NewUser{"New@example.org", "farmer", true}, {}}},
        {{NewUser{"new@example.org", "farmer", true}, {free}}, {NewUser{"other@example.org", "farmer", true}, {free}}},
    };
    for (const auto& batch : batches) {
        CHECK(test::error_kind([&] { (void)f.store->create_accounts(batch); }) == ErrorKind::conflict);
        CHECK(f.store->count_users() == 1);
        CHECK_FALSE(f.store->find_user_by_wallet(free));
    }
}
