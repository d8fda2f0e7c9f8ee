#pragma once
// The printing of a mint's answer, shared by mint-role, mint-entity and
// `mint status` (which shows the same once the mint is mined).

#include <nlohmann/json.hpp>

#include "cli/context.hpp"

namespace abci::cli {

/// A mint's 200 answer ({success, data, metadata}) as a record: its data's
/// fields, then the blockchain, contract and entity from its metadata; -q
/// gives the transaction hash.
[[nodiscard]] Record mint_record(const nlohmann::json& answer);
/// Prints a mint answer: mint_record(), --json {data, metadata}, -q the transaction hash.
void print_mint(const Context& ctx, const nlohmann::json& answer);

}  // namespace abci::cli
