#pragma once
// The one error type of abcictl's core. Front ends map `kind` to their own
// vocabulary in exactly one place each (HTTP status in serve, exit code in cli);
// nothing outside core inspects `what()` to decide anything.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace abci {

enum class ErrorKind {
    invalid_input,    // the caller sent something malformed (bad hex, bad address, bad file)
    not_found,        // a named thing does not exist (chain, file, token)
    conflict,         // the request clashes with current state (role already held)
    unauthenticated,  // no or bad credentials (wrong keystore password, bad token)
    forbidden,        // authenticated but not allowed
    unprocessable,    // well-formed but semantically refused (user not linked to address)
    rate_limited,     // too many requests
    unavailable,      // a dependency cannot be reached (RPC node down, contract missing)
    timeout,          // a dependency answered too slowly (receipt never came)
    chain_rejected,   // the chain refused or reverted a transaction or call
    internal,         // a bug or an invariant broken inside abcictl
};

/// Short stable name of a kind, e.g. "invalid_input"; for logs and JSON.
[[nodiscard]] const char* to_string(ErrorKind kind) noexcept;
/// The kind of a to_string() name; nothing for an unknown one.
[[nodiscard]] std::optional<ErrorKind> error_kind_named(std::string_view name) noexcept;

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, std::string message, std::vector<std::string> details = {})
        : std::runtime_error(std::move(message)), kind_(kind), details_(std::move(details)) {}

    [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }
    /// Further facts, one per entry (e.g. each failed validation rule).
    [[nodiscard]] const std::vector<std::string>& details() const noexcept { return details_; }

private:
    ErrorKind kind_;
    std::vector<std::string> details_;
};

}  // namespace abci
