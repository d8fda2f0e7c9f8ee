#pragma once
// A mined transaction's receipt, as the chain layer hands it to callers.

#include <chrono>
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/eth/address.hpp"
#include "core/eth/bytes.hpp"
#include "core/eth/u256.hpp"

namespace abci::chain {

struct Receipt {
    eth::Hash32 transaction_hash{};
    eth::Hash32 block_hash{};
    std::uint64_t block_number = 0;
    std::uint64_t nonce = 0;  // the sender's nonce, filled in by TxSender
    bool success = false;     // status 1: executed without revert
    std::uint64_t gas_used = 0;
    eth::U256 effective_gas_price;
    std::optional<eth::Address> contract_address;  // set for a contract creation
    nlohmann::json logs = nlohmann::json::array();
    std::uint64_t confirmations = 0;  // head - block_number + 1 when it was reported
    /// When the receipt poller first found it in a block, however deep (the
    /// end of sent_to_mined, the start of mined_to_confirmed); unset when it
    /// was not the poller that reported it.
    std::chrono::steady_clock::time_point mined_seen{};

    /// Parses an eth_getTransactionReceipt result. Throws Error(unavailable)
    /// when a required field is missing or malformed (the node misbehaved).
    [[nodiscard]] static Receipt from_json(const nlohmann::json& receipt);

    /// Sets `confirmations` as of the node's head `head` (1 when the head is
    /// behind the receipt's block, as a node lagging its peers may be).
    void confirm_at(std::uint64_t head) noexcept {
        confirmations = head >= block_number ? head - block_number + 1 : 1;
    }
};

}  // namespace abci::chain
