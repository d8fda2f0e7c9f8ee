// Bytes that are not text (a NUL, 0xFF, overlong UTF-8, a lone surrogate)
// meet the same store on both backends (issue 30 item 5): a repository refuses
// them as Error(invalid_input) where it would store or look them up, never
// cutting a value short (PostgreSQL takes a parameter up to its NUL) nor
// failing as internal (PostgreSQL refuses invalid UTF-8); the audit log,
// which records rather than acts, stores them escaped, so no request can make
// its row unwritable.

#include <catch2/catch.hpp>

#include "core/util/text.hpp"
#include "support/error_kind.hpp"
#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

namespace {

using namespace std::string_literals;

// Each after a prefix that is a stored value of its own: cut at the fault, a
// value would name that other row.
const std::vector<std::string> kNonText = {
    "X\0tail"s,           // NUL
    "X\xff"s,             // a byte UTF-8 never has
    "X\xc0\xaf"s,         // '/' in an overlong form
    "X\xed\xa0\x80"s,     // a lone surrogate (U+D800)
    "X\xf4\x90\x80\x80"s  // past U+10FFFF
};

bool refused(auto&& call) { return test::error_kind(call) == ErrorKind::invalid_input; }

}  // namespace

TEST_CASE("non-text: every repository refuses a NUL or invalid UTF-8 the same on both backends, and cuts nothing",
          "[store][non-text]") {
    FreshStore f;
    Store& s = *f.store;
    // The rows each value would name if it were cut at its fault ("X").
    const User x = add_user(s, "x");
    const Practice practice = s.practices().create(NewPractice{x.id, "X", "X"});
    (void)s.entities().record(Entity{0, "chain", "report", "X", 1, "0xaa", 1, "cid", "{}", "0x01", 1, {}});
    auto x_mint = mint_request(x.id, MintKind::role, "X", "fingerprint");
    CHECK_FALSE(s.mints().begin(x_mint));

    for (const std::string& v : kNonText) {
        INFO("value: " << util::escape_text(v));
        CHECK(refused([&] { (void)s.users().create(NewUser{v, "farmer", false}); }));
        CHECK(refused([&] { (void)s.users().find_by_email(v); }));
        CHECK(refused([&] { (void)s.users().find_by_id(x.id + v.substr(1)); }));
        CHECK(refused([&] { s.credentials().link_wallet(x.id, v); }));
        CHECK(refused([&] { (void)s.practices().create(NewPractice{x.id, v, "description"}); }));
        CHECK(refused([&] { (void)s.practices().create(NewPractice{x.id, "title", v}); }));
        CHECK(refused([&] { (void)s.practices().find(practice.id + v.substr(1)); }));
        CHECK(refused([&] { (void)s.role_requests().create(NewRoleRequest{x.id, "verifier", "0xaa", "chain", v}); }));
        CHECK(refused([&] { (void)s.role_requests().find(v); }));
        CHECK(refused(
            [&] { (void)s.entities().record(Entity{0, "chain", "report", v, 2, "0xaa", 1, "cid", "{}", "0x02", 1, {}}); }));
        CHECK(refused([&] { (void)s.entities().find("chain", 1, v); }));
        CHECK(refused([&] { (void)s.mints().begin(mint_request(x.id, MintKind::role, v, "fingerprint")); }));
        CHECK(refused([&] { (void)s.mints().find_by_key(IdempotencyKey{x.id, MintKind::role, v}); }));
        CHECK(refused([&] { (void)s.mints().find(v); }));
        CHECK(refused([&] { s.tickets().put("kind", v, "payload", millis_from_now(1h)); }));
    }

    // Nothing was stored, nor any row changed, by what was refused.
    CHECK(s.users().count() == 1);
    CHECK(s.practices().of_farmer(x.id).size() == 1);
    CHECK(s.role_requests().list(std::nullopt).empty());
    CHECK(s.entities().find("chain", 2, std::nullopt) == std::nullopt);
    CHECK(s.entities().find("chain", 1, std::string("X"))->entity_id == "X");
    CHECK(s.credentials().wallets_of(x.id).empty());
}

TEST_CASE("non-text: the audit log records a NUL or invalid UTF-8 escaped, on both backends, and lists it",
          "[store][non-text][audit]") {
    FreshStore f;
    Store& s = *f.store;
    const TimePoint now = millis_from_now(0ms);
    for (const std::string& v : kNonText)
        s.audit().append(AuditEntry{.time = now, .actor = v, .method = "GET", .path = "/abci/" + v, .status = 403,
                                    .client_address = v, .request_id = v});
    // Refused requests are merged per (address, actor, path, status, minute): their text too.
    for (int i = 0; i < 2; ++i)
        s.audit().append(AuditEntry{.time = now, .actor = "", .method = "GET", .path = "/abci/%FF\xff", .status = 401,
                                    .client_address = "127.0.0.1", .request_id = "r", .refused = true});
    // Text is stored as it is: an escape applied twice would make "%" "%25".
    s.audit().append(AuditEntry{.time = now, .actor = "", .method = "GET", .path = "/abci/%FF", .status = 404,
                                .client_address = "127.0.0.1", .request_id = "r"});

    const auto rows = s.audit().list(std::nullopt, 100);
    REQUIRE(rows.size() == kNonText.size() + 2);
    for (std::size_t i = 0; i < kNonText.size(); ++i) {
        const std::string escaped = util::escape_text(kNonText[i]);
        INFO("value: " << escaped);
        CHECK(rows[i].actor == escaped);
        CHECK(rows[i].path == "/abci/" + escaped);
        CHECK(rows[i].client_address == escaped);
        CHECK(rows[i].request_id == escaped);
        CHECK(util::is_text(rows[i].path));
    }
    CHECK(rows[kNonText.size()].path == "/abci/%25FF%FF");
    CHECK(rows[kNonText.size()].count == 2);
    CHECK(rows[kNonText.size() + 1].path == "/abci/%FF");
}
