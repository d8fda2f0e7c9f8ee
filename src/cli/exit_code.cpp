#include "cli/exit_code.hpp"

#include "cli/advice.hpp"

namespace abci::cli {

int exit_code_for(ErrorKind kind) noexcept {
    switch (kind) {
    case ErrorKind::invalid_input: return kExitUsage;
    case ErrorKind::unauthenticated:
    case ErrorKind::forbidden: return kExitAuth;
    case ErrorKind::not_found:
    case ErrorKind::conflict:
    case ErrorKind::unprocessable:
    case ErrorKind::rate_limited:
    case ErrorKind::unavailable:
    case ErrorKind::timeout:
    case ErrorKind::chain_rejected:
    case ErrorKind::internal: return kExitError;
    }
    return kExitError;
}

int exit_code_for(const Error& error) noexcept {
    const auto* answer = dynamic_cast<const ServerError*>(&error);
    if (!answer || dynamic_cast<const AdvisedError*>(&error)) return exit_code_for(error.kind());
    switch (answer->status()) {
    case 400:
    case 404:
    case 409:
    case 422: return kExitUsage;
    default: return exit_code_for(error.kind());
    }
}

int exit_code_for_failed_mint(ErrorKind kind) noexcept {
    switch (kind) {
    case ErrorKind::invalid_input:
    case ErrorKind::not_found:
    case ErrorKind::conflict:
    case ErrorKind::unprocessable: return kExitUsage;
    default: return exit_code_for(kind);
    }
}

}  // namespace abci::cli
