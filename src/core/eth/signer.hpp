#pragma once
// secp256k1 keys and ECDSA signatures as Ethereum uses them: recoverable
// signatures over 32-byte hashes (always low-s), address recovery, and
// EIP-191 `personal_sign` messages.
//
// Every function here is safe to call from many threads at once: they share
// one libsecp256k1 context that is created and randomized once per process
// and only read afterwards.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/eth/address.hpp"
#include "core/eth/bytes.hpp"

namespace abci::eth {

/// A recoverable ECDSA signature: r, s (big-endian, s in the lower half of the
/// curve order when produced by this module) and the recovery id (0 or 1).
struct Signature {
    std::array<std::uint8_t, 32> r{};
    std::array<std::uint8_t, 32> s{};
    std::uint8_t recovery_id = 0;

    /// The 65-byte r‖s‖v form of `personal_sign` and `cast wallet sign`, v = 27 + recovery id.
    [[nodiscard]] std::array<std::uint8_t, 65> to_rsv() const noexcept;
    /// Hex of to_rsv(), "0x"-prefixed.
    [[nodiscard]] std::string to_hex() const;
    /// Parses the 65-byte r‖s‖v form; v may be 27/28 or 0/1. Throws
    /// Error(invalid_input) for another length or v. r and s are checked only
    /// when the signature is used (recover_address).
    [[nodiscard]] static Signature from_rsv(ByteView rsv);
    /// from_rsv() of a hex string.
    [[nodiscard]] static Signature parse(std::string_view hex);

    friend bool operator==(const Signature&, const Signature&) noexcept = default;
};

/// What a signing backend returns for a digest: r and s as its key produced
/// them, s possibly in the upper half of the curve order and no recovery id
/// (a PKCS#11 token gives neither guarantee).
struct RawSignature {
    std::array<std::uint8_t, 32> r{};
    std::array<std::uint8_t, 32> s{};
};

struct Transaction;
struct SignedTransaction;

/// What the sender signs its transactions with (DESIGN.md §10): every digest
/// Signer below, and a remote signer that signs whole transactions
/// (eth_signTransaction) and can sign nothing else. Whatever it returns was
/// checked: `tx` exactly, low-s, its sender recovered as address().
class TransactionSigner {
public:
    virtual ~TransactionSigner() = default;

    /// The account whose key signs.
    [[nodiscard]] virtual const Address& address() const = 0;
    /// `tx` signed by address()'s key. Throws Error when that cannot be had
    /// (the backend is gone, or answered with anything else); nothing was
    /// signed for the caller then.
    [[nodiscard]] virtual SignedTransaction sign_transaction(const Transaction& tx) const = 0;
    /// Why the signer cannot sign now (/readyz says it), or nothing when it
    /// can. Never blocks on the backend: a token or a remote signer is asked
    /// by a check of its own every few seconds, and this is what that check
    /// last found. A key in this process can always sign.
    [[nodiscard]] virtual std::optional<std::string> unavailable() const { return std::nullopt; }

protected:
    TransactionSigner() = default;
    TransactionSigner(const TransactionSigner&) = default;
    TransactionSigner& operator=(const TransactionSigner&) = default;
};

/// The one interface every key that signs digests sits behind: a key in this
/// process, a token's. A backend only produces (r, s); sign() makes it a
/// transaction signature and verifies it, so a backend that answers with
/// anything else cannot get a signature broadcast.
class Signer : public TransactionSigner {
public:
    /// The backend's signature over `digest` with s brought into the lower half
    /// (EIP-2) and the recovery id that recovers address(). Throws
    /// Error(unavailable) when neither recovery id recovers address() (the
    /// backend signed with another key, or returned garbage), and what the
    /// backend throws. Safe to call from many threads when the backend is.
    [[nodiscard]] Signature sign(const Hash32& digest) const;
    /// EIP-191 `personal_sign`: sign(eip191_hash(message)).
    [[nodiscard]] Signature sign_message(ByteView message) const;
    /// sign() of the transaction's signing hash (defined with the transaction encoding, core/eth/tx.cpp).
    [[nodiscard]] SignedTransaction sign_transaction(const Transaction& tx) const final;

protected:
    Signer() = default;
    Signer(const Signer&) = default;
    Signer& operator=(const Signer&) = default;

    [[nodiscard]] virtual RawSignature sign_digest(const Hash32& digest) const = 0;
};

/// A secp256k1 private key. It cannot be copied (so no stray copies of the
/// secret exist); moving it wipes the source, and destruction wipes the
/// secret. A moved-from key is empty: using it throws Error(internal).
class PrivateKey final : public Signer {
public:
    /// Takes a 32-byte big-endian secret. Throws Error(invalid_input) when it is
    /// not exactly 32 bytes or not a valid key (zero or ≥ the curve order).
    [[nodiscard]] static PrivateKey from_bytes(ByteView secret);
    /// from_bytes() of 64 hex digits, with or without "0x".
    [[nodiscard]] static PrivateKey from_hex(std::string_view hex);
    /// A fresh key from OpenSSL's CSPRNG. Throws Error(internal) if the RNG fails.
    [[nodiscard]] static PrivateKey generate();

    PrivateKey(PrivateKey&& other) noexcept;
    PrivateKey& operator=(PrivateKey&& other) noexcept;
    PrivateKey(const PrivateKey&) = delete;
    PrivateKey& operator=(const PrivateKey&) = delete;
    ~PrivateKey() override;

    /// The key's account address (computed once at construction).
    [[nodiscard]] const Address& address() const override;
    /// Uncompressed public key without the 0x04 prefix: x‖y, 64 bytes.
    [[nodiscard]] std::array<std::uint8_t, 64> public_key() const;
    /// The raw 32-byte secret, for encrypting it into a keystore. Never log it;
    /// wipe any copy made of it.
    [[nodiscard]] const std::array<std::uint8_t, 32>& secret_bytes() const;

    /// Signs a 32-byte hash with RFC 6979 deterministic nonces; s is always in
    /// the lower half of the curve order (EIP-2). Unverified: what signs for
    /// a transaction is Signer::sign().
    [[nodiscard]] Signature sign_hash(const Hash32& hash) const;

private:
    PrivateKey() = default;
    [[nodiscard]] RawSignature sign_digest(const Hash32& digest) const override;
    void require_key() const;
    void wipe() noexcept;

    std::array<std::uint8_t, 32> secret_{};
    Address address_;
    bool valid_ = false;
};

/// keccak256("\x19Ethereum Signed Message:\n" + decimal length + message): the
/// hash that `personal_sign` / `cast wallet sign` signs.
[[nodiscard]] Hash32 eip191_hash(ByteView message);

/// The address whose key produced `signature` over `hash`. Throws
/// Error(invalid_input) when r or s is zero or not below the curve order, or
/// when no public key can be recovered.
[[nodiscard]] Address recover_address(const Hash32& hash, const Signature& signature);

/// recover_address() of eip191_hash(message).
[[nodiscard]] Address recover_message_signer(ByteView message, const Signature& signature);

/// The address of a public key in SEC 1 form (65 bytes 0x04‖x‖y, or 33
/// compressed), as a token holds it. Throws Error(invalid_input) when the
/// bytes are no point on secp256k1 (a key of another curve).
[[nodiscard]] Address address_of_public_point(ByteView sec1);

/// True when s is in the lower half of the curve order (EIP-2's rule for transactions).
[[nodiscard]] bool is_low_s(const Signature& signature) noexcept;

}  // namespace abci::eth
