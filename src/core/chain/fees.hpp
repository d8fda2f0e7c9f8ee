#pragma once
// Fee suggestions for EIP-1559 and legacy chains, derived from eth_feeHistory.

#include <nlohmann/json_fwd.hpp>

#include "core/eth/u256.hpp"

namespace abci::chain {

/// The fee fields of one transaction. On a legacy chain max_fee_per_gas is the
/// gas price and max_priority_fee_per_gas equals it.
struct Fees {
    eth::U256 max_fee_per_gas;
    eth::U256 max_priority_fee_per_gas;
    friend bool operator==(const Fees&, const Fees&) = default;
};

enum class FeeTier { low, standard, fast };

/// Three tiers of fees plus the base fee of the next block they were computed for.
struct FeeTiers {
    bool eip1559 = true;  // false: legacy gas price only
    eth::U256 next_base_fee;
    Fees low, standard, fast;

    [[nodiscard]] const Fees& tier(FeeTier t) const noexcept;
    /// What a transaction of tier `t` is expected to pay per gas: base fee plus tip,
    /// capped by the max fee (the API's low/standard/fast gas prices).
    [[nodiscard]] eth::U256 expected_price(FeeTier t) const;
};

/// The reward percentiles requested from eth_feeHistory, one per tier.
inline constexpr int kFeePercentiles[3] = {10, 50, 90};

/// Builds tiers from an eth_feeHistory result requested with kFeePercentiles.
/// Each tier's tip is the median over non-empty blocks of that percentile;
/// when no block had transactions, `fallback_tip` (eth_maxPriorityFeePerGas)
/// is used for all tiers. The max fee is twice the next base fee plus the tip,
/// which stays valid through six consecutive full blocks. A history without
/// base fees (a pre-London chain) yields eip1559 = false and tiers built from
/// `fallback_tip` as the legacy gas price. Throws Error(unavailable) when the
/// result is malformed.
[[nodiscard]] FeeTiers fee_tiers_from_history(const nlohmann::json& history, const eth::U256& fallback_tip);

/// Fees for a replacement: both fields raised by 1/8 (12.5%, above the 10%
/// that geth and most pools demand), and by at least 1 wei.
[[nodiscard]] Fees bumped(const Fees& fees);

}  // namespace abci::chain
