#include "core/auth/siwe.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "core/eth/bytes.hpp"
#include "core/eth/signer.hpp"
#include "core/util/time.hpp"

namespace abci::auth {

namespace {

// ---- RFC 3986 character classes and productions (what EIP-4361 refers to) ----

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hexdig(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_unreserved(char c) { return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~'; }
bool is_sub_delim(char c) { return std::string_view("!$&'()*+,;=").find(c) != std::string_view::npos; }
bool is_gen_delim(char c) { return std::string_view(":/?#[]@").find(c) != std::string_view::npos; }

// True when `s` is a sequence of pct-encoded triplets and characters that are
// unreserved, sub-delims or in `extra`: the shape of userinfo, reg-name,
// segment, query and fragment, which differ only in `extra`.
bool is_pct_run(std::string_view s, std::string_view extra) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '%') {
            if (i + 2 >= s.size() || !is_hexdig(s[i + 1]) || !is_hexdig(s[i + 2])) return false;
            i += 2;
        } else if (!is_unreserved(c) && !is_sub_delim(c) && extra.find(c) == std::string_view::npos) {
            return false;
        }
    }
    return true;
}

constexpr std::string_view kPcharExtra = ":@";  // pchar = unreserved / pct-encoded / sub-delims / ":" / "@"

// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
bool is_scheme(std::string_view s) {
    return !s.empty() && is_alpha(s.front()) && std::all_of(s.begin(), s.end(), [](char c) {
        return is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.';
    });
}

// IP-literal = "[" ( IPv6address / IPvFuture ) "]", given without the brackets.
bool is_ip_literal_body(std::string_view s) {
    if (!s.empty() && (s.front() == 'v' || s.front() == 'V')) {  // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
        const auto dot = s.find('.');
        if (dot == std::string_view::npos || dot < 2 || dot + 1 == s.size()) return false;
        const auto version = s.substr(1, dot - 1);
        const auto rest = s.substr(dot + 1);
        return std::all_of(version.begin(), version.end(), is_hexdig) &&
               std::all_of(rest.begin(), rest.end(), [](char c) { return is_unreserved(c) || is_sub_delim(c) || c == ':'; });
    }
    // inet_pton's AF_INET6 grammar is RFC 4291 §2.2's text form, which is the
    // one RFC 3986 spells out as IPv6address (no zone id).
    if (s.size() >= INET6_ADDRSTRLEN) return false;
    std::string text(s);
    in6_addr addr{};
    return inet_pton(AF_INET6, text.c_str(), &addr) == 1;
}

// authority = [ userinfo "@" ] host [ ":" port ]; host = IP-literal / IPv4address / reg-name
// (every IPv4address is also a reg-name, so one test covers both).
bool is_authority(std::string_view s, bool host_required) {
    if (const auto at = s.find('@'); at != std::string_view::npos) {
        if (!is_pct_run(s.substr(0, at), ":")) return false;
        s.remove_prefix(at + 1);
    }
    std::string_view host = s;
    std::string_view port;
    if (!s.empty() && s.front() == '[') {
        const auto close = s.find(']');
        if (close == std::string_view::npos || !is_ip_literal_body(s.substr(1, close - 1))) return false;
        host = s.substr(0, close + 1);
        const auto after = s.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return false;
            port = after.substr(1);
        }
    } else {
        if (const auto colon = s.find(':'); colon != std::string_view::npos) {
            host = s.substr(0, colon);
            port = s.substr(colon + 1);
        }
        if (!is_pct_run(host, "")) return false;
    }
    if (host_required && host.empty()) return false;
    return std::all_of(port.begin(), port.end(), is_digit);
}

// URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
bool is_uri(std::string_view s) {
    const auto colon = s.find(':');
    if (colon == std::string_view::npos || !is_scheme(s.substr(0, colon))) return false;
    s.remove_prefix(colon + 1);
    if (const auto hash = s.find('#'); hash != std::string_view::npos) {
        if (!is_pct_run(s.substr(hash + 1), ":@/?")) return false;
        s = s.substr(0, hash);
    }
    if (const auto question = s.find('?'); question != std::string_view::npos) {
        if (!is_pct_run(s.substr(question + 1), ":@/?")) return false;
        s = s.substr(0, question);
    }
    // hier-part = "//" authority path-abempty / path-absolute / path-rootless / path-empty.
    // Once "//" is taken as the authority's mark, every run of pchar and "/"
    // is one of the path forms.
    if (s.starts_with("//")) {
        s.remove_prefix(2);
        const auto slash = std::min(s.find('/'), s.size());
        if (!is_authority(s.substr(0, slash), false)) return false;
        s.remove_prefix(slash);
    }
    return is_pct_run(s, ":@/");
}

// statement = *( reserved / unreserved / " " )
bool is_statement(std::string_view s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return is_unreserved(c) || is_gen_delim(c) || is_sub_delim(c) || c == ' '; });
}

// ---- the message, line by line ----

constexpr std::string_view kHeaderSuffix = " wants you to sign in with your Ethereum account:";

// Lines of the message (split at LF) with the 1-based number of the current
// one, so that every grammar error names where it is.
class Lines {
public:
    explicit Lines(std::string_view text) {
        std::size_t start = 0;
        for (;;) {
            const auto lf = text.find('\n', start);
            lines_.push_back(text.substr(start, lf == std::string_view::npos ? std::string_view::npos : lf - start));
            if (lf == std::string_view::npos) break;
            start = lf + 1;
        }
    }

    [[nodiscard]] bool at_end() const { return next_ == lines_.size(); }
    [[nodiscard]] std::string_view peek() const { return at_end() ? std::string_view{} : lines_[next_]; }

    // The next line, which must exist; `what` names it in the error otherwise.
    std::string_view take(std::string_view what) {
        if (at_end()) fail(fmt::format("the message ends before the {}", what));
        return lines_[next_++];
    }

    // The value of the next line, which must be `title` followed by it.
    std::string_view field(std::string_view title) {
        const auto line = take(fmt::format("'{}' line", title));
        if (!line.starts_with(title)) fail(fmt::format("expected a line starting with '{}'", title));
        return line.substr(title.size());
    }

    // fail() about the line just taken.
    [[noreturn]] void fail(const std::string& reason) const {
        throw Error(ErrorKind::invalid_input, fmt::format("SIWE message line {}: {}", std::max<std::size_t>(next_, 1), reason));
    }

private:
    std::vector<std::string_view> lines_;
    std::size_t next_ = 0;
};

eth::Address parse_address(std::string_view text, const Lines& lines) {
    if (text.size() != 42 || !text.starts_with("0x") || !std::all_of(text.begin() + 2, text.end(), is_hexdig))
        lines.fail("the address must be 0x and 40 hex digits");
    const auto address = eth::Address::parse(text);
    if (address.checksummed() != text) lines.fail("the address is not in its EIP-55 checksummed form");
    return address;
}

std::uint64_t parse_chain_id(std::string_view text, const Lines& lines) {
    // 1*DIGIT in the EIP; a leading zero would let two texts name one chain.
    if (text.empty() || !std::all_of(text.begin(), text.end(), is_digit) || (text.size() > 1 && text.front() == '0'))
        lines.fail("the chain id must be a decimal number without leading zeros");
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size()) lines.fail("the chain id is too large");
    return value;
}

std::chrono::system_clock::time_point parse_timestamp(std::string_view text, const Lines& lines) {
    try {
        return util::parse_rfc3339(text);
    } catch (const Error& e) {
        lines.fail(e.what());
    }
}

std::string checked(std::string_view value, bool (*valid)(std::string_view), const char* rule, const Lines& lines) {
    if (!valid(value)) lines.fail(rule);
    return std::string(value);
}

bool is_nonce(std::string_view s) {
    return s.size() >= 8 && std::all_of(s.begin(), s.end(), [](char c) { return is_alpha(c) || is_digit(c); });
}
bool is_request_id(std::string_view s) { return is_pct_run(s, kPcharExtra); }
bool is_domain(std::string_view s) { return is_authority(s, true); }

[[noreturn]] void refuse(const char* check) { throw Error(ErrorKind::unauthenticated, check); }

// The scheme of an origin "scheme://host[:port]".
std::string_view scheme_of(std::string_view origin) { return origin.substr(0, origin.find("://")); }

}  // namespace

SiweMessage parse_siwe_message(std::string_view text) {
    if (text.find('\r') != std::string_view::npos)
        throw Error(ErrorKind::invalid_input, "SIWE message: lines must end with LF alone (no CR)");
    Lines lines(text);
    SiweMessage m;

    const auto header = lines.take("header");
    if (!header.ends_with(kHeaderSuffix))
        lines.fail(fmt::format("expected '<domain>{}'", kHeaderSuffix));
    auto authority = header.substr(0, header.size() - kHeaderSuffix.size());
    if (const auto mark = authority.find("://"); mark != std::string_view::npos) {
        m.scheme = checked(authority.substr(0, mark), is_scheme, "invalid scheme before the domain", lines);
        authority.remove_prefix(mark + 3);
    }
    m.domain = checked(authority, is_domain, "the domain must be an RFC 3986 authority", lines);

    m.address = parse_address(lines.take("address"), lines);

    // address LF LF [ statement LF ] LF "URI: ": after the blank line, a
    // second blank line followed by "URI: " means no statement, anything else
    // is the statement (possibly empty) and must be followed by a blank line.
    if (!lines.take("blank line after the address").empty()) lines.fail("expected a blank line after the address");
    const auto after_blank = lines.take("statement or blank line");
    if (!(after_blank.empty() && lines.peek().starts_with("URI: "))) {
        m.statement = checked(after_blank, is_statement, "the statement has a character EIP-4361 does not allow", lines);
        if (!lines.take("blank line after the statement").empty()) lines.fail("expected a blank line after the statement");
    }

    m.uri = checked(lines.field("URI: "), is_uri, "the URI is not an RFC 3986 URI", lines);
    m.version = lines.field("Version: ");
    if (m.version != "1") lines.fail("the version must be 1");
    m.chain_id = parse_chain_id(lines.field("Chain ID: "), lines);
    m.nonce = checked(lines.field("Nonce: "), is_nonce, "the nonce must be at least 8 letters and digits", lines);
    m.issued_at = parse_timestamp(lines.field("Issued At: "), lines);

    if (lines.peek().starts_with("Expiration Time: "))
        m.expiration_time = parse_timestamp(lines.field("Expiration Time: "), lines);
    if (lines.peek().starts_with("Not Before: ")) m.not_before = parse_timestamp(lines.field("Not Before: "), lines);
    if (lines.peek().starts_with("Request ID: "))
        m.request_id = checked(lines.field("Request ID: "), is_request_id, "the request id must be URI path characters", lines);
    if (!lines.at_end() && lines.peek() == "Resources:") {
        (void)lines.take("resources");
        while (!lines.at_end()) {
            const auto line = lines.take("resource");
            if (!line.starts_with("- ")) lines.fail("a resource line must start with '- '");
            m.resources.push_back(checked(line.substr(2), is_uri, "the resource is not an RFC 3986 URI", lines));
        }
    }
    if (!lines.at_end()) {
        (void)lines.take("end");
        lines.fail("unexpected text after the last field");
    }
    return m;
}

SiweMessage verify_siwe(std::string_view text, std::string_view signature_hex, std::string_view claimed_address,
                        const SiweExpectations& expect) {
    // Empty expectations would accept any domain or origin: a configuration bug, not a client's.
    if (expect.domain.empty() || expect.uri_origin.empty() || expect.chain_ids.empty())
        throw Error(ErrorKind::internal, "SIWE expectations need a domain, a uri origin and chain ids");

    auto m = parse_siwe_message(text);
    if (!signature_hex.starts_with("0x"))
        throw Error(ErrorKind::invalid_input, "SIWE signature must be 0x-prefixed hex of 65 bytes");
    const auto signature = eth::Signature::parse(signature_hex);
    const auto claimed = eth::Address(eth::from_hex_fixed<20>(claimed_address, "claimed address"));

    if (m.domain != expect.domain) refuse("SIWE domain mismatch");
    if (!m.scheme.empty() && m.scheme != scheme_of(expect.uri_origin)) refuse("SIWE scheme mismatch");
    // The origin must end where the URI's authority ends: "https://a.org" is a
    // prefix of "https://a.org.evil.com" too.
    const auto rest = std::string_view(m.uri).substr(std::min(m.uri.size(), expect.uri_origin.size()));
    if (!m.uri.starts_with(expect.uri_origin) || !(rest.empty() || rest.front() == '/' || rest.front() == '?' || rest.front() == '#'))
        refuse("SIWE uri is not on this server's origin");
    if (std::find(expect.chain_ids.begin(), expect.chain_ids.end(), m.chain_id) == expect.chain_ids.end())
        refuse("SIWE chain id not accepted");
    if (m.issued_at > expect.now + expect.skew) refuse("SIWE message issued in the future");
    if (expect.now - m.issued_at > expect.max_age) refuse("SIWE message too old (issued-at)");
    if (m.expiration_time && expect.now >= *m.expiration_time) refuse("SIWE message expired");
    if (m.not_before && expect.now + expect.skew < *m.not_before) refuse("SIWE message not yet valid (not-before)");

    // A high-s twin of a valid signature recovers the same signer; refusing it
    // keeps one signature per message, as EIP-2 does for transactions.
    if (!eth::is_low_s(signature)) refuse("SIWE signature has a high s value");
    eth::Address signer;
    try {
        signer = eth::recover_message_signer(eth::as_bytes(text), signature);
    } catch (const Error&) {
        refuse("SIWE signature is not a valid signature");
    }
    if (signer != m.address) refuse("signature does not match the message's address");
    if (claimed != m.address) refuse("claimed address does not match the message's address");
    return m;
}

std::string format_siwe_message(const SiweMessage& m) {
    auto time = [](std::chrono::system_clock::time_point t) { return util::format_iso8601_utc(t); };
    std::string text = (m.scheme.empty() ? "" : m.scheme + "://") + m.domain +
                       " wants you to sign in with your Ethereum account:\n" + m.address.checksummed() + "\n\n";
    if (m.statement) text += *m.statement + "\n";
    text += "\nURI: " + m.uri + "\nVersion: " + m.version + "\nChain ID: " + std::to_string(m.chain_id) +
            "\nNonce: " + m.nonce + "\nIssued At: " + time(m.issued_at);
    if (m.expiration_time) text += "\nExpiration Time: " + time(*m.expiration_time);
    if (m.not_before) text += "\nNot Before: " + time(*m.not_before);
    if (m.request_id) text += "\nRequest ID: " + *m.request_id;
    if (!m.resources.empty()) {
        text += "\nResources:";
        for (const auto& resource : m.resources) text += "\n- " + resource;
    }
    return text;
}

}  // namespace abci::auth
