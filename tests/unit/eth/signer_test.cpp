#include <catch2/catch.hpp>

#include <set>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/signer.hpp"
#include "core/eth/u256.hpp"
#include "support/error_kind.hpp"

using namespace abci;
using namespace abci::eth;

namespace {

constexpr const char* kAnvilKey0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

}  // namespace

TEST_CASE("private keys map to their published addresses", "[eth][signer]") {
    struct Pair {
        const char* key;
        const char* address;
    };
    // anvil's first two dev accounts, the key 1 (whose public key is the
    // generator), and the EIP-155 example's sender.
    const Pair pairs[] = {
        {kAnvilKey0, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"},
        {"0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
         "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
        {"0x0000000000000000000000000000000000000000000000000000000000000001",
         "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"},
        {"4646464646464646464646464646464646464646464646464646464646464646",
         "0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F"},
    };
    for (const auto& p : pairs) {
        INFO(p.key);
        CHECK(PrivateKey::from_hex(p.key).address().checksummed() == p.address);
    }
}

TEST_CASE("public key of the key 1 is the secp256k1 generator", "[eth][signer]") {
    const auto g = PrivateKey::from_hex("0x0000000000000000000000000000000000000000000000000000000000000001").public_key();
    CHECK(to_hex(g, false) ==
          "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
          "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8");
}

TEST_CASE("invalid private keys are rejected as invalid input", "[eth][signer]") {
    const std::string order = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";
    const std::string order_plus_1 = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364142";
    const std::string bad_keys[] = {std::string(64, '0'), order,          order_plus_1,
                                    std::string(64, 'f'), std::string(62, '1'), std::string(66, '1'),
                                    "zz" + std::string(62, '1')};
    for (const std::string& bad : bad_keys) {
        INFO(bad);
        CHECK(test::error_kind([&] { (void)PrivateKey::from_hex(bad); }) == ErrorKind::invalid_input);
    }
    // One below the order is the largest valid key.
    CHECK_NOTHROW(PrivateKey::from_hex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140"));
}

TEST_CASE("signatures are deterministic, low-s and recover to the signer", "[eth][signer]") {
    const PrivateKey key = PrivateKey::from_hex(kAnvilKey0);
    for (int i = 0; i < 50; ++i) {
        const Hash32 hash = keccak256("message " + std::to_string(i));
        const Signature sig = key.sign_hash(hash);
        CHECK(is_low_s(sig));
        CHECK(sig.recovery_id <= 1);
        CHECK(key.sign_hash(hash) == sig);  // RFC 6979
        CHECK(recover_address(hash, sig) == key.address());
        CHECK(Signature::parse(sig.to_hex()) == sig);
    }
}

TEST_CASE("EIP-191 personal_sign matches published values", "[eth][signer]") {
    // Values printed by `cast hash-message hello` and `cast wallet sign` with anvil's first key.
    CHECK(to_hex(eip191_hash(as_bytes("hello"))) ==
          "0x50b2c43fd39106bafbba0da34fc430e1f91e3c96ea2acee2bc34119f92b37750");
    const PrivateKey key = PrivateKey::from_hex(kAnvilKey0);
    const Signature sig = key.sign_message(as_bytes("hello world"));
    CHECK(sig.to_hex() ==
          "0xa461f509887bd19e312c0c58467ce8ff8e300d3c1a90b608a760c5b80318eaf15fe57c96f9175d6cd4daad4663763baa7e78836e0"
          "67d0163e9a2ccf2ff753f5b1b");
    CHECK(recover_message_signer(as_bytes("hello world"), sig) == key.address());
    CHECK(recover_message_signer(as_bytes("hello world!"), sig) != key.address());
}

TEST_CASE("signature parsing and recovery reject malformed input", "[eth][signer]") {
    const Hash32 hash = keccak256("x");
    CHECK(test::error_kind([] { (void)Signature::parse("0x1234"); }) == ErrorKind::invalid_input);
    Bytes rsv(65, 1);
    rsv[64] = 29;
    CHECK(test::error_kind([&] { (void)Signature::from_rsv(rsv); }) == ErrorKind::invalid_input);
    rsv[64] = 0;  // v = 0/1 is accepted as a recovery id
    CHECK(Signature::from_rsv(rsv).recovery_id == 0);

    Signature zero_r = PrivateKey::from_hex(kAnvilKey0).sign_hash(hash);
    zero_r.r.fill(0);
    CHECK(test::error_kind([&] { (void)recover_address(hash, zero_r); }) == ErrorKind::invalid_input);
    Signature big_s = PrivateKey::from_hex(kAnvilKey0).sign_hash(hash);
    big_s.s.fill(0xff);  // above the curve order
    CHECK(test::error_kind([&] { (void)recover_address(hash, big_s); }) == ErrorKind::invalid_input);
    CHECK_FALSE(is_low_s(big_s));
}

TEST_CASE("a moved-from private key is empty and refuses to sign", "[eth][signer]") {
    PrivateKey a = PrivateKey::generate();
    const Address addr = a.address();
    PrivateKey b = std::move(a);
    CHECK(b.address() == addr);
    CHECK(test::error_kind([&] { (void)a.sign_hash(Hash32{}); }) == ErrorKind::internal);  // NOLINT: use after move is the point
    CHECK(test::error_kind([&] { (void)a.secret_bytes(); }) == ErrorKind::internal);
    a = std::move(b);
    CHECK(a.address() == addr);
}

TEST_CASE("generated keys are distinct and valid", "[eth][signer]") {
    const PrivateKey a = PrivateKey::generate();
    const PrivateKey b = PrivateKey::generate();
    CHECK(a.address() != b.address());
    CHECK(PrivateKey::from_bytes(a.secret_bytes()).address() == a.address());
}

TEST_CASE("many threads sign and recover at once", "[eth][signer]") {
    const PrivateKey key = PrivateKey::from_hex(kAnvilKey0);
    constexpr int kThreads = 4;
    constexpr int kPerThread = 200;
    std::vector<int> failures(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                const Hash32 hash = keccak256(std::to_string(t) + "/" + std::to_string(i));
                if (recover_address(hash, key.sign_hash(hash)) != key.address()) ++failures[t];
            }
        });
    }
    for (auto& th : threads) th.join();
    for (int f : failures) CHECK(f == 0);
}

namespace {

// A backend's answers as a token gives them: the key's (r, s) with s in the
// upper half when `high_s` (SoftHSM2 does so for about half its signatures),
// signed by `signing` while claiming `claimed`'s address (a token holding
// another key than configured).
class TokenLikeBackend final : public Signer {
public:
    TokenLikeBackend(const PrivateKey& claimed, const PrivateKey& signing, bool high_s)
        : claimed_(claimed.address()), signing_(signing), high_s_(high_s) {}
    [[nodiscard]] const Address& address() const override { return claimed_; }

private:
    [[nodiscard]] RawSignature sign_digest(const Hash32& digest) const override {
        const Signature sig = signing_.sign_hash(digest);
        const U256 order = U256::parse("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
        return {sig.r, high_s_ ? (order - U256::from_be_bytes(sig.s)).to_be_bytes32() : sig.s};
    }

    Address claimed_;
    const PrivateKey& signing_;
    bool high_s_;
};

}  // namespace

TEST_CASE("Signer::sign brings a high s into the lower half and finds the recovery id", "[eth][signer]") {
    const PrivateKey key = PrivateKey::from_hex(kAnvilKey0);
    const TokenLikeBackend high(key, key, true);
    std::set<int> ids;
    for (int i = 0; i < 40; ++i) {
        const Hash32 digest = keccak256("digest " + std::to_string(i));
        const Signature sig = high.sign(digest);
        CHECK(is_low_s(sig));
        CHECK(recover_address(digest, sig) == key.address());
        CHECK(sig == key.sign(digest));  // the same signature the key makes itself
        ids.insert(sig.recovery_id);
    }
    CHECK(ids == std::set<int>{0, 1});  // both recovery ids occur and are found
}

TEST_CASE("Signer::sign refuses a signature of another key than the signer's address", "[eth][signer]") {
    const PrivateKey configured = PrivateKey::from_hex(kAnvilKey0);
    const PrivateKey other = PrivateKey::generate();
    const TokenLikeBackend wrong(configured, other, false);
    CHECK(test::error_kind([&] { (void)wrong.sign(keccak256("x")); }) == ErrorKind::unavailable);
}
