#pragma once
// Seeded random inputs for cross-checks against cast: the same seed gives the
// same cases on every run, so a failure can be replayed.

#include <array>
#include <cstdint>
#include <random>

#include "core/eth/address.hpp"
#include "core/eth/bytes.hpp"

namespace abci::test {

class Random {
public:
    explicit Random(std::uint64_t seed) : rng_(seed) {}

    /// Uniform in [0, bound); bound must be positive.
    std::uint64_t below(std::uint64_t bound) { return std::uniform_int_distribution<std::uint64_t>(0, bound - 1)(rng_); }
    /// `n` uniform bytes.
    eth::Bytes bytes(std::size_t n) {
        eth::Bytes out(n);
        for (auto& b : out) b = static_cast<std::uint8_t>(below(256));
        return out;
    }
    eth::Address address() {
        std::array<std::uint8_t, 20> a{};
        for (auto& b : a) b = static_cast<std::uint8_t>(below(256));
        return eth::Address(a);
    }

private:
    std::mt19937_64 rng_;
};

}  // namespace abci::test
