// Cross-checks of the eth encodings against the real `cast` (foundry), run as a
// separate process on inputs drawn from a fixed-seed generator, so a failure
// reproduces exactly. One cast call per input: each takes ~10-50 ms here.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>

#include "core/eth/address.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/rlp.hpp"
#include "core/eth/u256.hpp"
#include "support/tools.hpp"

using namespace abci::eth;
using abci::test::cast;

namespace {

constexpr int samples = 30;

class Random {
public:
    explicit Random(std::uint64_t seed) : rng_(seed) {}
    std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
    Bytes bytes(std::size_t n) {
        Bytes out(n);
        for (auto& b : out) b = static_cast<std::uint8_t>(below(256));
        // Bias towards the boundary bytes RLP and ABI treat specially.
        if (n > 0 && below(4) == 0) out[0] = static_cast<std::uint8_t>(below(2) ? 0x00 : 0x7f + below(3));
        return out;
    }
    /// A U256 of a random bit length, so small and large values both occur.
    U256 u256() {
        Bytes raw = bytes(below(33));
        return U256::from_be_bytes(raw);
    }

private:
    std::mt19937_64 rng_;
};

/// A random RLP structure in cast's JSON form (hex strings and arrays) and its encoding by us.
std::pair<nlohmann::json, Bytes> random_rlp(Random& r, int depth) {
    if (depth < 3 && r.below(3) == 0) {
        nlohmann::json list = nlohmann::json::array();
        std::vector<Bytes> encoded;
        for (std::size_t i = r.below(5); i > 0; --i) {
            auto [json, enc] = random_rlp(r, depth + 1);
            list.push_back(json);
            encoded.push_back(enc);
        }
        return {list, rlp::encode_list(encoded)};
    }
    // Lengths around the 1-byte, 55/56 and 255/256 header boundaries.
    static constexpr std::size_t lengths[] = {0, 1, 1, 2, 20, 55, 56, 57, 255, 256, 300};
    Bytes data = r.bytes(lengths[r.below(std::size(lengths))]);
    return {to_hex(data), rlp::encode_bytes(data)};
}

}  // namespace

TEST_CASE("cast cross-check: keccak256", "[eth][cast][keccak]") {
    Random r(1);
    for (int i = 0; i < samples; ++i) {
        Bytes data = r.bytes(1 + r.below(300));
        INFO(to_hex(data));
        CHECK(to_hex(keccak256(data)) == cast({"keccak", to_hex(data)}));
    }
}

TEST_CASE("cast cross-check: U256 decimal and hex", "[eth][cast][u256]") {
    Random r(2);
    for (int i = 0; i < samples; ++i) {
        U256 v = r.u256();
        INFO(v.to_hex());
        CHECK(v.to_dec() == cast({"to-dec", v.to_hex()}));
        CHECK(v.to_hex() == cast({"to-hex", v.to_dec()}));
    }
}

TEST_CASE("cast cross-check: EIP-55 checksums", "[eth][cast][address]") {
    Random r(3);
    for (int i = 0; i < samples; ++i) {
        Bytes raw = r.bytes(20);
        std::array<std::uint8_t, 20> a{};
        std::copy(raw.begin(), raw.end(), a.begin());
        Address address(a);
        INFO(address.lower());
        std::string expected = cast({"to-check-sum-address", address.lower()});
        CHECK(address.checksummed() == expected);
        CHECK(Address::parse(expected) == address);
    }
}

TEST_CASE("cast cross-check: RLP encode and decode", "[eth][cast][rlp]") {
    Random r(4);
    for (int i = 0; i < samples; ++i) {
        auto [json, encoded] = random_rlp(r, 0);
        INFO(json.dump());
        CHECK(to_hex(encoded) == cast({"to-rlp", json.dump()}));
        CHECK(nlohmann::json::parse(cast({"from-rlp", to_hex(encoded)})) == json);
    }
}
