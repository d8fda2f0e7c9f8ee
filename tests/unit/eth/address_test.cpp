#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/eth/address.hpp"

using abci::Error;
using abci::eth::Address;

TEST_CASE("Address: EIP-55 test vectors", "[eth][address]") {
    // The vectors listed in EIP-55 itself: all caps, all lower, and mixed case.
    for (const char* vector : {
             "0x52908400098527886E0F7030069857D2E4169EE7",
             "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
             "0xde709f2102306220921060314715629080e2fb77",
             "0x27b1fdb04752bbc536007a920d24acb045561c26",
             "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
             "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
             "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
             "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
         }) {
        INFO(vector);
        Address a = Address::parse(vector);
        CHECK(a.checksummed() == vector);
        std::string lower(vector);
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        CHECK(a.lower() == lower);
        CHECK(Address::parse(lower) == a);
    }
}

TEST_CASE("Address: parse rules", "[eth][address]") {
    // All-upper digits are accepted as they are even when that is not the checksum.
    Address a = Address::parse("0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED");
    CHECK(a.checksummed() == "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");
    CHECK(Address::parse("0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed") == a);
    for (const char* bad : {
             "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD",  // one letter's case flipped
             "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",    // no 0x
             "0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea",    // 19 bytes
             "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00",
             "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg",
             "",
         }) {
        INFO(bad);
        try {
            (void)Address::parse(bad);
            FAIL("accepted");
        } catch (const Error& e) {
            CHECK(e.kind() == abci::ErrorKind::invalid_input);
        }
    }
    CHECK(Address{}.is_zero());
    CHECK_FALSE(a.is_zero());
}

TEST_CASE("Address: from the public key of private key 1", "[eth][address]") {
    // secp256k1 generator point G = public key of private key 1; its address is well known.
    auto key = abci::eth::from_hex(
        "79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798"
        "483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8");
    CHECK(Address::from_public_key(key).checksummed() == "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf");
    key.pop_back();
    CHECK_THROWS_AS(Address::from_public_key(key), Error);
}
