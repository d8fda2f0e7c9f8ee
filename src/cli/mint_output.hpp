#pragma once
// What mint-role and mint-entity share: the Idempotency-Key option and the
// printing of a mint's answer.

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace CLI {
class App;
}

namespace abci::cli {

class Context;

/// --idempotency-key KEY: a repeat with the same key returns the first mint instead of minting again.
void add_idempotency_option(CLI::App& command, std::string& key);
/// The header for the key, none when it is empty.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> idempotency_header(const std::string& key);
/// Prints a mint answer: fields, --json {data, metadata}, -q the transaction hash.
void print_mint(const Context& ctx, const nlohmann::json& answer);

}  // namespace abci::cli
