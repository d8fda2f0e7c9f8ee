#include "core/chain/fees.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/error.hpp"
#include "core/rpc/quantity.hpp"

namespace abci::chain {
namespace {

eth::U256 median(std::vector<eth::U256> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

eth::U256 raise_by_eighth(const eth::U256& v) {
    eth::U256 raised = v + (v + eth::U256(7)) / eth::U256(8);
    return raised == v ? v + eth::U256(1) : raised;
}

}  // namespace

const Fees& FeeTiers::tier(FeeTier t) const noexcept {
    switch (t) {
    case FeeTier::low: return low;
    case FeeTier::fast: return fast;
    case FeeTier::standard: break;
    }
    return standard;
}

eth::U256 FeeTiers::expected_price(FeeTier t) const {
    const Fees& f = tier(t);
    if (!eip1559) return f.max_fee_per_gas;
    return std::min(next_base_fee + f.max_priority_fee_per_gas, f.max_fee_per_gas);
}

FeeTiers fee_tiers_from_history(const nlohmann::json& history, const eth::U256& fallback_tip) {
    if (!history.is_object())
        throw Error(ErrorKind::unavailable, "eth_feeHistory: the node returned no result object");
    FeeTiers tiers;
    const auto base_fees = history.find("baseFeePerGas");
    if (base_fees == history.end() || !base_fees->is_array() || base_fees->empty()) {
        tiers.eip1559 = false;
        tiers.low = tiers.standard = tiers.fast = Fees{fallback_tip, fallback_tip};
        return tiers;
    }
    tiers.next_base_fee = rpc::quantity_to_u256(base_fees->back(), "eth_feeHistory baseFeePerGas");
    // Before London a node reports every base fee as 0 and refuses type-2
    // transactions; a legacy one is valid on either side of the fork.
    tiers.eip1559 = std::any_of(base_fees->begin(), base_fees->end(), [](const nlohmann::json& fee) {
        return !rpc::quantity_to_u256(fee, "eth_feeHistory baseFeePerGas").is_zero();
    });

    std::vector<eth::U256> tips[3];
    const auto rewards = history.find("reward");
    const auto ratios = history.find("gasUsedRatio");
    if (rewards != history.end() && rewards->is_array()) {
        for (std::size_t block = 0; block < rewards->size(); ++block) {
            const auto& row = (*rewards)[block];
            bool empty_block = ratios != history.end() && ratios->is_array() && block < ratios->size() &&
                               (*ratios)[block].is_number() && (*ratios)[block].get<double>() == 0.0;
            if (empty_block || !row.is_array() || row.size() != 3) continue;
            for (int k = 0; k < 3; ++k) tips[k].push_back(rpc::quantity_to_u256(row[k], "eth_feeHistory reward"));
        }
    }
    // Percentile medians of different blocks need not be ordered: a faster tier never tips less.
    Fees* out[3] = {&tiers.low, &tiers.standard, &tiers.fast};
    eth::U256 floor;
    for (int k = 0; k < 3; ++k) {
        eth::U256 tip = std::max(tips[k].empty() ? fallback_tip : median(tips[k]), floor);
        *out[k] = Fees{tiers.next_base_fee * eth::U256(2) + tip, tip};
        floor = tip;
    }
    return tiers;
}

Fees bumped(const Fees& fees) {
    return Fees{raise_by_eighth(fees.max_fee_per_gas), raise_by_eighth(fees.max_priority_fee_per_gas)};
}

}  // namespace abci::chain
