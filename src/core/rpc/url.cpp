#include "core/rpc/url.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "core/error.hpp"

namespace abci::rpc {
namespace {

constexpr std::string_view kMask = "****";

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string percent_decode(std::string_view s, std::string_view url) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        int hi = i + 2 < s.size() ? hex_digit(s[i + 1]) : -1;
        int lo = i + 2 < s.size() ? hex_digit(s[i + 2]) : -1;
        if (hi < 0 || lo < 0)
            throw Error(ErrorKind::invalid_input, "bad percent-encoding in RPC URL " + mask_url(url));
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

// Names and words that are safe to show: providers' keys are long random
// tokens with digits or upper case, never a short lower-case word.
bool is_plain_word(std::string_view s) {
    if (s.empty() || s.size() > 24) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '-' || c == '_'; });
}

bool is_version_tag(std::string_view s) {
    return s.size() >= 2 && s.size() <= 4 && s[0] == 'v' &&
           std::all_of(s.begin() + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool names_a_secret(std::string_view name) {
    const std::string n = lower(name);
    for (std::string_view word : {"key", "token", "secret", "auth", "pass", "sig"})
        if (n.find(word) != std::string::npos) return true;
    return false;
}

// Applies `fn` to each `delim`-separated piece of `text` and joins the results.
template <typename Fn>
std::string map_pieces(std::string_view text, char delim, Fn fn) {
    std::string out;
    for (std::size_t start = 0;;) {
        std::size_t end = std::min(text.find(delim, start), text.size());
        out += fn(text.substr(start, end - start));
        if (end == text.size()) return out;
        out += delim;
        start = end + 1;
    }
}

std::string mask_segment(std::string_view segment) {
    return segment.empty() || is_plain_word(segment) || is_version_tag(segment) ? std::string(segment)
                                                                                  : std::string(kMask);
}

std::string mask_query_pair(std::string_view pair) {
    auto eq = pair.find('=');
    if (eq == std::string_view::npos) return is_plain_word(pair) ? std::string(pair) : std::string(kMask);
    auto name = pair.substr(0, eq);
    auto value = pair.substr(eq + 1);
    return std::string(name) + "=" +
           (!names_a_secret(name) && is_plain_word(value) ? std::string(value) : std::string(kMask));
}

// The raw pieces of "scheme://[userinfo@]hostport[path][?query][#fragment]".
struct Pieces {
    std::string_view scheme, userinfo, hostport, path, query;
    bool has_userinfo = false, has_query = false;
};

std::optional<Pieces> split(std::string_view url) {
    auto sep = url.find("://");
    if (sep == std::string_view::npos) return std::nullopt;
    Pieces p;
    p.scheme = url.substr(0, sep);
    auto rest = url.substr(sep + 3);
    rest = rest.substr(0, rest.find('#'));
    auto authority_end = std::min(rest.find_first_of("/?"), rest.size());
    p.hostport = rest.substr(0, authority_end);
    if (auto at = p.hostport.rfind('@'); at != std::string_view::npos) {
        p.has_userinfo = true;
        p.userinfo = p.hostport.substr(0, at);
        p.hostport = p.hostport.substr(at + 1);
    }
    auto target = rest.substr(authority_end);
    auto q = target.find('?');
    p.path = target.substr(0, q);
    if (q != std::string_view::npos) {
        p.has_query = true;
        p.query = target.substr(q + 1);
    }
    return p;
}

}  // namespace

std::string Url::origin() const { return scheme + "://" + host + ":" + std::to_string(port); }

Url parse_url(std::string_view url) {
    // RFC 3986 allows neither in a URL, and host and target go into the
    // request line and the Host header: whether a "\r\n" there starts a line
    // of its own must not depend on what the HTTP library re-encodes. Not
    // echoed: it would start one in a log.
    if (std::any_of(url.begin(), url.end(), [](char c) {
            const auto byte = static_cast<unsigned char>(c);
            return byte <= ' ' || byte == 0x7f;
        }))
        throw Error(ErrorKind::invalid_input, "bad RPC URL: it contains a space or a control character");
    auto fail = [&](const std::string& why) {
        return Error(ErrorKind::invalid_input, "bad RPC URL " + mask_url(url) + ": " + why);
    };
    auto pieces = split(url);
    if (!pieces) throw fail("expected http:// or https://");
    Url out;
    out.scheme = lower(pieces->scheme);
    if (out.scheme != "http" && out.scheme != "https") throw fail("scheme must be http or https");
    out.target = pieces->path.empty() ? "/" : std::string(pieces->path);
    if (pieces->has_query) out.target += "?" + std::string(pieces->query);
    if (pieces->has_userinfo) {
        auto colon = pieces->userinfo.find(':');
        out.user = percent_decode(pieces->userinfo.substr(0, colon), url);
        if (colon != std::string_view::npos) out.password = percent_decode(pieces->userinfo.substr(colon + 1), url);
    }

    auto authority = pieces->hostport;
    std::string_view port_text;
    if (!authority.empty() && authority.front() == '[') {
        auto close = authority.find(']');
        if (close == std::string_view::npos) throw fail("unterminated IPv6 address");
        out.host = std::string(authority.substr(0, close + 1));
        auto after = authority.substr(close + 1);
        if (!after.empty() && after.front() != ':') throw fail("bad text after IPv6 address");
        if (!after.empty()) port_text = after.substr(1);
    } else {
        auto colon = authority.find(':');
        out.host = lower(authority.substr(0, colon));
        if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    }
    if (out.host.empty() || out.host == "[]") throw fail("missing host");

    out.port = out.scheme == "https" ? 443 : 80;
    if (!port_text.empty()) {
        unsigned value = 0;
        auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
        if (ec != std::errc{} || ptr != port_text.data() + port_text.size() || value == 0 || value > 65535)
            throw fail("bad port");
        out.port = static_cast<std::uint16_t>(value);
    }
    return out;
}

std::string mask_url(std::string_view url) {
    auto pieces = split(url);
    if (!pieces) return std::string(kMask);
    std::string out = std::string(pieces->scheme) + "://";
    if (pieces->has_userinfo) out += std::string(kMask) + "@";
    out += pieces->hostport;
    out += map_pieces(pieces->path, '/', mask_segment);
    if (pieces->has_query) out += "?" + map_pieces(pieces->query, '&', mask_query_pair);
    return out;
}

}  // namespace abci::rpc
