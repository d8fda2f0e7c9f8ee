// Text that means something to SQL (quotes, comments, LIKE wildcards, parameter
// markers) or to a careless encoder (control characters, non-ASCII) goes into
// every text field and comes back byte for byte, and a lookup by it matches
// only its own row.

#include <catch2/catch.hpp>

#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

namespace abci::store::testing {

// Lower-case already where it matters: e-mails are stored lower-cased.
const std::vector<std::string> kAwkwardTexts = {
    "'; drop table users; --",
    "\" or \"\"=\"",
    "' or '1'='1",
    "%",
    "_",
    "a%b_c",
    "\\' \\\"",
    "?1 :name @p $q",
    "/* comment */",
    "üñíçødé ✓ 🙂 日本語",
    "tab\tnew\nline\rcr \x01\x1f\x7f",
    "  spaced  ",
};

}  // namespace abci::store::testing

TEST_CASE("SQL metacharacters are stored and found byte for byte, and match nothing else", "[store]") {
    FreshStore f;
    Store& s = *f.store;
    // Rows whose values a LIKE or a broken quote would match.
    const User decoy = add_user(s, "x");
    s.credentials().link_wallet(decoy.id, "x");
    s.credentials().link_identity(decoy.id, "x", "x");
    s.tickets().put("x", "x", "decoy", millis_from_now(1h));
    s.journal().add({JournalEntry{"x", "x", "x", 1, "decoy", "x", chain::TxStatus::pending, 0, {}, {}, {}}});
    auto decoy_mint = mint_request("x", MintKind::role, "x", "decoy");
    decoy_mint.id = "x";
    CHECK_FALSE(s.mints().begin(decoy_mint));
    const TimePoint expiry = millis_from_now(1h);

    std::vector<User> users;
    for (const std::string& v : kAwkwardTexts) {
        INFO("value: " << v);
        const User u = s.users().create(NewUser{v, v, false});
        users.push_back(u);
        CHECK(u.email == v);
        const auto by_email = s.users().find_by_email(v);
        REQUIRE(by_email);
        CHECK(by_email->id == u.id);
        CHECK(by_email->role == v);

        s.credentials().set_password_hash(u.id, v);
        CHECK(s.credentials().password_hash(u.id) == v);

        s.credentials().link_wallet(u.id, v);
        CHECK(s.credentials().find_user_by_wallet(v)->id == u.id);
        CHECK(s.credentials().wallets_of(u.id) == std::vector<std::string>{v});
        s.credentials().link_identity(u.id, v, v);
        CHECK(s.credentials().find_user_by_identity(v, v)->id == u.id);
        CHECK_FALSE(s.credentials().find_user_by_identity(v, "x"));

        s.sessions().add_refresh_token(RefreshToken{v, v, u.id, expiry});
        const auto token = s.sessions().find_refresh_token(v);
        REQUIRE(token);
        CHECK(token->token_hash == v);
        CHECK(token->family_id == v);

        s.sessions().revoke_token_id(v, expiry);
        CHECK(s.sessions().token_standing(v, v, v).token_revoked);

        s.tickets().put(v, v, v, expiry);
        CHECK(s.tickets().take(v, v, millis_from_now(0ms)) == v);

        const ApiKey key = s.api_keys().create(NewApiKey{v, v, {v, v + v}, v});
        const auto found_key = s.api_keys().find_by_hash(v);
        REQUIRE(found_key);
        CHECK(found_key->id == key.id);
        CHECK(found_key->name == v);
        CHECK(found_key->scopes == std::vector<std::string>{v, v + v});
        CHECK(found_key->created_by == v);

        const Practice p = s.practices().create(NewPractice{u.id, v, v});
        CHECK(s.practices().find(p.id)->title == v);
        CHECK(s.practices().find(p.id)->description == v);
        (void)s.practices().add_verification(NewVerification{p.id, u.id, VerificationOutcome::rejected, v});
        const auto checks = s.practices().verifications_of(p.id);
        REQUIRE(checks.size() == 1);
        CHECK(checks[0].outcome == VerificationOutcome::rejected);
        CHECK(checks[0].notes == v);

        const RoleRequest r = s.role_requests().create(NewRoleRequest{u.id, v, v, v, v});
        CHECK(s.role_requests().list(RoleRequestStatus::approved).empty());  // every request is pending
        CHECK(r.note == v);
        CHECK_FALSE(s.role_requests().transition(r.id, RoleRequestStatus::rejected, RoleRequestStatus::approved, v));
        CHECK(s.role_requests().transition(r.id, RoleRequestStatus::pending, RoleRequestStatus::approved, v));
        s.role_requests().set_minted(r.id, v, 1);
        CHECK(s.role_requests().find(r.id)->approved_by == v);
        CHECK(s.role_requests().find(r.id)->tx_hash == v);

        s.tokens().record_mint(MintRecord{v, v, 1, "1", v, v, v, 1, expiry});
        const auto balance = s.tokens().find_balance(v, v, 1);
        REQUIRE(balance);
        CHECK(balance->token_type == v);
        CHECK(balance->category == v);
        CHECK(balance->tx_hash == v);
        s.tokens().sync_balances(v, v, {ChainBalance{2, "3", v, v}}, expiry);
        CHECK(s.tokens().balances_of(v, v).size() == 2);
        CHECK(s.tokens().find_balance(v, v, 2)->category == v);

        (void)s.entities().record(Entity{0, v, v, v, 1, v, 1, v, v, v, 1, {}});
        const auto entity = s.entities().find(v, 1, v);
        REQUIRE(entity);
        CHECK(entity->entity_type == v);
        CHECK(entity->recipient == v);
        CHECK(entity->cid == v);
        CHECK(entity->metadata == v);
        CHECK(entity->tx_hash == v);

        s.journal().add({JournalEntry{v, v, v, 1, v, v, chain::TxStatus::pending, 0, {}, {}, {}}});
        s.journal().settle({{v, chain::TxStatus::mined, 2}});
        const auto sent = s.journal().find(v);
        REQUIRE(sent);
        CHECK(sent->sender == v);
        CHECK(sent->raw == v);
        CHECK(sent->purpose == v);
        CHECK(sent->status == chain::TxStatus::mined);

        auto mint = mint_request(v, MintKind::role, v, v);
        mint.id = v;
        CHECK_FALSE(s.mints().begin(mint));
        s.journal().add({JournalEntry{v + "-tx", v, v, 1, v, v, chain::TxStatus::pending, 0, {}, {}, {v}}});
        s.mints().finish(v, store::MintState::done, v);
        const auto replay = s.mints().begin(mint_request(v, MintKind::role, v, "other"));
        REQUIRE(replay);
        CHECK(replay->fingerprint == v);
        CHECK(replay->answer == v);
        CHECK(s.journal().of_mint(v).at(0).hash == v + "-tx");

        const Certificate c = s.certificates().create(NewCertificate{u.id, v, v, v, v, v, v});
        s.certificates().set_minted(c.id, 1, v, 1, v, v);
        const auto certificate = s.certificates().find(c.id);
        REQUIRE(certificate);
        CHECK(certificate->wallet_address == v);
        CHECK(certificate->recipient == v);
        CHECK(certificate->title == v);
        CHECK(certificate->description == v);
        CHECK(certificate->cid == v);
        CHECK(certificate->tx_hash == v);
        CHECK(certificate->token == v);

        s.audit().append(AuditEntry{.time = expiry, .actor = v, .method = v, .path = v, .status = 200, .client_address = v, .request_id = v});
    }

    // Nothing a value could have matched by accident: the decoy is still
    // only itself, and no lookup by an awkward value found the decoy.
    CHECK(s.users().find_by_email("x")->id == decoy.id);
    CHECK(s.credentials().find_user_by_wallet("x")->id == decoy.id);
    CHECK(s.credentials().find_user_by_identity("x", "x")->id == decoy.id);
    CHECK_FALSE(s.sessions().token_standing("x", "x", "x").token_revoked);
    CHECK(s.tickets().take("x", "x", millis_from_now(0ms)) == "decoy");
    CHECK(s.journal().find("x")->raw == "decoy");
    CHECK(s.journal().find("x")->status == chain::TxStatus::pending);
    CHECK(s.mints().begin(mint_request("x", MintKind::role, "x", "x"))->fingerprint == "decoy");
    CHECK_FALSE(s.users().find_by_email("%%"));
    CHECK_FALSE(s.users().find_by_email("a_b_c"));
    CHECK(s.users().count() == kAwkwardTexts.size() + 1);

    const auto requests = s.role_requests().list(std::nullopt);
    const auto audit = s.audit().list(std::nullopt, 1000);
    REQUIRE(requests.size() == kAwkwardTexts.size());
    REQUIRE(audit.size() == kAwkwardTexts.size());
    for (std::size_t i = 0; i < kAwkwardTexts.size(); ++i) {
        const std::string& v = kAwkwardTexts[i];
        INFO("value: " << v);
        CHECK(requests[i].user_id == users[i].id);
        CHECK(requests[i].role_type == v);
        CHECK(requests[i].wallet_address == v);
        CHECK(requests[i].blockchain_id == v);
        CHECK(audit[i].actor == v);
        CHECK(audit[i].method == v);
        CHECK(audit[i].path == v);
        CHECK(audit[i].client_address == v);
        CHECK(audit[i].request_id == v);
        CHECK(s.practices().of_farmer(users[i].id).at(0).farmer_id == users[i].id);
    }
}
