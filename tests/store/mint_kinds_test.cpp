// A mint's kind (mints.hpp, MintKind): stored by its name, and the rows of
// releases that stored the name of a route instead made kinds when the
// schema is migrated, on each backend.

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;

namespace mint_kinds_test {

// The last schema that stored routes: SQLite's kWebhookOrdering, PostgreSQL's 8.
constexpr SchemaVersion kRouteSchema{.sqlite = 13, .postgresql = 8};
constexpr const char* kRoleRoute = "POST /abci/contracts/mint-role-token";
constexpr const char* kEntityRoute = "POST /abci/contracts/mint-entity-token";

struct OldMint {
    const char* id;
    const char* actor;
    const char* route;
    const char* key;  // "" without one
};

// What the previous release stored for each way a mint came: through either
// route with and without a key, a role request's approval (under its
// workflow's actor, keyed by the request), a certificate (keyed by it), and a
// key that only looks like a certificate's.
constexpr OldMint kOldMints[] = {
    {"m-role", "u1", kRoleRoute, "role-key"},
    {"m-role-unkeyed", "u1", kRoleRoute, ""},
    {"m-entity", "u1", kEntityRoute, "entity-key"},
    {"m-entity-unkeyed", "u1", kEntityRoute, ""},
    {"m-workflow", "workflow:role-request", kRoleRoute, "role-request-1"},
    {"m-certificate", "u1", kEntityRoute, "certificate:c-1"},
    {"m-not-certificate", "u1", kEntityRoute, "Certificate:c-2"},
};

std::vector<std::string> old_rows() {
    std::vector<std::string> rows;
    for (const auto& [id, actor, route, key] : kOldMints) {
        rows.push_back(fmt::format("INSERT INTO mint_requests (id, actor, route, blockchain_id, idempotency_key, "
                                   "fingerprint, state, answer, created_at, updated_at) "
                                   "VALUES ('{}', '{}', '{}', 'chain', '{}', 'fp-{}', 'pending', '', 1000, 1000)",
                                   id, actor, route, key, id));
        if (*key)
            rows.push_back(fmt::format("INSERT INTO idempotency_keys (actor, route, key, mint_id, created_at) "
                                       "VALUES ('{}', '{}', '{}', '{}', 1000)",
                                       actor, route, key, id));
    }
    return rows;
}

}  // namespace mint_kinds_test

using namespace mint_kinds_test;

TEST_CASE("store mint kinds: stored by name, a key scoped by its kind", "[store][mint_kinds]") {
    FreshStore f;
    auto& mints = f.store->mints();
    for (const auto kind : all_mint_kinds()) {
        const auto mint = mint_request("u1", kind, "same-key", "fp");
        REQUIRE_FALSE(mints.begin(mint));
        CHECK(mints.find(mint.id)->kind == kind);
        CHECK(mints.find_by_key({"u1", kind, "same-key"})->id == mint.id);
    }
    CHECK(all_mint_kinds() ==
          std::vector{MintKind::role, MintKind::entity, MintKind::workflow_role, MintKind::certificate});
    for (const auto& [kind, name] : {std::pair{MintKind::role, "role"}, {MintKind::entity, "entity"},
                                     {MintKind::workflow_role, "workflow-role"}, {MintKind::certificate, "certificate"}}) {
        CHECK(std::string(to_string(kind)) == name);
        CHECK(parse_mint_kind(name) == kind);
    }
    CHECK_FALSE(parse_mint_kind(kRoleRoute));
    CHECK_FALSE(parse_mint_kind("workflow_role"));
}

TEST_CASE("store mint kinds: the routes an earlier release stored become kinds on upgrade, and its keys still match",
          "[store][mint_kinds]") {
    test::TempDir dir;
    const auto store = open_store_under_test_from(dir, kRouteSchema, old_rows());
    auto& mints = store->mints();
    const std::pair<const char*, MintKind> expected[] = {
        {"m-role", MintKind::role},
        {"m-role-unkeyed", MintKind::role},
        {"m-entity", MintKind::entity},
        {"m-entity-unkeyed", MintKind::entity},
        {"m-workflow", MintKind::workflow_role},
        {"m-certificate", MintKind::certificate},
        {"m-not-certificate", MintKind::entity},
    };
    for (const auto& [id, kind] : expected) {
        INFO(id);
        const auto mint = mints.find(id);
        REQUIRE(mint);
        CHECK(mint->kind == kind);
    }
    for (const auto& [id, actor, route, key] : kOldMints) {
        if (!*key) continue;
        INFO(id);
        const auto kind = mints.find(id)->kind;
        const auto by_key = mints.find_by_key({actor, kind, key});
        REQUIRE(by_key);
        CHECK(by_key->id == id);
        // A repeat of the key is still the first mint's, with its fingerprint.
        auto repeat = mint_request(actor, kind, key, "fp-other");
        const auto claimed = mints.begin(repeat);
        REQUIRE(claimed);
        CHECK(claimed->id == id);
        CHECK(claimed->fingerprint == std::string("fp-") + id);
    }
    // The route's kind no longer names the workflow's mints.
    CHECK_FALSE(mints.find_by_key({"workflow:role-request", MintKind::role, "role-request-1"}));
    CHECK_FALSE(mints.find_by_key({"u1", MintKind::entity, "certificate:c-1"}));
}
