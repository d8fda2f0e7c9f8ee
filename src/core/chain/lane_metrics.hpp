#pragma once
// The families of one chain's lane (docs/metrics.md): what its sender does
// (fee bumps, replacements, reorg re-broadcasts, the stages of a mint's
// transaction), counted by every server as it happens, and what the lane
// holds (owner, epoch, pending transactions, nonces, the signer's funds),
// exported by the lane's owner only: a server that does not own the lane
// exports none of those series but abcictl_lane_owner 0, so that sum()
// across replicas counts each lane once.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <array>
#include <mutex>
#include <optional>
#include <string>

#include "core/eth/u256.hpp"
#include "core/metrics/registry.hpp"

namespace abci::chain {

/// What a lane's sender holds now (TxSender::figures()).
struct LaneFigures {
    std::size_t queued = 0;  // submitted, no nonce yet
    std::size_t signed_unsent = 0;  // signed and journaled, not yet accepted by a node
    std::size_t sent = 0;    // accepted by a node, not mined with its confirmations
    std::size_t stuck = 0;   // unmined at the fee cap (TxSender::stuck())
    /// When the oldest nonce in flight was first signed (or journaled, for one
    /// adopted at a takeover); nothing when none is.
    std::optional<std::chrono::system_clock::time_point> oldest;
};

/// The intervals of a mint's life, as OpenZeppelin's Relayer names them.
enum class MintStage { queued_to_signed, signed_to_sent, sent_to_mined, mined_to_confirmed, request_to_confirmed };

class LaneMetrics {
public:
    LaneMetrics(metrics::Registry& registry, std::string chain);
    LaneMetrics(const LaneMetrics&) = delete;
    LaneMetrics& operator=(const LaneMetrics&) = delete;

    void fee_bump() { fee_bumps_.increment(); }
    void replacement() { replacements_.increment(); }
    void reorg_rebroadcast() { reorg_rebroadcasts_.increment(); }
    void observe(MintStage stage, std::chrono::duration<double> elapsed);

    /// The lane as its owner sees it.
    struct Owned {
        std::int64_t epoch = 0;
        LaneFigures figures;
    };
    /// What this server holds of the lane now; nothing when it does not own
    /// it: its owner-only series go.
    void publish(const std::optional<Owned>& owned);
    /// The signer's next nonce as the lane's journal holds it and its account
    /// nonce on chain (latest block, and with the node's pending
    /// transactions), read together by the owner's nonce check.
    void nonces(std::uint64_t journal, std::uint64_t chain_latest, std::uint64_t chain_pending);
    /// The signer's balance as last read, and what one mint costs at the
    /// current fees (nothing affordable is shown when that is 0).
    void signer_funds(const eth::U256& balance_wei, const eth::U256& wei_per_mint);

private:
    // Sets every owner-only series from what is known, or removes it (mutex_ held).
    void set_owned();

    std::string chain_;
    metrics::Counter& fee_bumps_;
    metrics::Counter& replacements_;
    metrics::Counter& reorg_rebroadcasts_;
    metrics::Gauge& owner_;
    metrics::Family<metrics::Gauge>& epoch_family_;
    metrics::Family<metrics::Gauge>& pending_family_;
    metrics::Family<metrics::Gauge>& oldest_family_;
    metrics::Family<metrics::Gauge>& nonce_family_;
    metrics::Family<metrics::Gauge>& balance_family_;
    metrics::Family<metrics::Gauge>& affordable_family_;
    metrics::Histogram* stages_[5];

    std::mutex mutex_;  // what follows
    std::optional<Owned> owned_;
    std::optional<std::array<std::uint64_t, 3>> nonces_read_;  // journal, chain_latest, chain_pending
    std::optional<double> balance_ether_;
    std::optional<double> affordable_;
    // The owner-only series while they exist (a Family's remove() frees them).
    metrics::Gauge* epoch_ = nullptr;
    metrics::Gauge* pending_[4] = {};  // by pending state
    metrics::Gauge* oldest_ = nullptr;
    metrics::Gauge* nonces_[3] = {};  // journal, chain_latest, chain_pending
    metrics::Gauge* balance_ = nullptr;
    metrics::Gauge* affordable_gauge_ = nullptr;
};

}  // namespace abci::chain
