#pragma once
// A key kept by a separate JSON-RPC signer that answers eth_signTransaction
// (web3signer; geth with Clef; anvil's unlocked accounts in the tests),
// DESIGN.md §10. The signer
// signs whole transactions (eth_signTransaction) and nothing else, so it is a
// TransactionSigner, not a digest Signer. What it returns is a stranger's
// answer: it is decoded and must be the transaction asked for, field by field,
// low-s, signed by the configured account; anything else is refused before it
// can be journaled or broadcast.

#include <memory>
#include <string>

#include "core/eth/address.hpp"
#include "core/eth/signer.hpp"

namespace abci::signer {

/// Where the key is. `token`, when not empty, is sent as a bearer token; the
/// signer keeps a copy and wipes it when destroyed; the caller wipes its own.
struct RemoteConfig {
    std::string url;  // http(s) JSON-RPC endpoint; userinfo in it is sent as basic auth
    eth::Address address;
    std::string token;
};

/// Asks the signer for its accounts (eth_accounts) and returns a signer for
/// `config.address`. Throws, naming the signer by its masked URL:
/// Error(invalid_input) for a malformed URL; Error(unavailable) when it
/// refuses the credentials or answers with something that is not JSON-RPC;
/// Error(not_found) when it does not hold the address. A signer that cannot
/// be reached (or whose proxy answers 502, 503, 504) is no error: the signer
/// returned is unavailable() until it answers. eth_accounts is asked again
/// every few seconds, off any request (signer/watch.hpp). Safe to use from
/// many threads; a signature that cannot be had throws
/// Error(unavailable|timeout), and nothing was signed for the caller then.
[[nodiscard]] std::shared_ptr<const eth::TransactionSigner> open_remote_signer(const RemoteConfig& config);

}  // namespace abci::signer
