#pragma once
// Ethereum transactions: EIP-1559 (type 2, with an empty access list) and
// legacy transactions with EIP-155 replay protection. Building the signing
// payload, signing, the raw signed bytes that eth_sendRawTransaction takes,
// the transaction hash, and strict decoding of raw signed transactions.

#include <cstdint>
#include <optional>

#include "core/eth/address.hpp"
#include "core/eth/bytes.hpp"
#include "core/eth/signer.hpp"
#include "core/eth/u256.hpp"

namespace abci::eth {

enum class TxType : std::uint8_t {
    legacy = 0,   // pre-EIP-2718 RLP list, EIP-155 chain id folded into v
    eip1559 = 2,  // 0x02 ‖ rlp([...]), y-parity in its own field
};

/// The unsigned fields of a transaction. Fee fields apply by type: `gas_price`
/// to legacy transactions only, the two EIP-1559 fee caps to type 2 only; the
/// fields of the other type must be left zero.
struct Transaction {
    TxType type = TxType::eip1559;
    std::uint64_t chain_id = 1;
    std::uint64_t nonce = 0;
    U256 max_priority_fee_per_gas;  // EIP-1559 only
    U256 max_fee_per_gas;           // EIP-1559 only
    U256 gas_price;                 // legacy only
    std::uint64_t gas_limit = 0;
    std::optional<Address> to;  // empty: contract creation
    U256 value;
    Bytes data;

    /// The bytes whose keccak256 is signed: 0x02 ‖ rlp([chainId, nonce, tip,
    /// feeCap, gas, to, value, data, []]) for EIP-1559; rlp([nonce, gasPrice,
    /// gas, to, value, data, chainId, 0, 0]) for legacy (EIP-155). Throws
    /// Error(invalid_input) when a fee field of the other type is set, or a
    /// legacy transaction has chain id 0.
    [[nodiscard]] Bytes signing_payload() const;
    /// keccak256(signing_payload()).
    [[nodiscard]] Hash32 signing_hash() const;

    friend bool operator==(const Transaction&, const Transaction&) = default;
};

/// A signed transaction: its fields, signature and sender, the raw bytes to
/// broadcast and the transaction hash (keccak256 of `raw`).
struct SignedTransaction {
    Transaction tx;
    Signature signature;  // recovery_id is the y-parity
    Address from;
    Bytes raw;
    Hash32 hash{};
};

/// Signs `tx` through `signer` (low-s, verified) and encodes it. Throws what
/// Transaction::signing_payload() and Signer::sign() throw. Safe to call from
/// many threads when the signer is.
[[nodiscard]] SignedTransaction sign_transaction(const Transaction& tx, const Signer& signer);

/// Decodes raw signed bytes (EIP-1559 or EIP-155 legacy) and recovers the
/// sender. Strict: the RLP must be canonical and complete, field counts and
/// sizes exact, `to` empty or 20 bytes, s low (EIP-2), the access list empty
/// (this module never produces another). Pre-EIP-155 legacy transactions
/// (v = 27/28) and other types are rejected. Throws Error(invalid_input).
[[nodiscard]] SignedTransaction decode_transaction(ByteView raw);

}  // namespace abci::eth
