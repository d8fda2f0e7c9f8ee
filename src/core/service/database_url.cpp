#include "core/service/database_url.hpp"

#include <array>

namespace abci::service {

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// `text` with its %XX escapes decoded; a malformed escape stays as written
/// (libpq refuses such a URL anyway).
std::string percent_decoded(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const int high = text[i] == '%' && i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
        const int low = high >= 0 ? hex_digit(text[i + 2]) : -1;
        if (low < 0) {
            out += text[i];
            continue;
        }
        out += static_cast<char>(high * 16 + low);
        i += 2;
    }
    return out;
}

/// Whether the URL after its scheme holds a password. libpq takes userinfo
/// from before the first '@' that comes ahead of any '/', and each
/// parameter's name percent-decoded.
bool carries_password(std::string_view rest) {
    if (const auto at = rest.substr(0, rest.find('/')).find('@');
        at != std::string_view::npos && rest.substr(0, at).find(':') != std::string_view::npos)
        return true;
    const auto query = rest.find('?');
    if (query == std::string_view::npos) return false;
    for (std::string_view params = rest.substr(query + 1); !params.empty();) {
        const auto amp = params.find('&');
        const auto param = params.substr(0, amp);
        if (percent_decoded(param.substr(0, param.find('='))) == "password") return true;
        params = amp == std::string_view::npos ? std::string_view() : params.substr(amp + 1);
    }
    return false;
}

}  // namespace

std::optional<std::string> postgresql_url_objection(std::string_view url, std::string_view password_file) {
    constexpr std::array<std::string_view, 2> kSchemes{"postgresql://", "postgres://"};
    for (const auto scheme : kSchemes) {
        if (!url.starts_with(scheme)) continue;
        if (!carries_password(url.substr(scheme.size()))) return std::nullopt;
        return "carries a password, which would show wherever the URL does: give it in " + std::string(password_file) +
               " or PGPASSFILE instead";
    }
    return "must be a URL starting with postgresql:// or postgres://";
}

}  // namespace abci::service
