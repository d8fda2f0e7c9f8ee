#include "core/error.hpp"

namespace abci {

const char* to_string(ErrorKind kind) noexcept {
    switch (kind) {
    case ErrorKind::invalid_input: return "invalid_input";
    case ErrorKind::not_found: return "not_found";
    case ErrorKind::conflict: return "conflict";
    case ErrorKind::unauthenticated: return "unauthenticated";
    case ErrorKind::forbidden: return "forbidden";
    case ErrorKind::unprocessable: return "unprocessable";
    case ErrorKind::rate_limited: return "rate_limited";
    case ErrorKind::unavailable: return "unavailable";
    case ErrorKind::timeout: return "timeout";
    case ErrorKind::chain_rejected: return "chain_rejected";
    case ErrorKind::internal: return "internal";
    }
    return "internal";
}

std::optional<ErrorKind> error_kind_named(std::string_view name) noexcept {
    for (int k = 0; k <= static_cast<int>(ErrorKind::internal); ++k)
        if (name == to_string(static_cast<ErrorKind>(k))) return static_cast<ErrorKind>(k);
    return std::nullopt;
}

}  // namespace abci
