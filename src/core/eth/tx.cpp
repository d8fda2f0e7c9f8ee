#include "core/eth/tx.hpp"

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/rlp.hpp"

namespace abci::eth {
namespace {

constexpr std::uint8_t kEip1559Prefix = 0x02;
constexpr std::size_t kEip1559Fields = 12;  // 9 payload fields + y-parity, r, s
constexpr std::size_t kLegacyFields = 9;    // 6 payload fields + v, r, s
constexpr std::uint8_t kEmptyList = 0xc0;

[[noreturn]] void bad_tx(const std::string& what) { throw Error(ErrorKind::invalid_input, "transaction: " + what); }

// The fields both the signing payload and the signed encoding start with.
rlp::ListBuilder payload_fields(const Transaction& tx) {
    rlp::ListBuilder list;
    const Bytes to = tx.to ? Bytes(tx.to->bytes().begin(), tx.to->bytes().end()) : Bytes{};
    if (tx.type == TxType::eip1559) {
        if (!tx.gas_price.is_zero()) bad_tx("gas_price is a legacy field; EIP-1559 uses the two fee caps");
        list.add_uint(tx.chain_id)
            .add_uint(tx.nonce)
            .add_uint(tx.max_priority_fee_per_gas)
            .add_uint(tx.max_fee_per_gas)
            .add_uint(tx.gas_limit)
            .add_bytes(to)
            .add_uint(tx.value)
            .add_bytes(tx.data)
            .add_encoded(Bytes{kEmptyList});  // access list
    } else {
        if (!tx.max_priority_fee_per_gas.is_zero() || !tx.max_fee_per_gas.is_zero())
            bad_tx("the EIP-1559 fee caps do not apply to a legacy transaction; set gas_price");
        if (tx.chain_id == 0) bad_tx("a legacy transaction needs a chain id for EIP-155");
        list.add_uint(tx.nonce).add_uint(tx.gas_price).add_uint(tx.gas_limit).add_bytes(to).add_uint(tx.value).add_bytes(
            tx.data);
    }
    return list;
}

// An EIP-2718 typed envelope: the type byte followed by the RLP list.
Bytes typed(std::uint8_t type, const Bytes& rlp_list) {
    Bytes out;
    out.reserve(rlp_list.size() + 1);
    out.push_back(type);
    out.insert(out.end(), rlp_list.begin(), rlp_list.end());
    return out;
}

// EIP-155: v = chainId · 2 + 35 + recovery id.
U256 eip155_v(std::uint64_t chain_id, std::uint8_t recovery_id) {
    return U256(chain_id) * U256(2) + U256(35u + recovery_id);
}

Bytes encode_signed(const Transaction& tx, const Signature& sig) {
    rlp::ListBuilder list = payload_fields(tx);
    list.add_uint(tx.type == TxType::eip1559 ? U256(sig.recovery_id) : eip155_v(tx.chain_id, sig.recovery_id))
        .add_uint(U256::from_be_bytes(sig.r))
        .add_uint(U256::from_be_bytes(sig.s));
    return tx.type == TxType::eip1559 ? typed(kEip1559Prefix, list.build()) : list.build();
}

const Bytes& string_field(const rlp::Item& item, const char* name) {
    if (item.is_list) bad_tx(std::string(name) + " must be a byte string, not a list");
    return item.bytes;
}

std::uint64_t u64_field(const rlp::Item& item, const char* name) {
    const U256 v = item.as_uint();
    if (!v.fits_u64()) bad_tx(std::string(name) + " does not fit in 64 bits");
    return v.to_u64();
}

std::optional<Address> to_field(const rlp::Item& item) {
    const Bytes& b = string_field(item, "to");
    if (b.empty()) return std::nullopt;
    if (b.size() != 20) bad_tx("to must be empty or 20 bytes");
    std::array<std::uint8_t, 20> a{};
    std::copy(b.begin(), b.end(), a.begin());
    return Address(a);
}

void read_signature(const rlp::Item& r, const rlp::Item& s, Signature& sig) {
    sig.r = r.as_uint().to_be_bytes32();
    sig.s = s.as_uint().to_be_bytes32();
    if (!is_low_s(sig)) bad_tx("s is in the upper half of the curve order (EIP-2)");
}

const std::vector<rlp::Item>& fields(const rlp::Item& list, std::size_t count, const char* kind) {
    if (!list.is_list) bad_tx(std::string("the ") + kind + " payload is not an RLP list");
    if (list.items.size() != count)
        bad_tx(std::string("an ") + kind + " transaction has " + std::to_string(count) + " fields, got " +
               std::to_string(list.items.size()));
    return list.items;
}

// gas, to, value, data: the run of fields both types share, starting at `first`.
void read_common(const std::vector<rlp::Item>& f, std::size_t first, Transaction& tx) {
    tx.gas_limit = u64_field(f[first], "gas limit");
    tx.to = to_field(f[first + 1]);
    tx.value = f[first + 2].as_uint();
    tx.data = string_field(f[first + 3], "data");
}

Transaction decode_eip1559(const rlp::Item& list, Signature& sig) {
    const auto& f = fields(list, kEip1559Fields, "EIP-1559");
    Transaction tx;
    tx.type = TxType::eip1559;
    tx.chain_id = u64_field(f[0], "chain id");
    tx.nonce = u64_field(f[1], "nonce");
    tx.max_priority_fee_per_gas = f[2].as_uint();
    tx.max_fee_per_gas = f[3].as_uint();
    read_common(f, 4, tx);
    if (!f[8].is_list || !f[8].items.empty()) bad_tx("only an empty access list is supported");
    const U256 parity = f[9].as_uint();
    if (parity > U256(1)) bad_tx("y-parity must be 0 or 1");
    sig.recovery_id = static_cast<std::uint8_t>(parity.to_u64());
    read_signature(f[10], f[11], sig);
    return tx;
}

Transaction decode_legacy(const rlp::Item& list, Signature& sig) {
    const auto& f = fields(list, kLegacyFields, "legacy");
    Transaction tx;
    tx.type = TxType::legacy;
    tx.nonce = u64_field(f[0], "nonce");
    tx.gas_price = f[1].as_uint();
    read_common(f, 2, tx);
    const U256 v = f[6].as_uint();
    if (v < U256(37)) bad_tx("v carries no EIP-155 chain id (pre-EIP-155 transactions are not accepted)");
    const U256 chain_id = (v - U256(35)) / U256(2);
    if (!chain_id.fits_u64()) bad_tx("chain id does not fit in 64 bits");
    tx.chain_id = chain_id.to_u64();
    sig.recovery_id = static_cast<std::uint8_t>(((v - U256(35)) % U256(2)).to_u64());
    read_signature(f[7], f[8], sig);
    return tx;
}

}  // namespace

Bytes Transaction::signing_payload() const {
    rlp::ListBuilder list = payload_fields(*this);
    if (type == TxType::eip1559) return typed(kEip1559Prefix, list.build());
    return list.add_uint(chain_id).add_uint(0).add_uint(0).build();
}

Hash32 Transaction::signing_hash() const { return keccak256(signing_payload()); }

SignedTransaction sign_transaction(const Transaction& tx, const Signer& signer) {
    SignedTransaction out{tx, signer.sign(tx.signing_hash()), signer.address(), {}, {}};
    out.raw = encode_signed(tx, out.signature);
    out.hash = keccak256(out.raw);
    return out;
}

SignedTransaction Signer::sign_transaction(const Transaction& tx) const { return eth::sign_transaction(tx, *this); }

SignedTransaction decode_transaction(ByteView raw) {
    if (raw.empty()) bad_tx("empty input");
    SignedTransaction out;
    if (raw[0] == kEip1559Prefix) {
        out.tx = decode_eip1559(rlp::decode(raw.subspan(1)), out.signature);
    } else if (raw[0] >= kEmptyList) {
        out.tx = decode_legacy(rlp::decode(raw), out.signature);
    } else {
        bad_tx("unsupported transaction type " + std::to_string(raw[0]));
    }
    out.from = recover_address(out.tx.signing_hash(), out.signature);
    out.raw.assign(raw.begin(), raw.end());
    out.hash = keccak256(raw);
    return out;
}

}  // namespace abci::eth
