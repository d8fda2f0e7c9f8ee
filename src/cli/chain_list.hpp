#pragma once
// The server's chain list as the command line keeps it (DESIGN.md §5): cached
// per server in state.db for five minutes, for `chains list`, completions and
// the block-explorer link of a mint. A cached answer is used only while the
// server that gave it still runs (its X-Abci-Instance is the same), or when
// the server cannot be reached, and then says so with its age.

#include <string>

#include <nlohmann/json.hpp>

namespace abci::cli {

class Context;

struct ChainList {
    nlohmann::json answer;  // GET /abci/blockchains/list's body
    std::string cached;     // why the answer came from state.db, with its age; "" when fresh from the server
};

/// The list, from the cache when it is fresh and the server did not restart
/// since (unless `refresh`), else from the server (then cached). Throws what
/// ApiClient::call throws when the server must be asked and cannot be.
[[nodiscard]] ChainList chain_list(Context& ctx, bool refresh);

/// The block-explorer base URL of chain `blockchain_id` (its `blockExplorer`,
/// without a trailing slash), "" when the chain has none or is not listed.
[[nodiscard]] std::string block_explorer(Context& ctx, const std::string& blockchain_id);

}  // namespace abci::cli
