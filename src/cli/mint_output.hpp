#pragma once
// The printing of a mint's answer, shared by mint-role, mint-entity and
// `mint status` (which shows the same once the mint is mined).

#include <string>

#include <nlohmann/json.hpp>

#include "cli/context.hpp"

namespace abci::cli {

/// A mint's 200 answer, and the mint's id from its Content-Location ("" from
/// a server that names none).
struct MintAnswer {
    nlohmann::json body;
    std::string mint_id;
    bool accepted = false;  // a 202 to --no-wait: the mint is pending, body {success, data: {mintId, state, idempotencyKey}}
};

/// A mint's 200 answer ({success, data, metadata}) as a record: its data's
/// fields, the transaction on the block explorer at `explorer` (a base URL;
/// none when empty), then the blockchain, contract and entity from its
/// metadata; -q gives the transaction hash.
[[nodiscard]] Record mint_record(const nlohmann::json& answer, const std::string& explorer = "");
/// The block-explorer base URL of the chain for a mint's human output; "" with
/// --json or -q, when the chain has none, or when the chain list cannot be had
/// (said with -v).
[[nodiscard]] std::string explorer_of(Context& ctx, const std::string& blockchain_id);
/// Prints a mint answer on `blockchain_id`: mint_record() with its explorer
/// link and the mint's id, --json {data, metadata}, -q the transaction hash.
/// An accepted one: its id, state and key and the command that waits for its
/// outcome, --json the 202's body, -q the mint id.
void print_mint(Context& ctx, const MintAnswer& answer, const std::string& blockchain_id);

}  // namespace abci::cli
