// A pending sign-in's stored ticket (core/auth/idp_login_ticket.hpp): the
// tickets earlier releases wrote stay readable, and what cannot be read is
// refused.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/auth/idp_login_ticket.hpp"
#include "core/error.hpp"
#include "support/error_kind.hpp"

namespace {

using abci::auth::IdpLoginTicket;

// The text releases before this module stored (json members in name order, no "version").
constexpr const char* kTicketV1 =
    R"({"nonce":"n-0a1b2c","redirect":"http://127.0.0.1:8400/callback","verifier":"v-3d4e5f6a7b8c9d"})";

// What parsing `text` refuses with: its message.
std::string ticket_refusal(const std::string& text) {
    return abci::test::error_message(abci::ErrorKind::internal, [&] { (void)IdpLoginTicket::parse(text); });
}

}  // namespace

TEST_CASE("idp login ticket: reads the tickets version 1 wrote without a version, and what it writes reads back", "[idp_login_ticket]") {
    const IdpLoginTicket expected{"n-0a1b2c", "v-3d4e5f6a7b8c9d", "http://127.0.0.1:8400/callback"};
    CHECK(IdpLoginTicket::parse(kTicketV1) == expected);
    for (const auto& ticket : {expected, IdpLoginTicket{"n", "v", ""}}) {
        const auto text = ticket.serialize();
        CHECK(nlohmann::json::parse(text)["version"] == IdpLoginTicket::kVersion);
        CHECK(IdpLoginTicket::parse(text) == ticket);
    }
}

TEST_CASE("idp login ticket: a ticket it cannot read whole is refused, naming why", "[idp_login_ticket]") {
    const auto v1 = nlohmann::json::parse(kTicketV1);
    for (const char* member : {"nonce", "verifier", "redirect"}) {
        auto missing = v1;
        missing.erase(member);
        CHECK_THAT(ticket_refusal(missing.dump()), Catch::Contains(std::string("it has no \"") + member + "\""));
    }
    auto mistyped = v1;
    mistyped["redirect"] = nullptr;
    CHECK_THAT(ticket_refusal(mistyped.dump()), Catch::Contains("its \"redirect\" is no string"));
    auto empty = v1;
    empty["verifier"] = "";
    CHECK_THAT(ticket_refusal(empty.dump()), Catch::Contains("its \"verifier\" is empty"));
    auto newer = v1;
    newer["version"] = IdpLoginTicket::kVersion + 1;
    CHECK_THAT(ticket_refusal(newer.dump()), Catch::Contains("it is version 2, this release reads versions up to 1"));
}
