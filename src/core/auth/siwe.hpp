#pragma once
// Sign-In with Ethereum (EIP-4361): parsing the message exactly as the EIP's
// ABNF writes it, and verifying it against what the server expects.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/eth/address.hpp"

namespace abci::auth {

struct SiweMessage {
    std::string scheme;  // optional "https" etc. before the domain; empty when absent
    std::string domain;  // authority, e.g. "example.org:8080"
    eth::Address address;
    std::optional<std::string> statement;  // absent: no statement line; "": an empty one (address, 4 LFs, URI)
    std::string uri;
    std::string version;  // must be "1"
    std::uint64_t chain_id = 0;
    std::string nonce;  // at least 8 alphanumeric characters
    std::chrono::system_clock::time_point issued_at;
    std::optional<std::chrono::system_clock::time_point> expiration_time;
    std::optional<std::chrono::system_clock::time_point> not_before;
    std::optional<std::string> request_id;
    std::vector<std::string> resources;  // empty both without "Resources:" and with it but no items
};

/// Parses an EIP-4361 message. Error(invalid_input) naming the first line or
/// field that does not follow the grammar, including an address that is not
/// EIP-55 checksummed and timestamps that are not RFC 3339.
[[nodiscard]] SiweMessage parse_siwe_message(std::string_view text);

/// The EIP-4361 text of `message` (what a wallet signs), with the address
/// EIP-55 checksummed and times as RFC 3339 UTC. parse_siwe_message() of the
/// result gives `message` back (times to the millisecond).
[[nodiscard]] std::string format_siwe_message(const SiweMessage& message);

struct SiweExpectations {
    std::string domain;                    // must equal the message's domain
    std::string uri_origin;                // the message's uri must start with this (scheme://host[:port]),
                                           // followed by its end, '/', '?' or '#'; a scheme before the
                                           // message's domain must equal this origin's
    std::vector<std::uint64_t> chain_ids;  // accepted chain ids (those the server serves)
    std::chrono::system_clock::time_point now;
    std::chrono::seconds max_age{600};     // issued-at no older than this (and not in the future beyond skew)
    std::chrono::seconds skew{60};         // how far ahead of `now` a client's clock may be: issued-at and
                                           // not-before may lie this far in the future (expiry gets none)
};

/// Verifies `text` signed by `signature_hex` (65 bytes r‖s‖v, v 27/28 or 0/1,
/// low s) and claimed by `claimed_address`: parses it, then checks version,
/// domain, uri, chain id, issued-at, expiration, not-before, that the EIP-191
/// signer recovers to the message's address, and that it equals
/// `claimed_address` (case-insensitively). Error(unauthenticated) naming the
/// failed check; Error(invalid_input) for unparsable input (the message, a
/// signature that is not "0x" and 65 bytes of hex, a claimed address that is
/// not 20 bytes of hex); Error(internal) when `expect` has an empty domain,
/// uri origin or chain id list. The nonce is
/// returned in the message for the caller to consume (single use is the
/// caller's store).
[[nodiscard]] SiweMessage verify_siwe(std::string_view text, std::string_view signature_hex,
                                      std::string_view claimed_address, const SiweExpectations& expect);

}  // namespace abci::auth
