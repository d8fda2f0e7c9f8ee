#pragma once
// Which URLs a webhook may be sent to. A subscription names a URL, but the
// server makes the request from inside its network: without these checks an
// admin's typo (or a stolen admin token) reaches the cloud metadata service,
// a database's HTTP port or localhost. Checked when a URL is registered and
// again at each connection, on the addresses the name resolves to then, and
// the connection goes to an address that passed (so a name that resolves to a
// public address at registration and a private one later, DNS rebinding,
// reaches nothing).

#include <string>
#include <string_view>
#include <vector>

#include "core/rpc/url.hpp"

namespace abci::webhooks {

struct TargetPolicy {
    bool allow_insecure = false;  // [webhooks] allowInsecureTargets: http:// too
    bool allow_private = false;   // [webhooks] allowPrivateTargets: any address
};

/// `url` parsed, if the policy allows its form: https (or http when allowed),
/// no userinfo (it would be sent to the receiver as a credential the
/// subscription list shows). Error(invalid_input) saying why otherwise.
[[nodiscard]] rpc::Url check_target_url(std::string_view url, const TargetPolicy& policy);

/// Why `address` (an IPv4 or IPv6 literal, without brackets) may not be a
/// target: "loopback", "private", "link-local", "multicast", "unspecified",
/// … (IPv4-mapped IPv6 as its IPv4); empty when it is a public address.
/// Error(invalid_input) when it is not an address.
[[nodiscard]] std::string refused_address_kind(std::string_view address);

/// The addresses `url`'s host resolves to now, every one allowed by `policy`
/// (an IP literal resolves to itself). Error(invalid_input) naming the
/// address and its kind when any is refused; Error(unavailable) when the name
/// does not resolve.
[[nodiscard]] std::vector<std::string> resolve_target(const rpc::Url& url, const TargetPolicy& policy);

}  // namespace abci::webhooks
