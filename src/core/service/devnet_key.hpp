#pragma once
// Anvil's first dev account (mnemonic "test test … junk"): a published key,
// funded on every fresh anvil and worthless anywhere else. Used only for
// `[signer] anvilKey = true`, which the settings allow only when every chain
// is a local devnet (chain id kDevnetChainId).

#include <cstdint>
#include <string_view>

namespace abci::service {

inline constexpr std::string_view kAnvilDevKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
inline constexpr std::uint64_t kDevnetChainId = 31337;

}  // namespace abci::service
