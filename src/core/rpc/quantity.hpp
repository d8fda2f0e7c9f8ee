#pragma once
// JSON-RPC "quantity" values (Ethereum execution API): 0x-prefixed hex,
// most significant digit first, "0x0" for zero.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/eth/u256.hpp"

namespace abci::rpc {

/// Canonical quantity: "0x" + lower-case hex without leading zeros ("0x0", "0x2a").
[[nodiscard]] std::string to_quantity(std::uint64_t value);
[[nodiscard]] std::string to_quantity(const eth::U256& value);

/// Decodes a quantity a node returned (`what` names it in errors, e.g.
/// "eth_blockNumber result"). Leading zeros are tolerated, since some nodes
/// send them. Throws Error(unavailable) — the node answered with something
/// malformed — when `value` is not a string, lacks "0x", has no or non-hex
/// digits, or does not fit the type.
[[nodiscard]] std::uint64_t quantity_to_u64(const nlohmann::json& value, std::string_view what);
[[nodiscard]] eth::U256 quantity_to_u256(const nlohmann::json& value, std::string_view what);

}  // namespace abci::rpc
