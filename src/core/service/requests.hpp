#pragma once
// The mint requests of spec 4.1 and 4.2: parsed and validated in one place,
// so the server (400 with every problem in Error::details) and the command
// line (checked before anything is sent) give the same messages.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/service/tokens.hpp"
#include "core/eth/address.hpp"
#include "core/store/store.hpp"
#include "core/util/fields.hpp"

namespace abci::service {

/// The largest entity amount: exact in every JSON reader (2^53 - 1).
inline constexpr std::uint64_t kMaxMintAmount = (1ULL << 53) - 1;

struct MintRoleRequest {
    eth::Address user_address;
    TokenKind kind;
    std::string blockchain_id;
    nlohmann::json attributes;  // ERC-1155 attributes: the role, then the approval fields given
    std::string fingerprint;    // SHA-256 hex of the body: a repeat of an Idempotency-Key must match it
};

struct MintEntityRequest {
    eth::Address user_address;
    TokenKind kind;
    std::string entity_id;
    std::string blockchain_id;
    std::uint64_t amount = 0;
    nlohmann::json details;  // name, description, image, external_url, attributes (+ entityId)
    std::string fingerprint;  // as MintRoleRequest's
};

/// Spec 4.1's body. Throws Error(invalid_input, "invalid request", problems).
[[nodiscard]] MintRoleRequest parse_mint_role(const nlohmann::json& body);
/// Spec 4.2's body; all fields required except metadata's description,
/// image, external_url and attributes. Throws as parse_mint_role().
[[nodiscard]] MintEntityRequest parse_mint_entity(const nlohmann::json& body);

/// The address a body's field `name` holds as `text`: none when `text` is
/// empty (`fields` has recorded the missing field already) or no address
/// (the problem recorded in `fields`).
[[nodiscard]] std::optional<eth::Address> address_field(util::Fields& fields, const std::string& name, const std::string& text);

/// POST /v1/role-requests' body (roleType, walletAddress, blockchainId, an
/// optional note) as the request of user `user_id`, the wallet in lower case.
/// Throws as parse_mint_role().
[[nodiscard]] store::NewRoleRequest parse_role_request(const nlohmann::json& body, const std::string& user_id);

/// An address field (spec 4.1: 42 characters starting with 0x, EIP-55 checked
/// when mixed case); records the problem in `fields` and returns nothing when
/// it is not one, or when `value` is empty (the caller reports that).
[[nodiscard]] std::optional<eth::Address> parse_address_field(util::Fields& fields, const std::string& key,
                                                              const std::string& value);

/// parse_address_field() for the recipient of a mint: the zero address is
/// refused too ("<key> must not be the zero address"), as the token contract
/// would refuse it after gas estimation (ERC-1155: no mint to address 0).
[[nodiscard]] std::optional<eth::Address> parse_recipient_field(util::Fields& fields, const std::string& key,
                                                                const std::string& value);

}  // namespace abci::service
