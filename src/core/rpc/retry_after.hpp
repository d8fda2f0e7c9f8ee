#pragma once
// A node's Retry-After header. Its own header so that what a node can send is
// fuzzed without a network (tests/fuzz/retry_after.cpp).

#include <chrono>
#include <optional>
#include <string>

namespace abci::rpc {

/// A 429's Retry-After header (RFC 9110 §10.2.3: delta-seconds or an
/// HTTP-date), at most a day, or nullopt when absent or unreadable.
[[nodiscard]] std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& value);

}  // namespace abci::rpc
