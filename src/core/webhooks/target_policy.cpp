#include "core/webhooks/target_policy.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "core/error.hpp"

namespace abci::webhooks {
namespace {

std::string without_brackets(std::string_view host) {
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') return std::string(host.substr(1, host.size() - 2));
    return std::string(host);
}

std::string ipv4_kind(const std::array<std::uint8_t, 4>& a) {
    if (a[0] == 0) return "unspecified";
    if (a[0] == 127) return "loopback";
    if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168)) return "private";
    // Carrier-grade NAT (RFC 6598): inside a provider's network, never a receiver's.
    if (a[0] == 100 && (a[1] & 0xc0) == 64) return "private";
    if (a[0] == 169 && a[1] == 254) return "link-local";
    if (a[0] >= 224 && a[0] <= 239) return "multicast";
    if (a[0] >= 240) return "reserved";
    return "";
}

std::string ipv6_kind(const std::array<std::uint8_t, 16>& a) {
    const auto all_zero = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i)
            if (a[i] != 0) return false;
        return true;
    };
    if (all_zero(0, 16)) return "unspecified";
    if (all_zero(0, 15) && a[15] == 1) return "loopback";
    // ::ffff:a.b.c.d reaches a.b.c.d: judged as that address.
    if (all_zero(0, 10) && a[10] == 0xff && a[11] == 0xff) return ipv4_kind({a[12], a[13], a[14], a[15]});
    if ((a[0] & 0xfe) == 0xfc) return "private";
    if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return "link-local";
    if (a[0] == 0xff) return "multicast";
    return "";
}

}  // namespace

rpc::Url check_target_url(std::string_view url, const TargetPolicy& policy) {
    rpc::Url parsed = rpc::parse_url(url);
    if (parsed.scheme != "https" && !policy.allow_insecure)
        throw Error(ErrorKind::invalid_input,
                    "a webhook URL must be https:// (set [webhooks] allowInsecureTargets = true to allow http://)");
    if (!parsed.user.empty() || !parsed.password.empty())
        throw Error(ErrorKind::invalid_input,
                    "a webhook URL must not carry credentials (user:password@): the receiver checks the signature");
    return parsed;
}

std::string refused_address_kind(std::string_view address) {
    const std::string text(address);
    std::array<std::uint8_t, 4> v4{};
    if (inet_pton(AF_INET, text.c_str(), v4.data()) == 1) return ipv4_kind(v4);
    std::array<std::uint8_t, 16> v6{};
    if (inet_pton(AF_INET6, text.c_str(), v6.data()) == 1) return ipv6_kind(v6);
    throw Error(ErrorKind::invalid_input, fmt::format("\"{}\" is not an IP address", text));
}

std::vector<std::string> resolve_target(const rpc::Url& url, const TargetPolicy& policy) {
    const std::string host = without_brackets(url.host);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0)
        throw Error(ErrorKind::unavailable, fmt::format("webhook host {} does not resolve: {}", host, gai_strerror(rc)));
    const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(found, &freeaddrinfo);
    std::vector<std::string> addresses;
    for (const addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
        std::array<char, INET6_ADDRSTRLEN> buffer{};
        const void* raw = ai->ai_family == AF_INET
                              ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(ai->ai_addr)->sin_addr)
                              : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(ai->ai_addr)->sin6_addr);
        if (inet_ntop(ai->ai_family, raw, buffer.data(), buffer.size()) == nullptr) continue;
        std::string address(buffer.data());
        if (!policy.allow_private) {
            if (const auto kind = refused_address_kind(address); !kind.empty())
                throw Error(ErrorKind::invalid_input,
                            fmt::format("webhook host {} resolves to {}, a {} address; targets must be public "
                                        "(set [webhooks] allowPrivateTargets = true to allow it)",
                                        host, address, kind));
        }
        if (std::find(addresses.begin(), addresses.end(), address) == addresses.end())
            addresses.push_back(std::move(address));
    }
    if (addresses.empty()) throw Error(ErrorKind::unavailable, fmt::format("webhook host {} has no address", host));
    return addresses;
}

}  // namespace abci::webhooks
