#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/chain/fees.hpp"
#include "core/error.hpp"

using namespace abci;
using chain::fee_tiers_from_history;

TEST_CASE("fee tiers take the median tip of non-empty blocks per percentile", "[chain][fees]") {
    // Three blocks, the middle one empty; next base fee 0x64 = 100.
    const auto history = nlohmann::json::parse(R"({
        "oldestBlock": "0x10",
        "baseFeePerGas": ["0x50", "0x5a", "0x60", "0x64"],
        "gasUsedRatio": [0.5, 0.0, 0.9],
        "reward": [["0x1", "0x5", "0x9"], ["0x0", "0x0", "0x0"], ["0x3", "0x7", "0xb"]]
    })");
    const auto tiers = fee_tiers_from_history(history, eth::U256(1000));
    CHECK(tiers.eip1559);
    CHECK(tiers.next_base_fee == eth::U256(100));
    CHECK(tiers.low.max_priority_fee_per_gas == eth::U256(3));
    CHECK(tiers.standard.max_priority_fee_per_gas == eth::U256(7));
    CHECK(tiers.fast.max_priority_fee_per_gas == eth::U256(11));
    CHECK(tiers.standard.max_fee_per_gas == eth::U256(207));
    CHECK(tiers.expected_price(chain::FeeTier::fast) == eth::U256(111));
}

TEST_CASE("fee tiers fall back to the suggested tip and stay ordered", "[chain][fees]") {
    const auto empty = nlohmann::json::parse(R"({"baseFeePerGas": ["0x7", "0x8"], "gasUsedRatio": [0.0], "reward": [["0x0","0x0","0x0"]]})");
    const auto tiers = fee_tiers_from_history(empty, eth::U256(42));
    CHECK(tiers.low.max_priority_fee_per_gas == eth::U256(42));
    CHECK(tiers.fast.max_fee_per_gas == eth::U256(16 + 42));

    // A higher low-percentile median than the 50th (different blocks) never makes a faster tier cheaper.
    const auto skewed = nlohmann::json::parse(R"({"baseFeePerGas": ["0x1", "0x1", "0x1"], "gasUsedRatio": [0.5, 0.5],
        "reward": [["0x9", "0x2", "0x3"], ["0x9", "0x2", "0x3"]]})");
    const auto ordered = fee_tiers_from_history(skewed, eth::U256(1));
    CHECK(ordered.standard.max_priority_fee_per_gas >= ordered.low.max_priority_fee_per_gas);
    CHECK(ordered.fast.max_priority_fee_per_gas >= ordered.standard.max_priority_fee_per_gas);
}

TEST_CASE("a chain without base fees is legacy, malformed history is refused", "[chain][fees]") {
    const auto legacy = fee_tiers_from_history(nlohmann::json::object(), eth::U256(5'000'000'000ULL));
    CHECK_FALSE(legacy.eip1559);
    CHECK(legacy.expected_price(chain::FeeTier::standard) == eth::U256(5'000'000'000ULL));
    // A node before London (anvil --hardfork berlin) reports a base fee of 0 for every block.
    const auto berlin = nlohmann::json::parse(R"({"baseFeePerGas": ["0x0", "0x0"], "gasUsedRatio": [0.0], "reward": [["0x0","0x0","0x0"]]})");
    CHECK_FALSE(fee_tiers_from_history(berlin, eth::U256(1)).eip1559);
    CHECK_THROWS_AS(fee_tiers_from_history(nlohmann::json::array(), eth::U256(1)), Error);
    CHECK_THROWS_AS(fee_tiers_from_history(nlohmann::json::parse(R"({"baseFeePerGas": ["zz"]})"), eth::U256(1)), Error);
}

TEST_CASE("replacement fees rise by at least 10% in both fields", "[chain][fees]") {
    for (std::uint64_t v : {0ULL, 1ULL, 7ULL, 8ULL, 100ULL, 1'000'000'007ULL}) {
        const chain::Fees before{eth::U256(v * 3), eth::U256(v)};
        const auto after = chain::bumped(before);
        CHECK(after.max_fee_per_gas * eth::U256(10) >= before.max_fee_per_gas * eth::U256(11));
        CHECK(after.max_priority_fee_per_gas * eth::U256(10) >= before.max_priority_fee_per_gas * eth::U256(11));
        CHECK(after.max_priority_fee_per_gas > before.max_priority_fee_per_gas);
    }
}
