#pragma once
// RPC endpoint URLs: parsing into what an HTTP client needs, and masking of
// the provider secrets that RPC URLs routinely carry (API keys in the path or
// query, credentials in the userinfo) so a URL can be shown in logs, errors
// and API responses.

#include <cstdint>
#include <string>
#include <string_view>

namespace abci::rpc {

/// An http(s) URL split into its parts.
struct Url {
    std::string scheme;    // "http" or "https"
    std::string host;      // host name or IPv4 address; an IPv6 literal keeps its brackets ("[::1]")
    std::uint16_t port{};  // explicit, or the scheme's default (80 / 443)
    std::string target;    // path and query sent in the request line, "/" when the URL has none
    std::string user;      // userinfo, percent-decoded; empty when absent
    std::string password;

    /// "scheme://host:port", the form cpp-httplib's Client takes.
    [[nodiscard]] std::string origin() const;
};

/// Parses an absolute http:// or https:// URL (scheme case-insensitive, the
/// fragment dropped). Throws Error(invalid_input) on another scheme, a missing
/// host, or a bad port; the message shows the URL masked, never its secrets.
[[nodiscard]] Url parse_url(std::string_view url);

/// The URL with its likely secrets replaced by "****", for display:
///  - userinfo → "****@";
///  - every path segment except a version tag ("v2", "v3") or a plain
///    lower-case word ("rpc", "eth-sepolia") — provider keys are long mixed
///    tokens, so masking everything else errs on the side of hiding;
///  - every query value, except a plain lower-case word under a name that
///    does not suggest a secret (key, token, secret, auth, pass, sig).
/// Scheme, host and port stay readable; a fragment is dropped. Text without
/// "scheme://" yields "****". Accepts any input (no validation, no throw
/// beyond std::bad_alloc).
/// e.g. "https://eth-sepolia.g.alchemy.com/v2/abcd1234" → "https://eth-sepolia.g.alchemy.com/v2/****".
[[nodiscard]] std::string mask_url(std::string_view url);

}  // namespace abci::rpc
