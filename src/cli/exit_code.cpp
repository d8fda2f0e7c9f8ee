#include "cli/exit_code.hpp"

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

}  // namespace abci::cli
