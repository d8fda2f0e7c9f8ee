#pragma once
// The client of one configured EVM network: reads (chain id, head, fees,
// code, calls, gas estimates) over its JSON-RPC endpoints, and the network's
// single receipt poller that every sender on it shares.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/chain/fees.hpp"
#include "core/chain/receipt.hpp"
#include "core/chain/receipt_poller.hpp"
#include "core/eth/address.hpp"
#include "core/eth/bytes.hpp"
#include "core/eth/u256.hpp"
#include "core/rpc/client.hpp"
#include "core/rpc/coalescer.hpp"
#include "core/util/combiner.hpp"

namespace abci::chain {

struct ChainSettings {
    std::uint64_t chain_id = 0;  // expected EVM chain id; verify_chain_id() checks the node agrees
    std::vector<std::string> rpc_urls;
    std::uint64_t confirmations = 1;
    std::chrono::milliseconds poll_interval{200};
    std::chrono::milliseconds fee_cache_ttl{1000};  // fee tiers are reused this long
    // Added to eth_estimateGas. Nodes pack blocks by gas limit, not gas used:
    // every percent here is a percent fewer transactions per block.
    unsigned gas_headroom_percent = 2;
    /// How old a head observation recent_head() may hand out (0: always fresh).
    std::chrono::milliseconds head_max_age{250};
    rpc::Options rpc;
};

/// A block number and when it was known to be the head.
struct ObservedHead {
    std::uint64_t number = 0;
    /// When the eth_blockNumber that returned it was sent: the head was at
    /// least this number from then on.
    std::chrono::system_clock::time_point as_of;
};

/// A read-only call or a gas estimate request.
struct CallRequest {
    std::optional<eth::Address> from;
    std::optional<eth::Address> to;  // empty: contract creation (estimate only)
    eth::U256 value;
    eth::Bytes data;
};

/// A block's number and timestamp (seconds since the epoch).
struct BlockStamp {
    std::uint64_t number = 0;
    std::uint64_t timestamp = 0;
};

class ChainClient {
public:
    /// Throws Error(invalid_input) when the settings name no URL or a malformed one.
    explicit ChainClient(ChainSettings settings);

    [[nodiscard]] const ChainSettings& settings() const noexcept { return settings_; }
    [[nodiscard]] rpc::Client& rpc() noexcept { return rpc_; }
    [[nodiscard]] ReceiptPoller& receipts() noexcept { return poller_; }

    /// The node's eth_chainId.
    [[nodiscard]] std::uint64_t node_chain_id();
    /// Throws Error(conflict) when the node serves another chain than configured,
    /// so a mistyped URL can never send a transaction to the wrong network.
    void verify_chain_id();
    [[nodiscard]] std::uint64_t block_number();
    /// The last head observed when its eth_blockNumber was sent less than
    /// settings().head_max_age ago; else the head as read by an eth_blockNumber
    /// begun after this call was made, shared by all callers waiting at the
    /// same time. A read route under load then costs the node a few calls a
    /// second instead of one per request, and the answer says how current it is.
    [[nodiscard]] ObservedHead recent_head();
    /// Fee tiers from eth_feeHistory over the last 20 blocks, cached for fee_cache_ttl.
    [[nodiscard]] FeeTiers fee_tiers();
    /// eth_estimateGas on the latest block plus gas_headroom_percent. A revert
    /// throws rpc::RpcError with its data. Not on the pending block: a node
    /// runs every pending transaction before each such estimate (anvil: 0.5 ms
    /// an estimate on latest, 11 ms with 500 transactions pending), which made
    /// a burst of mints quadratic; so a conflict with a transaction still
    /// pending shows only once it is mined (see MintBatcher, AbciService).
    ///
    /// A call like one estimated in the last 60 s (same contract, function
    /// and calldata size) is first tried as one eth_call with that gas limit:
    /// if it runs through, that limit is enough for it on the same block, and
    /// the node ran the call once instead of the several runs of an estimate's
    /// search (anvil: 0.1 ms instead of 0.45 ms, most of its work in a burst
    /// of mints). Anything else (a revert, too little gas) is settled by the
    /// estimate itself, whose answer or error is returned.
    [[nodiscard]] std::uint64_t estimate_gas(const CallRequest& request);
    /// eth_call at the latest block; returns the return data. A revert throws rpc::RpcError with its data.
    [[nodiscard]] eth::Bytes call(const CallRequest& request);
    /// The code at `address` (empty when nothing is deployed there).
    [[nodiscard]] eth::Bytes code_at(const eth::Address& address);
    /// eth_getTransactionCount(address, "pending"): the next nonce the node expects.
    [[nodiscard]] std::uint64_t pending_nonce(const eth::Address& address);
    /// eth_getTransactionCount(address, "latest"): how many of its nonces mined blocks consumed.
    [[nodiscard]] std::uint64_t latest_nonce(const eth::Address& address);
    /// eth_getBalance at the latest block, in wei.
    [[nodiscard]] eth::U256 balance(const eth::Address& address);
    /// The latest block's stamp, or block `number`'s.
    [[nodiscard]] BlockStamp block_stamp(std::optional<std::uint64_t> number = std::nullopt);
    /// eth_gasPrice, in wei.
    [[nodiscard]] eth::U256 gas_price();
    /// The receipt of transaction `hash` with its confirmations as of the
    /// node's head (1 when the head is behind the receipt's block, as a node
    /// lagging its peers may be); nothing while the node knows no receipt.
    [[nodiscard]] std::optional<Receipt> receipt(const eth::Hash32& hash);

private:
    ChainSettings settings_;
    rpc::Client rpc_;
    rpc::Coalescer estimates_{rpc_};  // concurrent estimates go out as one batch
    [[nodiscard]] ObservedHead observe_head();

    util::Combiner<std::monostate, ObservedHead> heads_{
        [this](std::vector<std::monostate>& callers) { return std::vector<ObservedHead>(callers.size(), observe_head()); },
        std::numeric_limits<std::size_t>::max()};
    std::mutex head_mutex_;  // guards the two below only; never held across a call
    std::optional<ObservedHead> last_head_;
    std::chrono::steady_clock::time_point last_head_sent_;
    ReceiptPoller poller_;
    struct KnownGas {
        std::uint64_t gas;  // an estimate with headroom
        std::chrono::steady_clock::time_point learned;
    };
    std::mutex gas_mutex_;  // guards known_gas_ only; never held across a call
    std::map<std::string, KnownGas> known_gas_;  // by call shape: contract, selector, calldata size
    std::mutex fee_mutex_;  // guards the cache only; never held across the fetch
    std::optional<FeeTiers> fee_cache_;
    std::chrono::steady_clock::time_point fee_cache_time_;
};

}  // namespace abci::chain
