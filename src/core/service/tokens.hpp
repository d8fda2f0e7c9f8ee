#pragma once
// The fixed token ids of the two token families (spec 2.2, 2.3; DESIGN.md §4).

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace abci::service {

enum class TokenFamily { role, entity };

struct TokenKind {
    std::uint64_t id;
    TokenFamily family;
    std::string_view category;  // role name (producer…) or entity category (report…)
    std::string_view name;      // display name, e.g. "Producer Role"
};

/// "role" | "entity".
[[nodiscard]] std::string_view to_string(TokenFamily family) noexcept;
/// Role tokens are soulbound, entity tokens transferable.
[[nodiscard]] constexpr bool is_soulbound(TokenFamily family) noexcept { return family == TokenFamily::role; }

/// The role token of producer | verifier | valuator | certifier.
[[nodiscard]] std::optional<TokenKind> role_token(std::string_view role) noexcept;
/// The entity token of report | verification | valuation | certificate.
[[nodiscard]] std::optional<TokenKind> entity_token(std::string_view category) noexcept;
/// The kind of a known token id (the eight above).
[[nodiscard]] std::optional<TokenKind> token_kind(std::uint64_t id) noexcept;
/// All eight, roles first, in id order within each family.
[[nodiscard]] std::span<const TokenKind> all_tokens() noexcept;

}  // namespace abci::service
