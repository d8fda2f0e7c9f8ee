#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/eth/u256.hpp"

using abci::Error;
using abci::ErrorKind;
using abci::eth::U256;

namespace {

const std::string max_dec = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
const std::string max_hex = "0x" + std::string(64, 'f');

ErrorKind parse_error_kind(std::string_view text) {
    try {
        (void)U256::parse(text);
    } catch (const Error& e) {
        return e.kind();
    }
    FAIL("U256::parse accepted \"" << text << "\"");
    return ErrorKind::internal;
}

}  // namespace

TEST_CASE("U256 parses and prints decimal and hex", "[eth][u256]") {
    CHECK(U256::parse("0").to_dec() == "0");
    CHECK(U256::parse("0").to_hex() == "0x0");
    CHECK(U256::parse("0x0").is_zero());
    CHECK(U256::parse("1000").to_hex() == "0x3e8");
    CHECK(U256::parse("0x3E8").to_dec() == "1000");
    CHECK(U256::parse("0x0f").to_hex() == "0xf");
    CHECK(U256::parse(max_dec).to_hex() == max_hex);
    CHECK(U256::parse(max_hex).to_dec() == max_dec);
    CHECK(U256::parse("18446744073709551616").to_hex() == "0x10000000000000000");
    CHECK(U256::parse("10000000000000000000").to_dec() == "10000000000000000000");  // 10^19, the chunk size
    CHECK(U256::parse("100000000000000000000000000000000000000").to_dec() == "100000000000000000000000000000000000000");
}

TEST_CASE("U256 rejects empty, bad digits and overflow", "[eth][u256]") {
    for (const char* bad : {"", "0x", "12a", "0xg1", "-1", " 1", "1.5", "0x1 "})
        CHECK(parse_error_kind(bad) == ErrorKind::invalid_input);
    CHECK(parse_error_kind("115792089237316195423570985008687907853269984665640564039457584007913129639936") ==
          ErrorKind::invalid_input);
    CHECK(parse_error_kind("0x1" + std::string(64, '0')) == ErrorKind::invalid_input);
    CHECK(U256::parse("0x" + std::string(70, '0') + "1") == U256{1});  // leading zeros are not overflow
}

TEST_CASE("U256 big-endian bytes", "[eth][u256]") {
    U256 v = U256::parse("0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20");
    auto be = v.to_be_bytes32();
    for (std::size_t i = 0; i < 32; ++i) CHECK(be[i] == i + 1);
    CHECK(U256::from_be_bytes(be) == v);
    CHECK(U256{0}.to_be_bytes_trimmed().empty());
    CHECK(U256{0x0100}.to_be_bytes_trimmed() == abci::eth::Bytes{0x01, 0x00});
    CHECK(U256::from_be_bytes(abci::eth::Bytes{0, 0, 5}) == U256{5});
    CHECK_THROWS_AS(U256::from_be_bytes(abci::eth::Bytes(33, 0)), Error);
    CHECK(U256{42}.to_u64() == 42);
    CHECK_THROWS_AS(U256::parse("18446744073709551616").to_u64(), Error);
}

TEST_CASE("U256 arithmetic wraps like the EVM", "[eth][u256]") {
    const U256 max = U256::parse(max_dec);
    CHECK(max + U256{1} == U256{0});
    CHECK(U256{0} - U256{1} == max);
    CHECK(max * max == U256{1});  // (-1)*(-1) mod 2^256
    CHECK(U256::parse("0xffffffffffffffff") + U256{1} == U256::parse("0x10000000000000000"));
    CHECK(U256::parse("0x10000000000000000") - U256{1} == U256::parse("0xffffffffffffffff"));
    CHECK(U256{1} << 255 == U256::parse("0x8" + std::string(63, '0')));
    CHECK((U256{1} << 256) == U256{0});
    CHECK((max >> 255) == U256{1});
    CHECK((max >> 64) == U256::parse("0x" + std::string(48, 'f')));
    CHECK(U256::parse("1000000000000000000000") / U256::parse("1000000000") == U256::parse("1000000000000"));
    CHECK(max / U256{1} == max);
    CHECK(max % (max - U256{1}) == U256{1});
    CHECK(max / (U256{1} << 255) == U256{1});  // a divisor with the top bit set
    CHECK(U256{7} % U256{3} == U256{1});
    CHECK(U256{3} / U256{7} == U256{0});
    CHECK(U256{1}.bit(0));
    CHECK_FALSE(U256{1}.bit(256));
    CHECK(U256{1} < U256::parse("0x10000000000000000"));
    CHECK(max > U256{0});
    try {
        (void)(U256{1} / U256{0});
        FAIL("division by zero did not throw");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::invalid_input);
    }
}

TEST_CASE("U256 arithmetic agrees with 128-bit arithmetic and division identities", "[eth][u256]") {
    __extension__ typedef unsigned __int128 u128;
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    auto next = [&state] {  // splitmix64: deterministic, no library dependence
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    };
    auto from128 = [](u128 v) {
        return (U256{static_cast<std::uint64_t>(v >> 64)} << 64) + U256{static_cast<std::uint64_t>(v)};
    };
    for (int i = 0; i < 200; ++i) {
        std::uint64_t a = next(), b = next() >> (next() % 64);
        CHECK(U256{a} * U256{b} == from128(static_cast<u128>(a) * b));
        CHECK(U256{a} + U256{b} == from128(static_cast<u128>(a) + b));
        if (b != 0) {
            CHECK(U256{a} / U256{b} == U256{a / b});
            CHECK(U256{a} % U256{b} == U256{a % b});
        }
        U256 big = (U256{next()} << 192) + (U256{next()} << 100) + U256{next()};
        U256 div = (U256{next()} << static_cast<unsigned>(next() % 200)) + U256{1};
        U256 q = big / div, r = big % div;
        CHECK(r < div);
        CHECK(q * div + r == big);
        CHECK(U256::parse(big.to_dec()) == big);
        CHECK(U256::parse(big.to_hex()) == big);
    }
}
