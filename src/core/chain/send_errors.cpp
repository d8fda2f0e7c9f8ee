#include "core/chain/send_errors.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace abci::chain {

SendRefusal classify_send_refusal(const rpc::RpcError& error) {
    std::string m = error.rpc_message();
    std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return std::tolower(c); });
    auto has = [&m](const char* phrase) { return m.find(phrase) != std::string::npos; };
    if (has("already known") || has("known transaction") || has("already imported")) return SendRefusal::already_known;
    if (has("nonce too low") || has("nonce is too low") || has("old nonce")) return SendRefusal::nonce_too_low;
    if (has("nonce too high") || has("nonce gap")) return SendRefusal::nonce_too_high;
    if (has("insufficient funds") || has("insufficient balance")) return SendRefusal::insufficient_funds;
    if (has("replacement transaction underpriced") || has("replacement fee too low")) return SendRefusal::nonce_taken;
    // geth, reth and anvil: "max fee per gas less than block base fee" (the
    // base fee rose past the transaction's cap), "transaction underpriced"
    // (below the pool's floor); erigon: "fee cap less than block base fee".
    if (has("less than block base fee") || has("transaction underpriced") || has("fee cap too low") ||
        has("feecap too low"))
        return SendRefusal::fee_too_low;
    return SendRefusal::other;
}

}  // namespace abci::chain
