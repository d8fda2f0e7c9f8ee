#include "core/service/tokens.hpp"

#include <algorithm>
#include <array>

namespace abci::service {

namespace {

constexpr std::array<TokenKind, 8> kTokens{{
    {10000, TokenFamily::role, "producer", "Producer Role"},
    {10100, TokenFamily::role, "verifier", "Verifier Role"},
    {10200, TokenFamily::role, "valuator", "Valuator Role"},
    {10300, TokenFamily::role, "certifier", "Certifier Role"},
    {1000, TokenFamily::entity, "report", "Report"},
    {1100, TokenFamily::entity, "verification", "Verification"},
    {1200, TokenFamily::entity, "valuation", "Valuation"},
    {1300, TokenFamily::entity, "certificate", "Certificate"},
}};

std::optional<TokenKind> find(auto predicate) noexcept {
    const auto it = std::find_if(kTokens.begin(), kTokens.end(), predicate);
    if (it == kTokens.end()) return std::nullopt;
    return *it;
}

}  // namespace

std::string_view to_string(TokenFamily family) noexcept { return family == TokenFamily::role ? "role" : "entity"; }

std::optional<TokenKind> role_token(std::string_view role) noexcept {
    return find([&](const TokenKind& t) { return t.family == TokenFamily::role && t.category == role; });
}

std::optional<TokenKind> entity_token(std::string_view category) noexcept {
    return find([&](const TokenKind& t) { return t.family == TokenFamily::entity && t.category == category; });
}

std::optional<TokenKind> token_kind(std::uint64_t id) noexcept {
    return find([&](const TokenKind& t) { return t.id == id; });
}

std::span<const TokenKind> all_tokens() noexcept { return kTokens; }

}  // namespace abci::service
