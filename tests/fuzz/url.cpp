// RPC endpoint URLs (core/rpc/url) from configuration files, flags and the
// environment. mask_url accepts anything; a parsed URL's parts make a URL
// that parses to the same parts, and neither shows the password.
// fuzz-max-len: 1024

#include <algorithm>

#include "core/rpc/url.hpp"
#include "fuzz.hpp"

using namespace abci;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = fuzz::text(data, size);
    const auto masked = rpc::mask_url(text);
    rpc::Url url;
    if (!fuzz::accepts({ErrorKind::invalid_input}, [&] { url = rpc::parse_url(text); })) return 0;
    fuzz::require(url.scheme == "http" || url.scheme == "https", "only http(s)");
    fuzz::require(!url.host.empty() && url.port != 0, "a host and a port");
    fuzz::require(url.target.starts_with('/'), "the request target is a path");
    const auto clean = [](const std::string& part) {
        return std::none_of(part.begin(), part.end(), [](char c) {
            const auto byte = static_cast<unsigned char>(c);
            return byte <= ' ' || byte == 0x7f;
        });
    };
    // They go into the request line and the Host header as they are.
    fuzz::require(clean(url.host) && clean(url.target), "no spaces or control characters in host and target");
    const auto authority_of = [](std::string_view u) { return u.substr(0, u.find_first_of("/?#", u.find("://") + 3)); };
    const auto authority = authority_of(text);
    // Only the masked URL's own authority: the same characters may recur in
    // its path or query, which masking judges by their own rules.
    if (const auto at = authority.rfind('@'); at != std::string_view::npos && !url.password.empty())
        fuzz::require(authority_of(masked).find(authority.substr(0, at + 1)) == std::string_view::npos,
                      "userinfo is masked");
    rpc::Url again;
    fuzz::require(fuzz::accepts({ErrorKind::invalid_input}, [&] { again = rpc::parse_url(url.origin() + url.target); }),
                  "origin + target parses");
    fuzz::require(again.host == url.host && again.port == url.port && again.target == url.target,
                  "origin + target parses to the same parts");
    return 0;
}
