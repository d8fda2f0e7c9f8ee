// Cross-checks of keys, signatures, transactions and keystores against the
// real `cast` (foundry) on fixed-seed random inputs.

#include <catch2/catch.hpp>

#include <random>

#include "core/error.hpp"
#include "core/keystore/keystore.hpp"
#include "core/eth/tx.hpp"
#include "support/cli_runner.hpp"
#include "support/error_kind.hpp"
#include "support/random.hpp"
#include "support/tools.hpp"

using namespace abci;
using namespace abci::eth;

namespace {

// As in cast_encoding_test.cpp: a third of the cases in the sanitizer build.
const int kCases = test::sanitized_build() ? 8 : 24;
constexpr keystore::ScryptParams kLightForCast{4096, 8, 1};

class KeyRandom : public test::Random {
public:
    using test::Random::Random;

    /// A random U256 below 2^bits.
    U256 uint(unsigned bits) {
        const Bytes b = bytes(32);
        return U256::from_be_bytes(b) >> (256 - bits);
    }
    PrivateKey key() {
        for (;;) {
            Bytes secret = bytes(32);
            try {
                return PrivateKey::from_bytes(secret);
            } catch (const Error&) {
                // Out of range (probability ~2^-128): draw again.
            }
        }
    }
    /// Printable text that cast takes as a plain (not 0x-hex, not flag) message.
    std::string text(std::size_t n) {
        static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,!?";
        std::string out = "m";
        for (std::size_t i = 0; i < n; ++i) out += alphabet[below(sizeof(alphabet) - 1)];
        return out;
    }
};

std::string key_hex(const PrivateKey& key) { return to_hex(key.secret_bytes()); }


}  // namespace

TEST_CASE("cast derives the same addresses and personal_sign signatures", "[eth][signer][cast]") {
    KeyRandom rnd(0x5167'0001);
    for (int i = 0; i < kCases; ++i) {
        const PrivateKey key = rnd.key();
        // Half the messages are binary (cast reads 0x-prefixed messages as hex bytes).
        const bool binary = i % 2 == 0;
        const Bytes bin = rnd.bytes(rnd.below(100));
        const std::string text = rnd.text(rnd.below(100));
        const std::string cast_message = binary ? to_hex(bin) : text;
        const ByteView message = binary ? ByteView(bin) : as_bytes(text);
        INFO("case " << i << " message " << cast_message);

        CHECK(test::cast({"wallet", "address", "--private-key", key_hex(key)}) == key.address().checksummed());

        const Signature ours = key.sign_message(message);
        const std::string theirs = test::cast({"wallet", "sign", "--private-key", key_hex(key), cast_message});
        CHECK(theirs == ours.to_hex());
        CHECK(recover_message_signer(message, Signature::parse(theirs)) == key.address());
        // cast verify exits non-zero unless the signature recovers to the address.
        (void)test::cast({"wallet", "verify", "--address", key.address().checksummed(), cast_message, ours.to_hex()});
    }
}

TEST_CASE("cast rejects our signature for another address", "[eth][signer][cast]") {
    KeyRandom rnd(0x5167'0002);
    const PrivateKey key = rnd.key();
    const PrivateKey other = rnd.key();
    const auto r = os::run_command({test::tool("cast"), "wallet", "verify", "--address",
                                    other.address().checksummed(), "hello", key.sign_message(as_bytes("hello")).to_hex()});
    CHECK(r.exit_code != 0);
}

TEST_CASE("cast mktx builds the same raw EIP-1559 and legacy transactions", "[eth][tx][cast]") {
    KeyRandom rnd(0x5167'0003);
    for (int i = 0; i < kCases; ++i) {
        const PrivateKey key = rnd.key();
        Transaction tx;
        tx.type = i % 2 == 0 ? TxType::eip1559 : TxType::legacy;
        tx.chain_id = 1 + rnd.below(std::uint64_t{1} << 40);
        tx.nonce = i < 2 ? 0 : rnd.below(std::uint64_t{1} << (rnd.below(63) + 1));
        tx.gas_limit = 21000 + rnd.below(30'000'000);
        const U256 fee = rnd.uint(static_cast<unsigned>(1 + rnd.below(100)));
        if (tx.type == TxType::eip1559) {
            tx.max_fee_per_gas = fee;
            tx.max_priority_fee_per_gas = fee >> static_cast<unsigned>(rnd.below(8));
        } else {
            tx.gas_price = fee;
        }
        tx.value = i % 3 == 0 ? U256(0) : rnd.uint(static_cast<unsigned>(1 + rnd.below(120)));
        tx.data = rnd.bytes(i % 4 == 0 ? 0 : rnd.below(300));
        if (i % 5 != 4) tx.to = Address(from_hex_fixed<20>(to_hex(rnd.bytes(20))));

        std::vector<std::string> args{"mktx",    "--private-key", key_hex(key),         "--chain",
                                      std::to_string(tx.chain_id), "--nonce", std::to_string(tx.nonce),
                                      "--gas-limit", std::to_string(tx.gas_limit), "--value", tx.value.to_dec()};
        if (tx.type == TxType::eip1559) {
            args.insert(args.end(), {"--gas-price", tx.max_fee_per_gas.to_dec(), "--priority-gas-price",
                                     tx.max_priority_fee_per_gas.to_dec()});
        } else {
            args.insert(args.end(), {"--legacy", "--gas-price", tx.gas_price.to_dec()});
        }
        if (tx.to) {
            args.push_back(tx.to->checksummed());
            if (!tx.data.empty()) args.push_back(to_hex(tx.data));
        } else {
            args.insert(args.end(), {"--create", to_hex(tx.data)});
        }
        INFO("case " << i);
        const SignedTransaction ours = sign_transaction(tx, key);
        CHECK(test::cast(args) == to_hex(ours.raw));
        CHECK(decode_transaction(ours.raw).tx == tx);
    }
}

TEST_CASE("keystores written by cast decrypt with our reader", "[eth][keystore][cast]") {
    const test::TempDir dir;
    KeyRandom rnd(0x5167'0004);
    for (int i = 0; i < 3; ++i) {
        const PrivateKey key = rnd.key();
        const std::string name = "imported" + std::to_string(i);
        const std::string password = rnd.text(12);
        (void)test::cast({"wallet", "import", name, "--keystore-dir", dir.path().string(), "--private-key", key_hex(key),
                          "--unsafe-password", password});
        const PrivateKey read = keystore::read_file(dir.path() / name, password);
        CHECK(read.secret_bytes() == key.secret_bytes());
        CHECK(test::error_kind([&] { (void)keystore::read_file(dir.path() / name, password + "x"); }) ==
              ErrorKind::unauthenticated);
    }
    // A key cast generated itself: compare with the address cast reports for the file.
    const test::TempDir fresh;
    (void)test::cast({"wallet", "new", fresh.path().string(), "--unsafe-password", "fresh pw"});
    const auto entries = keystore::list(fresh.path());
    REQUIRE(entries.size() == 1);
    CHECK_FALSE(entries[0].address.has_value());  // cast writes no address field
    CHECK(keystore::read_file(entries[0].path, "fresh pw").address().checksummed() ==
          test::cast({"wallet", "address", "--keystore", entries[0].path.string(), "--password", "fresh pw"}));
}

TEST_CASE("keystores we write decrypt with cast", "[eth][keystore][cast]") {
    const test::TempDir dir;
    KeyRandom rnd(0x5167'0005);
    for (int i = 0; i < 4; ++i) {
        const PrivateKey key = rnd.key();
        const std::string password = rnd.text(10);
        // One file with geth's standard (slow) parameters, the rest cheap.
        const auto path = i == 0 ? keystore::write_file(dir.path(), key, password)
                                 : keystore::write_file(dir.path(), key, password, kLightForCast);
        INFO(path);
        CHECK(test::cast({"wallet", "decrypt-keystore", path.filename().string(), "--keystore-dir", dir.path().string(),
                          "--unsafe-password", password}) ==
              path.filename().string() + "'s private key is: " + key_hex(key));
        if (i == 1)
            CHECK(test::cast({"wallet", "address", "--keystore", path.string(), "--password", password}) ==
                  key.address().checksummed());
    }
}
