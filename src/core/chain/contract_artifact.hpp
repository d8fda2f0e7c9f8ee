#pragma once
// The committed build artifact of contracts/ABCIToken.sol (ABI, bytecode,
// compiler settings), embedded at build time.

#include <string_view>

namespace abci::chain {

extern const std::string_view kAbciTokenArtifactJson;

}  // namespace abci::chain
