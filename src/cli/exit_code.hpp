#pragma once
// The one place where core error kinds become process exit codes (DESIGN.md §6):
// 0 ok, 1 error, 2 usage (also a request the server's rules refuse), 4 not
// logged in or forbidden.

#include "core/error.hpp"

namespace abci::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitAuth = 4;
// `health` follows the monitoring-plugin convention instead: 0 OK, 1 WARNING,
// 2 CRITICAL, 3 UNKNOWN (also for its bad arguments).
inline constexpr int kExitHealthOk = 0;
inline constexpr int kExitHealthWarning = 1;
inline constexpr int kExitHealthCritical = 2;
inline constexpr int kExitHealthUnknown = 3;

[[nodiscard]] int exit_code_for(ErrorKind kind) noexcept;
/// exit_code_for(its kind), except that a request the server refused by its
/// rules (400, 404, 409, 422: refused again if sent again as it is) is a usage
/// error, like a bad argument; a mint of unknown outcome stays 1 (retrying is the advice).
[[nodiscard]] int exit_code_for(const Error& error) noexcept;
/// A mint that failed, of the kind its status records, as `mint status
/// --wait` learns it: what mint-role or mint-entity exits with when the
/// server answers that failure itself (the kinds answered 400, 404, 409 or
/// 422 are usage errors, as above).
[[nodiscard]] int exit_code_for_failed_mint(ErrorKind kind) noexcept;

}  // namespace abci::cli
