#pragma once
// What a node's refusal of eth_sendRawTransaction (or of eth_estimateGas,
// for funds) means for the sender.
// Nodes report these only as JSON-RPC messages (mostly under code -32000),
// so the message text is all there is to go on; the phrases are geth's,
// which anvil, reth, erigon and nethermind reuse.

#include "core/rpc/client.hpp"

namespace abci::chain {

enum class SendRefusal {
    already_known,   // the node has this very transaction: it was sent
    nonce_too_low,   // the nonce is used: by this transaction (mined) or by another
    nonce_too_high,  // a lower nonce of ours is missing at the node
    nonce_taken,     // another transaction with this nonce is pending (replacement underpriced)
    insufficient_funds,  // the signer cannot pay for gas and value: nothing with this nonce was accepted
    fee_too_low,     // offers less per gas than the node's base fee or price floor: signing it higher helps
    other,           // anything else: the transaction itself is unacceptable
};

[[nodiscard]] SendRefusal classify_send_refusal(const rpc::RpcError& error);

}  // namespace abci::chain
