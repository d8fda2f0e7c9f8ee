#pragma once
// A sign-in at the identity provider between its start and the provider's
// callback: what the state ticket holds (the tickets store, kind
// "idp_state"), so that whichever server takes the callback can finish it.
// A durable format read by later releases (a callback may reach the release
// started after the one that began the sign-in): this module is its only
// reader and writer.
//
// Versions (a row's "version" member; rows without one are version 1):
//   1  {"nonce","verifier","redirect"}: the ID token's expected nonce, the
//      PKCE code verifier, the client's redirect ("" for none). Version 1
//      rows were written without "version" until this module wrote it.

#include <string>

namespace abci::auth {

struct IdpLoginTicket {
    /// The version serialize() writes.
    static constexpr int kVersion = 1;

    std::string nonce;
    std::string code_verifier;
    std::string redirect;  // "" for none

    bool operator==(const IdpLoginTicket&) const = default;

    /// The stored text, as version kVersion writes it.
    [[nodiscard]] std::string serialize() const;
    /// Reads a stored ticket of any version written so far. Error(internal)
    /// naming the problem for text that is no such record, a member missing
    /// or of the wrong type, or a newer version.
    [[nodiscard]] static IdpLoginTicket parse(const std::string& text);
};

}  // namespace abci::auth
