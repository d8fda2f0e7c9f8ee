#include "core/eth/signer.hpp"

#include <openssl/rand.h>
#include <secp256k1.h>
#include <secp256k1_recovery.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/wipe.hpp"

namespace abci::eth {
namespace {

// The process-wide context. Signing and recovery only read it, which
// libsecp256k1 allows from many threads at once; randomizing it (blinding
// against side channels) writes to it, so that happens once, inside the
// thread-safe initialisation of a function-local static.
class Secp256k1Context {
public:
    Secp256k1Context() : ctx_(secp256k1_context_create(SECP256K1_CONTEXT_NONE)) {
        if (ctx_ == nullptr) throw Error(ErrorKind::internal, "cannot create the secp256k1 context");
        std::array<unsigned char, 32> seed{};
        const WipeOnExit wipe_seed(seed);
        const bool seeded = RAND_bytes(seed.data(), static_cast<int>(seed.size())) == 1 &&
                            secp256k1_context_randomize(ctx_, seed.data()) == 1;
        if (!seeded) {
            secp256k1_context_destroy(ctx_);
            throw Error(ErrorKind::internal, "cannot randomize the secp256k1 context");
        }
    }
    ~Secp256k1Context() { secp256k1_context_destroy(ctx_); }
    Secp256k1Context(const Secp256k1Context&) = delete;
    Secp256k1Context& operator=(const Secp256k1Context&) = delete;

    [[nodiscard]] const secp256k1_context* get() const noexcept { return ctx_; }

private:
    secp256k1_context* ctx_;
};

const secp256k1_context* context() {
    static const Secp256k1Context instance;
    return instance.get();
}

// n/2 for secp256k1's order n, big-endian: the largest s that EIP-2 allows.
constexpr std::array<std::uint8_t, 32> kHalfOrder = {
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0};

std::array<std::uint8_t, 64> serialize_uncompressed(const secp256k1_pubkey& pubkey) {
    std::array<std::uint8_t, 65> full{};
    std::size_t len = full.size();
    if (secp256k1_ec_pubkey_serialize(context(), full.data(), &len, &pubkey, SECP256K1_EC_UNCOMPRESSED) != 1 ||
        len != full.size())
        throw Error(ErrorKind::internal, "cannot serialize a secp256k1 public key");
    std::array<std::uint8_t, 64> out{};
    std::copy(full.begin() + 1, full.end(), out.begin());
    return out;
}

std::array<std::uint8_t, 64> public_key_of(const std::array<std::uint8_t, 32>& secret) {
    secp256k1_pubkey pubkey;
    if (secp256k1_ec_pubkey_create(context(), &pubkey, secret.data()) != 1)
        throw Error(ErrorKind::internal, "cannot derive a secp256k1 public key");
    return serialize_uncompressed(pubkey);
}

}  // namespace

std::array<std::uint8_t, 65> Signature::to_rsv() const noexcept {
    std::array<std::uint8_t, 65> out{};
    std::copy(r.begin(), r.end(), out.begin());
    std::copy(s.begin(), s.end(), out.begin() + 32);
    out[64] = static_cast<std::uint8_t>(27 + recovery_id);
    return out;
}

std::string Signature::to_hex() const { return eth::to_hex(to_rsv()); }

Signature Signature::from_rsv(ByteView rsv) {
    if (rsv.size() != 65)
        throw Error(ErrorKind::invalid_input,
                    "signature: expected 65 bytes (r, s, v), got " + std::to_string(rsv.size()));
    const std::uint8_t v = rsv[64];
    if (v != 0 && v != 1 && v != 27 && v != 28)
        throw Error(ErrorKind::invalid_input, "signature: v must be 27 or 28 (or 0 or 1), got " + std::to_string(v));
    Signature sig;
    std::copy(rsv.begin(), rsv.begin() + 32, sig.r.begin());
    std::copy(rsv.begin() + 32, rsv.begin() + 64, sig.s.begin());
    sig.recovery_id = static_cast<std::uint8_t>(v >= 27 ? v - 27 : v);
    return sig;
}

Signature Signature::parse(std::string_view hex) { return from_rsv(eth::from_hex(hex, "signature")); }

bool is_low_s(const Signature& signature) noexcept {
    return !std::lexicographical_compare(kHalfOrder.begin(), kHalfOrder.end(), signature.s.begin(),
                                         signature.s.end());
}

PrivateKey PrivateKey::from_bytes(ByteView secret) {
    if (secret.size() != 32)
        throw Error(ErrorKind::invalid_input,
                    "private key: expected 32 bytes, got " + std::to_string(secret.size()));
    if (secp256k1_ec_seckey_verify(context(), secret.data()) != 1)
        throw Error(ErrorKind::invalid_input, "private key: not a valid secp256k1 key (zero or not below the curve order)");
    PrivateKey key;
    std::copy(secret.begin(), secret.end(), key.secret_.begin());
    key.address_ = Address::from_public_key(public_key_of(key.secret_));
    key.valid_ = true;
    return key;
}

PrivateKey PrivateKey::from_hex(std::string_view hex) {
    Bytes raw = eth::from_hex(hex, "private key");
    const WipeOnExit wipe_raw(raw);
    return from_bytes(raw);
}

PrivateKey PrivateKey::generate() {
    std::array<std::uint8_t, 32> secret{};
    const WipeOnExit wipe_secret(secret);
    // A random 32-byte string is a valid key except with probability ~2^-128;
    // retrying keeps the rule "only valid keys exist" without special cases.
    for (;;) {
        if (RAND_bytes(secret.data(), static_cast<int>(secret.size())) != 1)
            throw Error(ErrorKind::internal, "the system random number generator failed");
        if (secp256k1_ec_seckey_verify(context(), secret.data()) == 1) break;
    }
    return from_bytes(secret);
}

PrivateKey::PrivateKey(PrivateKey&& other) noexcept
    : secret_(other.secret_), address_(other.address_), valid_(other.valid_) {
    other.wipe();
}

PrivateKey& PrivateKey::operator=(PrivateKey&& other) noexcept {
    if (this != &other) {
        secret_ = other.secret_;
        address_ = other.address_;
        valid_ = other.valid_;
        other.wipe();
    }
    return *this;
}

PrivateKey::~PrivateKey() { wipe(); }

void PrivateKey::wipe() noexcept {
    secure_wipe(secret_.data(), secret_.size());
    address_ = Address{};
    valid_ = false;
}

void PrivateKey::require_key() const {
    if (!valid_) throw Error(ErrorKind::internal, "use of an empty (moved-from) private key");
}

const Address& PrivateKey::address() const {
    require_key();
    return address_;
}

std::array<std::uint8_t, 64> PrivateKey::public_key() const {
    require_key();
    return public_key_of(secret_);
}

const std::array<std::uint8_t, 32>& PrivateKey::secret_bytes() const {
    require_key();
    return secret_;
}

Signature PrivateKey::sign_hash(const Hash32& hash) const {
    require_key();
    secp256k1_ecdsa_recoverable_signature rsig;
    if (secp256k1_ecdsa_sign_recoverable(context(), &rsig, hash.data(), secret_.data(), nullptr, nullptr) != 1)
        throw Error(ErrorKind::internal, "secp256k1 signing failed");
    std::array<std::uint8_t, 64> compact{};
    int recid = 0;
    (void)secp256k1_ecdsa_recoverable_signature_serialize_compact(context(), compact.data(), &recid, &rsig);
    Signature sig;
    std::copy(compact.begin(), compact.begin() + 32, sig.r.begin());
    std::copy(compact.begin() + 32, compact.end(), sig.s.begin());
    sig.recovery_id = static_cast<std::uint8_t>(recid);
    // libsecp256k1 documents that it only emits low-s signatures; a high s here
    // would make every transaction invalid (EIP-2), so it is checked, not assumed.
    if (!is_low_s(sig)) throw Error(ErrorKind::internal, "secp256k1 produced a high-s signature");
    return sig;
}

RawSignature PrivateKey::sign_digest(const Hash32& digest) const {
    const Signature sig = sign_hash(digest);
    return {sig.r, sig.s};
}

Signature Signer::sign(const Hash32& digest) const {
    const RawSignature raw = sign_digest(digest);
    std::array<std::uint8_t, 64> compact{};
    std::copy(raw.r.begin(), raw.r.end(), compact.begin());
    std::copy(raw.s.begin(), raw.s.end(), compact.begin() + 32);
    // n - s for a high s: the same signature in the only form EIP-2 accepts.
    secp256k1_ecdsa_signature parsed;
    if (secp256k1_ecdsa_signature_parse_compact(context(), &parsed, compact.data()) != 1)
        throw Error(ErrorKind::unavailable, "the signer of " + address().checksummed() +
                                                " returned a signature whose r or s is not below the curve order");
    (void)secp256k1_ecdsa_signature_normalize(context(), &parsed, &parsed);
    (void)secp256k1_ecdsa_signature_serialize_compact(context(), compact.data(), &parsed);
    Signature sig;
    std::copy(compact.begin(), compact.begin() + 32, sig.r.begin());
    std::copy(compact.begin() + 32, compact.end(), sig.s.begin());
    // A token gives no recovery id: the one that recovers our address is it,
    // and finding it is the verification (trying only 0 is a classic bug).
    for (const std::uint8_t id : {std::uint8_t{0}, std::uint8_t{1}}) {
        sig.recovery_id = id;
        try {
            if (recover_address(digest, sig) == address()) return sig;
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::invalid_input) throw;
        }
    }
    throw Error(ErrorKind::unavailable, "the signer of " + address().checksummed() +
                                            " returned a signature that does not recover its address (another key "
                                            "signed, or the answer is corrupt): nothing was signed with it");
}

Signature Signer::sign_message(ByteView message) const { return sign(eip191_hash(message)); }

Hash32 eip191_hash(ByteView message) {
    const std::string prefix = "\x19" "Ethereum Signed Message:\n" + std::to_string(message.size());
    Keccak256 h;
    h.update(as_bytes(prefix));
    h.update(message);
    return h.finish();
}

Address recover_address(const Hash32& hash, const Signature& signature) {
    if (signature.recovery_id > 1)
        throw Error(ErrorKind::invalid_input, "signature: recovery id must be 0 or 1");
    std::array<std::uint8_t, 64> compact{};
    std::copy(signature.r.begin(), signature.r.end(), compact.begin());
    std::copy(signature.s.begin(), signature.s.end(), compact.begin() + 32);
    const bool zero = std::all_of(signature.r.begin(), signature.r.end(), [](auto b) { return b == 0; }) ||
                      std::all_of(signature.s.begin(), signature.s.end(), [](auto b) { return b == 0; });
    secp256k1_ecdsa_recoverable_signature rsig;
    if (zero || secp256k1_ecdsa_recoverable_signature_parse_compact(context(), &rsig, compact.data(),
                                                                    signature.recovery_id) != 1)
        throw Error(ErrorKind::invalid_input, "signature: r and s must be non-zero and below the curve order");
    secp256k1_pubkey pubkey;
    if (secp256k1_ecdsa_recover(context(), &pubkey, &rsig, hash.data()) != 1)
        throw Error(ErrorKind::invalid_input, "signature: no public key can be recovered from it");
    return Address::from_public_key(serialize_uncompressed(pubkey));
}

Address address_of_public_point(ByteView sec1) {
    secp256k1_pubkey pubkey;
    if (secp256k1_ec_pubkey_parse(context(), &pubkey, sec1.data(), sec1.size()) != 1)
        throw Error(ErrorKind::invalid_input, "public key: not a point on secp256k1");
    return Address::from_public_key(serialize_uncompressed(pubkey));
}

Address recover_message_signer(ByteView message, const Signature& signature) {
    return recover_address(eip191_hash(message), signature);
}

}  // namespace abci::eth
