#include "core/chain/lane_metrics.hpp"

#include <string>

namespace abci::chain {

namespace {

// OpenZeppelin's stages span a block (seconds) to a stuck transaction's wait (minutes).
const metrics::Buckets& stage_buckets() {
    static const metrics::Buckets buckets{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};
    return buckets;
}

constexpr const char* kStageNames[] = {"queued_to_signed", "signed_to_sent", "sent_to_mined", "mined_to_confirmed",
                                       "request_to_confirmed"};
constexpr const char* kPendingStates[] = {"queued", "signed", "sent", "stuck"};
constexpr const char* kNonceSources[] = {"journal", "chain_latest", "chain_pending"};

// `slot`'s series set to `value` (added when missing), or removed when there is no value.
void put(metrics::Family<metrics::Gauge>& family, metrics::Gauge*& slot, const metrics::Labels& labels,
         std::optional<double> value) {
    if (!value) {
        if (slot) family.remove(slot);
        slot = nullptr;
        return;
    }
    if (!slot) slot = &family.add(labels);
    slot->set(*value);
}

double wei_to_ether(const eth::U256& wei) {
    // Whole ether and the remainder apart: a double keeps neither exactly past 2^53 wei (0.009 ether).
    const eth::U256 ether(1'000'000'000'000'000'000ULL);
    return std::stod((wei / ether).to_dec()) + std::stod((wei % ether).to_dec()) / 1e18;
}

}  // namespace

LaneMetrics::LaneMetrics(metrics::Registry& registry, std::string chain)
    : chain_(std::move(chain)),
      fee_bumps_(registry.counter("abcictl_lane_fee_bumps_total",
                                  "Transactions the lane's sender signed again with higher fees (unmined too long, or "
                                  "priced below the chain's base fee)")
                     .add({{"chain", chain_}})),
      replacements_(registry.counter("abcictl_lane_replacements_total",
                                     "Nonces whose transaction the sender replaced by a 0-value transfer to itself (the "
                                     "node refused it, or the chain was reset)")
                        .add({{"chain", chain_}})),
      reorg_rebroadcasts_(registry.counter("abcictl_lane_reorg_rebroadcasts_total",
                                           "Mined transactions a reorg deeper than the confirmations took out of "
                                           "their block, sent again")
                              .add({{"chain", chain_}})),
      owner_(registry.gauge("abcictl_lane_owner", "1 when this server sends for the chain's lane, else 0")
                 .add({{"chain", chain_}})),
      epoch_family_(registry.gauge("abcictl_lane_owner_epoch", "The lane owner's term (exported by the owner only)")),
      pending_family_(registry.gauge("abcictl_lane_pending_transactions",
                                     "The lane's transactions not yet settled, by state (exported by the owner only)")),
      oldest_family_(registry.gauge("abcictl_lane_oldest_pending_age_seconds",
                                    "Age of the lane's oldest unsettled transaction, 0 when none (exported by the "
                                    "owner only)")),
      nonce_family_(registry.gauge("abcictl_lane_next_nonce",
                                   "The signer's next nonce as the journal holds it and as the chain reports it "
                                   "(exported by the owner only)")),
      balance_family_(registry.gauge("abcictl_signer_balance_ether",
                                     "The signer's balance as last read by a health check (exported by the lane's "
                                     "owner only)")),
      affordable_family_(registry.gauge("abcictl_signer_mints_affordable",
                                        "About how many mints the signer's balance pays for at the current fees "
                                        "(exported by the lane's owner only)")) {
    auto& stages = registry.histogram("abcictl_mint_stage_duration_seconds",
                                      "How long each stage of a mint took, from its request to its confirmations",
                                      stage_buckets());
    for (std::size_t i = 0; i < std::size(kStageNames); ++i)
        stages_[i] = &stages.add({{"chain", chain_}, {"stage", kStageNames[i]}});
}

void LaneMetrics::observe(MintStage stage, std::chrono::duration<double> elapsed) {
    stages_[static_cast<std::size_t>(stage)]->observe(std::max(elapsed.count(), 0.0));
}

void LaneMetrics::publish(const std::optional<Owned>& owned) {
    std::lock_guard lock(mutex_);
    owned_ = owned;
    if (!owned_) nonces_read_.reset();  // read again by the next owner term: never a stale term's
    set_owned();
}

void LaneMetrics::nonces(std::uint64_t journal, std::uint64_t chain_latest, std::uint64_t chain_pending) {
    std::lock_guard lock(mutex_);
    nonces_read_ = {journal, chain_latest, chain_pending};
    set_owned();
}

void LaneMetrics::signer_funds(const eth::U256& balance_wei, const eth::U256& wei_per_mint) {
    std::lock_guard lock(mutex_);
    balance_ether_ = wei_to_ether(balance_wei);
    affordable_.reset();
    if (wei_per_mint != eth::U256(0)) affordable_ = std::stod((balance_wei / wei_per_mint).to_dec());
    set_owned();
}

void LaneMetrics::set_owned() {
    owner_.set(owned_ ? 1 : 0);
    const auto known = [&](auto value) { return owned_ ? std::optional<double>(static_cast<double>(value)) : std::nullopt; };
    const metrics::Labels chain{{"chain", chain_}};
    put(epoch_family_, epoch_, chain, owned_ ? known(owned_->epoch) : std::nullopt);
    const LaneFigures figures = owned_ ? owned_->figures : LaneFigures{};
    const std::size_t by_state[] = {figures.queued, figures.signed_unsent, figures.sent, figures.stuck};
    for (std::size_t i = 0; i < std::size(kPendingStates); ++i)
        put(pending_family_, pending_[i], {{"chain", chain_}, {"state", kPendingStates[i]}}, known(by_state[i]));
    double oldest = 0;
    if (figures.oldest)
        oldest = std::max(0.0, std::chrono::duration<double>(std::chrono::system_clock::now() - *figures.oldest).count());
    put(oldest_family_, oldest_, chain, known(oldest));
    for (std::size_t i = 0; i < std::size(kNonceSources); ++i)
        put(nonce_family_, nonces_[i], {{"chain", chain_}, {"source", kNonceSources[i]}},
            owned_ && nonces_read_ ? std::optional<double>(static_cast<double>((*nonces_read_)[i])) : std::nullopt);
    put(balance_family_, balance_, chain, owned_ ? balance_ether_ : std::nullopt);
    put(affordable_family_, affordable_gauge_, chain, owned_ ? affordable_ : std::nullopt);
}

}  // namespace abci::chain
