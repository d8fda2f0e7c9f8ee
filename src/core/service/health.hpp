#pragma once
// What GET /abci/health and /readyz find (AbciService::health, readiness):
// typed findings; serve renders them (and picks 503 for an unhealthy report).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/chain/tx_sender.hpp"
#include "core/eth/u256.hpp"
#include "core/store/records.hpp"

namespace abci::service {

/// One check's finding, with what it read (each field where its check reads it).
struct HealthCheck {
    std::string name;  // network:<id>, contract:<id>, minter:<id>, signer:<id>, lane:<id>, contentStorage, database, webhooks
    bool healthy = false;
    std::optional<std::string> message;  // what to fix when unhealthy; the content store says it always
    std::optional<std::uint64_t> chain_id;      // network: the configured one
    std::optional<std::uint64_t> latest_block;  // network, when the node answered
    std::optional<std::int64_t> latency_ms;     // network
    std::optional<std::string> address;         // contract, minter, signer: checksummed
    std::optional<std::string> version;         // contract, when deployed
    std::optional<eth::U256> balance;           // signer, when read
    std::optional<eth::U256> minimum_balance;   // signer, when read
    std::vector<chain::StuckTx> stuck;          // signer: unmined at the fee cap
    std::optional<std::string> owner;           // lane: the server that sends for it
    std::optional<std::int64_t> epoch;          // lane: its owner's term
    std::optional<bool> owned_here;             // lane: whether that is this server
    std::optional<std::uint64_t> pending;       // lane: journaled transactions not yet settled
    std::optional<std::int64_t> oldest_pending_seconds;  // lane: the age of the oldest of them
    std::optional<chain::LaneFigures> in_flight;         // lane, on its owner: what its sender holds, by state
    std::optional<std::uint64_t> journal_nonce;          // lane: the signer's next nonce as the journal holds it
    std::optional<std::uint64_t> chain_latest_nonce;     // lane: the signer's account nonce at the latest block
    std::optional<std::uint64_t> chain_pending_nonce;    // lane: the same with the node's pending transactions
    std::optional<std::uint64_t> disabled_subscriptions;  // webhooks: the subscriptions the server disabled
};

struct HealthReport {
    std::vector<HealthCheck> checks;
    store::TimePoint checked_at;
    [[nodiscard]] bool healthy() const noexcept {
        for (const auto& check : checks)
            if (!check.healthy) return false;
        return true;
    }
};

}  // namespace abci::service
