#include "core/auth/idp_login_ticket.hpp"

#include <nlohmann/json.hpp>

#include "core/util/json_members.hpp"

namespace abci::auth {

std::string IdpLoginTicket::serialize() const {
    return nlohmann::json{{"version", kVersion}, {"nonce", nonce}, {"verifier", code_verifier}, {"redirect", redirect}}
        .dump();
}

IdpLoginTicket IdpLoginTicket::parse(const std::string& text) {
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    const util::RequiredMembers ticket(parsed, ErrorKind::internal, "a pending sign-in's stored ticket cannot be read");
    (void)ticket.version(kVersion);  // version 1 is the only one so far
    return {ticket.nonempty_text("nonce"), ticket.nonempty_text("verifier"), ticket.text("redirect")};
}

}  // namespace abci::auth
