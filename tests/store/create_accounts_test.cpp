// Users::create_accounts (bulk onboarding) on the backend under test: users and
// their wallets in one transaction, and nothing at all when any row clashes.

#include <catch2/catch.hpp>

#include "support/error_kind.hpp"
#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;

TEST_CASE("create_accounts creates users with their wallets, in order", "[store]") {
    FreshStore f;
    const std::string w1 = "0x1111111111111111111111111111111111111111";
    const std::string w2 = "0x2222222222222222222222222222222222222222";
    const auto created = f.store->users().create_accounts({
        {NewUser{"Ann@Example.org", "farmer", true}, {w1, w2}},
        {NewUser{"bob@example.org", "verifier", true}, {}},
    });
    REQUIRE(created.size() == 2);
    CHECK(created[0].email == "ann@example.org");
    CHECK(created[1].role == "verifier");
    CHECK(created[0].id != created[1].id);
    CHECK(f.store->users().find_by_email("ann@example.org")->id == created[0].id);
    CHECK(f.store->credentials().wallets_of(created[0].id) == std::vector<std::string>{w1, w2});
    CHECK(f.store->credentials().find_user_by_wallet(w2)->id == created[0].id);
    CHECK(f.store->credentials().wallets_of(created[1].id).empty());
    CHECK(f.store->users().list().size() == 2);
    CHECK(f.store->users().create_accounts({}).empty());
}

TEST_CASE("create_accounts writes nothing when an e-mail or a wallet clashes", "[store]") {
    FreshStore f;
    const User ann = add_user(*f.store, "ann@example.org");
    const std::string taken = "0x1111111111111111111111111111111111111111";
    f.store->credentials().link_wallet(ann.id, taken);
    const std::string free = "0x2222222222222222222222222222222222222222";

    // Each batch's last account clashes: with the store, or with an earlier account of the batch.
    const std::vector<std::vector<NewAccount>> batches{
        {{NewUser{"new@example.org", "farmer", true}, {free}}, {NewUser{"ANN@example.org", "farmer", true}, {}}},
        {{NewUser{"new@example.org", "farmer", true}, {free}}, {NewUser{"other@example.org", "farmer", true}, {taken}}},
        {{NewUser{"new@example.org", "farmer", true}, {free}}, {NewUser{"New@example.org", "farmer", true}, {}}},
        {{NewUser{"new@example.org", "farmer", true}, {free}}, {NewUser{"other@example.org", "farmer", true}, {free}}},
    };
    for (const auto& batch : batches) {
        CHECK(test::error_kind([&] { (void)f.store->users().create_accounts(batch); }) == ErrorKind::conflict);
        CHECK(f.store->users().count() == 1);
        CHECK_FALSE(f.store->credentials().find_user_by_wallet(free));
    }
}
