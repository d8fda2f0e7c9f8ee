// Each repository method on the backend under test: its success path and the errors its
// declaration documents.

#include <catch2/catch.hpp>

#include "support/error_kind.hpp"
#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

namespace abci::store::testing {

/// Canonical lower-case UUID with version 4 and the RFC 4122 variant.
bool is_uuid_v4(const std::string& id) {
    if (id.size() != 36) return false;
    for (std::size_t i = 0; i < id.size(); ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        const bool hex = (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f');
        if (dash ? id[i] != '-' : !hex) return false;
    }
    return id[14] == '4' && std::string_view("89ab").find(id[19]) != std::string_view::npos;
}

}  // namespace abci::store::testing

TEST_CASE("users are created with a v4 UUID and found by id and e-mail, case-insensitively", "[store]") {
    FreshStore f;
    const User alice = f.store->users().create(NewUser{"Alice@Example.ORG", "farmer", true});
    const User bob = add_user(*f.store, "bob@example.org", "verifier");

    CHECK(is_uuid_v4(alice.id));
    CHECK(is_uuid_v4(bob.id));
    CHECK(alice.id != bob.id);
    CHECK(alice.email == "alice@example.org");
    CHECK(alice.verified);
    CHECK(std::chrono::abs(alice.created_at - std::chrono::system_clock::now()) < 5s);

    const auto by_id = f.store->users().find_by_id(alice.id);
    REQUIRE(by_id);
    CHECK(by_id->id == alice.id);
    CHECK(by_id->email == "alice@example.org");
    CHECK(by_id->role == "farmer");
    CHECK(by_id->verified);
    CHECK(by_id->created_at == alice.created_at);

    for (const char* spelling : {"alice@example.org", "ALICE@EXAMPLE.ORG", "aLiCe@eXample.org"}) {
        const auto found = f.store->users().find_by_email(spelling);
        REQUIRE(found);
        CHECK(found->id == alice.id);
    }
    CHECK_FALSE(f.store->users().find_by_email("alice@example.org "));
    CHECK_FALSE(f.store->users().find_by_id("no-such-id"));

    const auto users = f.store->users().list();
    REQUIRE(users.size() == 2);
    CHECK(users[0].id == alice.id);
    CHECK(users[1].id == bob.id);
    CHECK(users[1].role == "verifier");
    CHECK_FALSE(users[1].verified);
    CHECK(f.store->users().count() == 2);
}

TEST_CASE("an e-mail registered in any letter case is a conflict", "[store]") {
    FreshStore f;
    (void)add_user(*f.store, "carol@example.org");
    CHECK(test::error_kind([&] { (void)add_user(*f.store, "carol@example.org"); }) == ErrorKind::conflict);
    CHECK(test::error_kind([&] { (void)add_user(*f.store, "CAROL@example.org"); }) == ErrorKind::conflict);
    CHECK(f.store->users().count() == 1);
}

TEST_CASE("Users::set_role changes the role, and names a missing user", "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "dave@example.org");
    f.store->users().set_role(u.id, "admin");
    CHECK(f.store->users().find_by_id(u.id)->role == "admin");
    CHECK(test::error_kind([&] { f.store->users().set_role("missing", "admin"); }) == ErrorKind::not_found);
}

TEST_CASE("a password hash is set, replaced and read back, a missing user is not_found", "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "erin@example.org");
    CHECK_FALSE(f.store->credentials().password_hash(u.id));
    f.store->credentials().set_password_hash(u.id, "$scrypt$first");
    CHECK(f.store->credentials().password_hash(u.id) == "$scrypt$first");
    f.store->credentials().set_password_hash(u.id, "$scrypt$second");
    CHECK(f.store->credentials().password_hash(u.id) == "$scrypt$second");
    CHECK(test::error_kind([&] { f.store->credentials().set_password_hash("missing", "$scrypt$x"); }) == ErrorKind::not_found);
}

TEST_CASE("wallets link once per user, in order, and never to a second user", "[store]") {
    FreshStore f;
    const User a = add_user(*f.store, "a@example.org");
    const User b = add_user(*f.store, "b@example.org");
    const std::string w1 = "0x1111111111111111111111111111111111111111";
    const std::string w2 = "0x2222222222222222222222222222222222222222";

    f.store->credentials().link_wallet(a.id, w2);
    f.store->credentials().link_wallet(a.id, w1);
    f.store->credentials().link_wallet(a.id, w2);  // same pair again: no-op
    CHECK(f.store->credentials().wallets_of(a.id) == std::vector<std::string>{w2, w1});
    CHECK(f.store->credentials().wallets_of(b.id).empty());
    REQUIRE(f.store->credentials().find_user_by_wallet(w1));
    CHECK(f.store->credentials().find_user_by_wallet(w1)->id == a.id);
    CHECK_FALSE(f.store->credentials().find_user_by_wallet("0x3333333333333333333333333333333333333333"));

    CHECK(test::error_kind([&] { f.store->credentials().link_wallet(b.id, w1); }) == ErrorKind::conflict);
    CHECK(f.store->credentials().find_user_by_wallet(w1)->id == a.id);
    CHECK(test::error_kind([&] { f.store->credentials().link_wallet("missing", "0x44"); }) == ErrorKind::not_found);
    CHECK_FALSE(f.store->credentials().find_user_by_wallet("0x44"));
}

TEST_CASE("external identities link idempotently and never to a second user", "[store]") {
    FreshStore f;
    const User a = add_user(*f.store, "a@example.org");
    const User b = add_user(*f.store, "b@example.org");

    f.store->credentials().link_identity(a.id, "https://idp.example", "sub-1");
    f.store->credentials().link_identity(a.id, "https://idp.example", "sub-1");
    f.store->credentials().link_identity(b.id, "https://other.example", "sub-1");  // same subject, other issuer
    CHECK(f.store->credentials().find_user_by_identity("https://idp.example", "sub-1")->id == a.id);
    CHECK(f.store->credentials().find_user_by_identity("https://other.example", "sub-1")->id == b.id);
    CHECK_FALSE(f.store->credentials().find_user_by_identity("https://idp.example", "sub-2"));

    CHECK(test::error_kind([&] { f.store->credentials().link_identity(b.id, "https://idp.example", "sub-1"); }) ==
          ErrorKind::conflict);
    CHECK(test::error_kind([&] { f.store->credentials().link_identity("missing", "https://idp.example", "sub-9"); }) ==
          ErrorKind::not_found);
}

TEST_CASE("refresh tokens are used once and revoked with their family", "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "f@example.org");
    const User other = add_user(*f.store, "g@example.org");
    const TimePoint expiry = millis_from_now(24h);
    f.store->sessions().add_refresh_token(RefreshToken{"hash-1", "family-A", u.id, expiry});
    f.store->sessions().add_refresh_token(RefreshToken{"hash-2", "family-A", u.id, expiry});
    f.store->sessions().add_refresh_token(RefreshToken{"hash-3", "family-B", u.id, expiry});

    const auto t1 = f.store->sessions().find_refresh_token("hash-1");
    REQUIRE(t1);
    CHECK(t1->token_hash == "hash-1");
    CHECK(t1->family_id == "family-A");
    CHECK(t1->user_id == u.id);
    CHECK(t1->expires_at == expiry);
    CHECK_FALSE(t1->used);
    CHECK_FALSE(t1->family_revoked);
    CHECK_FALSE(f.store->sessions().find_refresh_token("hash-9"));

    CHECK(f.store->sessions().mark_refresh_token_used("hash-1"));
    CHECK_FALSE(f.store->sessions().mark_refresh_token_used("hash-1"));
    CHECK_FALSE(f.store->sessions().mark_refresh_token_used("hash-9"));
    CHECK(f.store->sessions().find_refresh_token("hash-1")->used);
    CHECK_FALSE(f.store->sessions().find_refresh_token("hash-2")->used);

    f.store->sessions().revoke_refresh_family("family-A");
    f.store->sessions().revoke_refresh_family("family-A");  // idempotent
    f.store->sessions().revoke_refresh_family("family-unknown");
    CHECK(f.store->sessions().find_refresh_token("hash-1")->family_revoked);
    CHECK(f.store->sessions().find_refresh_token("hash-2")->family_revoked);
    CHECK_FALSE(f.store->sessions().find_refresh_token("hash-3")->family_revoked);
    CHECK(f.store->sessions().token_standing("jti", "family-A", u.id).session_revoked);
    CHECK_FALSE(f.store->sessions().token_standing("jti", f.store->sessions().find_refresh_token("hash-3")->family_id, u.id).session_revoked);
    CHECK_FALSE(f.store->sessions().token_standing("jti", "family-unknown", u.id).session_revoked);

    CHECK(test::error_kind([&] { f.store->sessions().add_refresh_token(RefreshToken{"hash-1", "family-C", u.id, expiry}); }) ==
          ErrorKind::conflict);
    CHECK(test::error_kind([&] {
              f.store->sessions().add_refresh_token(RefreshToken{"hash-4", "family-A", other.id, expiry});
          }) == ErrorKind::conflict);
    CHECK(test::error_kind([&] {
              f.store->sessions().add_refresh_token(RefreshToken{"hash-5", "family-D", "missing", expiry});
          }) == ErrorKind::not_found);
    CHECK_FALSE(f.store->sessions().find_refresh_token("hash-5"));
}

TEST_CASE("revoked access-token ids are remembered, idempotently", "[store]") {
    FreshStore f;
    const auto revoked = [&](const std::string& jti) { return f.store->sessions().token_standing(jti, "family", "user").token_revoked; };
    CHECK_FALSE(revoked("jti-1"));
    f.store->sessions().revoke_token_id("jti-1", millis_from_now(15min));
    f.store->sessions().revoke_token_id("jti-1", millis_from_now(10min));
    CHECK(revoked("jti-1"));
    CHECK_FALSE(revoked("jti-2"));
}

TEST_CASE("a token's standing reads revocation, session and user at once", "[store]") {
    FreshStore f;
    const User u = f.store->users().create(NewUser{"standing@example.org", "farmer", true});
    const auto expiry = millis_from_now(1h);
    f.store->sessions().add_refresh_token(RefreshToken{"hash-s", "family-S", u.id, expiry});

    auto standing = f.store->sessions().token_standing("jti-s", "family-S", u.id);
    CHECK_FALSE(standing.token_revoked);
    CHECK_FALSE(standing.session_revoked);
    REQUIRE(standing.user);
    CHECK(standing.user->id == u.id);
    CHECK(standing.user->email == "standing@example.org");
    CHECK(standing.user->role == "farmer");

    f.store->sessions().revoke_token_id("jti-s", expiry);
    f.store->sessions().revoke_refresh_family("family-S");
    standing = f.store->sessions().token_standing("jti-s", "family-S", u.id);
    CHECK(standing.token_revoked);
    CHECK(standing.session_revoked);
    CHECK(standing.user);

    // Each part on its own: another token of the session, another session, no such user.
    CHECK_FALSE(f.store->sessions().token_standing("jti-other", "family-S", u.id).token_revoked);
    CHECK_FALSE(f.store->sessions().token_standing("jti-s", "family-other", u.id).session_revoked);
    CHECK_FALSE(f.store->sessions().token_standing("jti-s", "family-S", "no-such-user").user);
}

TEST_CASE("a ticket is taken once, before its expiry, within its kind", "[store]") {
    FreshStore f;
    const TimePoint now = millis_from_now(0ms);
    f.store->tickets().put("siwe-nonce", "n1", "payload-1", now + 5min);
    f.store->tickets().put("oidc-state", "n1", "payload-2", now + 5min);
    f.store->tickets().put("siwe-nonce", "old", "payload-3", now + 1min);
    f.store->tickets().put("siwe-nonce", "edge", "payload-4", now + 1min);

    CHECK(test::error_kind([&] { f.store->tickets().put("siwe-nonce", "n1", "again", now + 5min); }) ==
          ErrorKind::conflict);

    CHECK(f.store->tickets().take("siwe-nonce", "n1", now) == "payload-1");
    CHECK_FALSE(f.store->tickets().take("siwe-nonce", "n1", now));
    CHECK(f.store->tickets().take("oidc-state", "n1", now) == "payload-2");
    CHECK_FALSE(f.store->tickets().take("siwe-nonce", "nope", now));

    // Expired at `now` (expiry is exclusive), and purged on the way: even an
    // earlier `now` does not bring it back.
    CHECK_FALSE(f.store->tickets().take("siwe-nonce", "edge", now + 1min));
    CHECK_FALSE(f.store->tickets().take("siwe-nonce", "old", now));
    f.store->tickets().put("siwe-nonce", "old", "payload-5", now + 1min);  // the key is free again
    CHECK(f.store->tickets().take("siwe-nonce", "old", now) == "payload-5");
}

TEST_CASE("API keys are created, found by hash, listed and revoked once", "[store]") {
    FreshStore f;
    const User admin = add_user(*f.store, "admin@example.org", "admin");
    const ApiKey k1 = f.store->api_keys().create(NewApiKey{"monitoring", "hash-a", {"abci:health", "abci:read"}, ""});
    const ApiKey k2 = f.store->api_keys().create(NewApiKey{"ci", "hash-b", {}, admin.id});
    CHECK(k1.id != k2.id);
    CHECK(k1.scopes == std::vector<std::string>{"abci:health", "abci:read"});
    CHECK_FALSE(k1.revoked_at);

    const auto found = f.store->api_keys().find_by_hash("hash-a");
    REQUIRE(found);
    CHECK(found->id == k1.id);
    CHECK(found->name == "monitoring");
    CHECK(found->scopes == k1.scopes);
    CHECK(found->created_by.empty());
    CHECK(found->created_at == k1.created_at);
    CHECK_FALSE(found->revoked_at);
    CHECK_FALSE(f.store->api_keys().find_by_hash("hash-z"));

    CHECK(test::error_kind([&] { (void)f.store->api_keys().create(NewApiKey{"dup", "hash-a", {}, ""}); }) ==
          ErrorKind::conflict);
    CHECK(test::error_kind([&] { (void)f.store->api_keys().create(NewApiKey{"bad", "hash-c", {"\xff"}, ""}); }) ==
          ErrorKind::invalid_input);

    CHECK(f.store->api_keys().revoke(k1.id));
    CHECK_FALSE(f.store->api_keys().revoke(k1.id));
    CHECK_FALSE(f.store->api_keys().revoke("missing"));
    const auto revoked = f.store->api_keys().find_by_hash("hash-a");
    REQUIRE(revoked);
    REQUIRE(revoked->revoked_at);
    CHECK(*revoked->revoked_at >= k1.created_at);

    const auto keys = f.store->api_keys().list();
    REQUIRE(keys.size() == 2);
    CHECK(keys[0].id == k1.id);
    CHECK(keys[0].revoked_at);
    CHECK(keys[1].id == k2.id);
    CHECK(keys[1].created_by == admin.id);
    CHECK(keys[1].scopes.empty());
    CHECK_FALSE(keys[1].revoked_at);
}

TEST_CASE("the audit log is listed oldest first, from a time, up to a limit", "[store]") {
    FreshStore f;
    const TimePoint t0 = millis_from_now(0ms);
    for (int i = 0; i < 5; ++i) {
        f.store->audit().append(AuditEntry{.time = t0 + std::chrono::seconds(i),
                                         .actor = "actor-" + std::to_string(i),
                                         .method = "POST",
                                         .path = "/api/v1/x",
                                         .status = 200 + i,
                                         .client_address = "127.0.0.1",
                                         .request_id = "req-" + std::to_string(i)});
    }
    const auto all = f.store->audit().list(std::nullopt, 100);
    REQUIRE(all.size() == 5);
    for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i].id > all[i - 1].id);
    CHECK(all[2].time == t0 + 2s);
    CHECK(all[2].actor == "actor-2");
    CHECK(all[2].method == "POST");
    CHECK(all[2].path == "/api/v1/x");
    CHECK(all[2].status == 202);
    CHECK(all[2].client_address == "127.0.0.1");
    CHECK(all[2].request_id == "req-2");

    const auto since = f.store->audit().list(t0 + 3s, 100);
    REQUIRE(since.size() == 2);
    CHECK(since[0].actor == "actor-3");
    const auto limited = f.store->audit().list(t0 + 1s, 2);
    REQUIRE(limited.size() == 2);
    CHECK(limited[0].actor == "actor-1");
    CHECK(limited[1].actor == "actor-2");
    CHECK(f.store->audit().list(std::nullopt, 0).empty());
}

TEST_CASE("role requests start pending and are listed by status", "[store]") {
    FreshStore f;
    const User u = add_user(*f.store, "h@example.org");
    const RoleRequest r1 = f.store->role_requests().create(
        NewRoleRequest{u.id, "producer", "0x1111111111111111111111111111111111111111", "31337", "please"});
    const RoleRequest r2 = f.store->role_requests().create(
        NewRoleRequest{u.id, "verifier", "0x2222222222222222222222222222222222222222", "1", ""});
    CHECK(r1.status == RoleRequestStatus::pending);
    CHECK(r1.created_at == r1.updated_at);

    const auto all = f.store->role_requests().list(std::nullopt);
    REQUIRE(all.size() == 2);
    CHECK(all[0].id == r1.id);
    CHECK(all[0].user_id == u.id);
    CHECK(all[0].role_type == "producer");
    CHECK(all[0].wallet_address == "0x1111111111111111111111111111111111111111");
    CHECK(all[0].blockchain_id == "31337");
    CHECK(all[0].note == "please");
    CHECK(all[0].created_at == r1.created_at);
    CHECK(all[1].id == r2.id);
    CHECK(f.store->role_requests().list(RoleRequestStatus::pending).size() == 2);
    CHECK(f.store->role_requests().list(RoleRequestStatus::minted).empty());

    CHECK(test::error_kind([&] {
              (void)f.store->role_requests().create(NewRoleRequest{"missing", "producer", "0x11", "1", ""});
          }) == ErrorKind::not_found);
}

TEST_CASE("practices and their verifications need existing farmers, practices and verifiers", "[store]") {
    FreshStore f;
    const User farmer = add_user(*f.store, "farmer@example.org", "farmer");
    const User verifier = add_user(*f.store, "verifier@example.org", "verifier");
    const Practice p1 = f.store->practices().create(NewPractice{farmer.id, "Cover crops", "Rye over winter"});
    const Practice p2 = f.store->practices().create(NewPractice{farmer.id, "No-till", ""});

    const auto found = f.store->practices().find(p1.id);
    REQUIRE(found);
    CHECK(found->farmer_id == farmer.id);
    CHECK(found->title == "Cover crops");
    CHECK(found->description == "Rye over winter");
    CHECK(found->created_at == p1.created_at);
    CHECK_FALSE(f.store->practices().find("missing"));
    const auto mine = f.store->practices().of_farmer(farmer.id);
    REQUIRE(mine.size() == 2);
    CHECK(mine[0].id == p1.id);
    CHECK(mine[1].id == p2.id);
    CHECK(f.store->practices().of_farmer(verifier.id).empty());

    const Verification v1 = f.store->practices().add_verification(NewVerification{p1.id, verifier.id, VerificationOutcome::approved, "ok"});
    const Verification v2 = f.store->practices().add_verification(NewVerification{p1.id, verifier.id, VerificationOutcome::rejected, "redo"});
    const auto checks = f.store->practices().verifications_of(p1.id);
    REQUIRE(checks.size() == 2);
    CHECK(checks[0].id == v1.id);
    CHECK(checks[0].practice_id == p1.id);
    CHECK(checks[0].verifier_id == verifier.id);
    CHECK(checks[0].outcome == VerificationOutcome::approved);
    CHECK(checks[0].notes == "ok");
    CHECK(checks[0].created_at == v1.created_at);
    CHECK(checks[1].id == v2.id);
    CHECK(f.store->practices().verifications_of(p2.id).empty());

    CHECK(test::error_kind([&] { (void)f.store->practices().create(NewPractice{"missing", "t", "d"}); }) ==
          ErrorKind::not_found);
    CHECK(test::error_kind([&] {
              (void)f.store->practices().add_verification(NewVerification{"missing", verifier.id, VerificationOutcome::approved, ""});
          }) == ErrorKind::not_found);
    CHECK(test::error_kind([&] {
              (void)f.store->practices().add_verification(NewVerification{p1.id, "missing", VerificationOutcome::approved, ""});
          }) == ErrorKind::not_found);
    CHECK(f.store->practices().verifications_of(p1.id).size() == 2);
}
