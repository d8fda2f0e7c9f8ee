#pragma once
// The mint requests of spec 4.1 and 4.2 as core takes them: typed values,
// read from a JSON body or from flags by the front ends (core/wire), and built
// directly by the workflows. Their fingerprint, which a repeat of an
// Idempotency-Key must match, is computed over canonical(): a versioned
// byte encoding of the typed request, independent of how any JSON library
// prints (docs/decisions.md, "A mint's fingerprint is its typed request's").

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/service/tokens.hpp"
#include "core/eth/address.hpp"
#include "core/store/store.hpp"
#include "core/util/fields.hpp"

namespace abci::service {

/// The largest entity amount: exact in every JSON reader (2^53 - 1).
inline constexpr std::uint64_t kMaxMintAmount = (1ULL << 53) - 1;

/// The limits of an ERC-1155 attribute list (spec 2.4), which the readers of
/// a request check: at most kMaxAttributes, each member at most this long.
inline constexpr std::size_t kMaxAttributes = 64;
inline constexpr std::size_t kMaxTraitType = 128;
inline constexpr std::size_t kMaxTextValue = 1024;
inline constexpr std::size_t kMaxDisplayType = 32;

/// One ERC-1155 attribute. A number keeps the type it was given as, so the
/// metadata record prints it as the caller wrote it (42 stays 42, 4.5 stays 4.5).
struct Attribute {
    using Value = std::variant<std::string, std::int64_t, std::uint64_t, double>;
    std::string trait_type;
    Value value;
    std::optional<std::string> display_type;

    bool operator==(const Attribute&) const = default;
};

/// A token's attributes in order: the metadata's only member whose content is
/// the caller's (spec 2.4). Read once at the edge, within the limits above.
using Attributes = std::vector<Attribute>;

/// Spec 4.1's optional metadata: where an approval came from.
struct ApprovalMetadata {
    std::optional<std::string> approval_id;
    std::optional<std::string> approved_by;
    std::optional<std::int64_t> approved_at;  // seconds since the epoch
    std::optional<std::string> notes;

    bool operator==(const ApprovalMetadata&) const = default;
};

/// What a repeat of an Idempotency-Key is compared with.
struct Fingerprint {
    std::string current;  // "2:" + SHA-256 hex of canonical(request): what a new mint stores
    /// What the previous release stored for the same request (the SHA-256 hex
    /// of its JSON body as nlohmann printed it, no prefix); "" when unknown.
    std::string legacy;

    /// Whether `stored` (a claimed key's) was computed from this request.
    [[nodiscard]] bool matches(const std::string& stored) const;
};

struct MintRoleRequest {
    eth::Address user_address;
    TokenKind kind;
    std::string blockchain_id;
    ApprovalMetadata approval;
    std::string legacy_fingerprint;  // Fingerprint::legacy, set by the reader of a body

    /// The token's attributes: the role, then the approval's members given.
    [[nodiscard]] Attributes attributes() const;
    [[nodiscard]] Fingerprint fingerprint() const;
};

/// Spec 4.2's metadata.
struct EntityMetadata {
    std::string name;
    std::string description;  // "" when not given, as the record prints it
    std::string image;
    std::string external_url;
    Attributes attributes;
};

struct MintEntityRequest {
    eth::Address user_address;
    TokenKind kind;
    std::string entity_id;
    std::string blockchain_id;
    std::uint64_t amount = 0;
    EntityMetadata metadata;
    std::string legacy_fingerprint;  // as MintRoleRequest's

    [[nodiscard]] Fingerprint fingerprint() const;
};

/// The canonical encoding, version 2 (version 1 was the body's dump): the
/// fields in a fixed order, each as its length (4 bytes, big-endian) and its
/// bytes; the first is the request's kind and version ("mint-role/2",
/// "mint-entity/2"), an address is its 0x-prefixed lower-case hex, a number
/// its decimal digits, and the attributes canonical_json() of them.
[[nodiscard]] std::string canonical(const MintRoleRequest& request);
[[nodiscard]] std::string canonical(const MintEntityRequest& request);

/// `attributes` as JSON text of our own printing: members in sorted order, no
/// whitespace, strings escaped as RFC 8259 requires (", \ and control
/// characters, the latter \b \f \n \r \t or \u00xx; everything else as is),
/// integers in decimal, other numbers as the shortest text that reads back
/// the same (std::to_chars).
[[nodiscard]] std::string canonical_json(const Attributes& attributes);
/// `text` as a JSON string, escaped as canonical_json() escapes.
[[nodiscard]] std::string json_string(std::string_view text);

/// The address a body's field `name` holds as `text`: none when `text` is
/// empty (`fields` has recorded the missing field already) or no address
/// (the problem recorded in `fields`).
[[nodiscard]] std::optional<eth::Address> address_field(util::Fields& fields, const std::string& name, const std::string& text);

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

/// A certificate as a certifier asks for it (POST /v1/certifiers/certificates).
struct CertificateRequest {
    std::string title;
    std::string description;
    eth::Address recipient;
    std::string blockchain_id;
    std::string image;
    std::string external_url;
    Attributes attributes;
};

}  // namespace abci::service
