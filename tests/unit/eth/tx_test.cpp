#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/rlp.hpp"
#include "core/eth/tx.hpp"
#include "support/error_kind.hpp"

using namespace abci;
using namespace abci::eth;

namespace {

const U256 kOneEther = U256::parse("1000000000000000000");
const U256 kTwentyGwei = U256::parse("20000000000");

// The EIP-155 specification's worked example.
Transaction eip155_example() {
    Transaction tx;
    tx.type = TxType::legacy;
    tx.chain_id = 1;
    tx.nonce = 9;
    tx.gas_price = kTwentyGwei;
    tx.gas_limit = 21000;
    tx.to = Address::parse("0x3535353535353535353535353535353535353535");
    tx.value = kOneEther;
    return tx;
}

const PrivateKey& eip155_key() {
    static const PrivateKey key = PrivateKey::from_hex("0x4646464646464646464646464646464646464646464646464646464646464646");
    return key;
}

Transaction eip1559_example() {
    Transaction tx;
    tx.chain_id = 1;
    tx.nonce = 9;
    tx.max_priority_fee_per_gas = U256(1000000000);
    tx.max_fee_per_gas = kTwentyGwei;
    tx.gas_limit = 21000;
    tx.to = Address::parse("0x3535353535353535353535353535353535353535");
    tx.value = kOneEther;
    return tx;
}

Bytes u(const U256& v) { return rlp::encode_uint(v); }

}  // namespace

TEST_CASE("the EIP-155 worked example signs to the published bytes", "[eth][tx]") {
    const Transaction tx = eip155_example();
    CHECK(to_hex(tx.signing_payload()) ==
          "0xec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080");
    CHECK(to_hex(tx.signing_hash()) == "0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53");

    const SignedTransaction signed_tx = sign_transaction(tx, eip155_key());
    CHECK(to_hex(signed_tx.raw) ==
          "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc"
          "2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a"
          "3b6d83");
    CHECK(signed_tx.hash == keccak256(signed_tx.raw));
    CHECK(signed_tx.from == Address::parse("0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F"));
}

TEST_CASE("an EIP-1559 transaction signs to the bytes cast produces", "[eth][tx]") {
    // `cast mktx --private-key <anvil key 0> --chain 1 --nonce 9 --gas-limit 21000
    //  --gas-price 20000000000 --priority-gas-price 1000000000 0x3535…35 --value 1ether`
    const PrivateKey key = PrivateKey::from_hex("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    const SignedTransaction signed_tx = sign_transaction(eip1559_example(), key);
    CHECK(to_hex(signed_tx.raw) ==
          "0x02f8730109843b9aca008504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080c001a0"
          "10e3aef7fe1dd0f1d82bbc33c6b431d975e0f4471160babf09a2a84cc90e7eb9a02d3b6bf9bd554d38298e970a7293232f9e61fb08cbb"
          "a79ad04e370189a5b1763");
}

TEST_CASE("signed transactions decode back to their fields and sender", "[eth][tx]") {
    const PrivateKey key = PrivateKey::generate();
    Transaction creation = eip1559_example();
    creation.to.reset();
    creation.data = Bytes{0x60, 0x80, 0x60, 0x40};
    Transaction big_chain = eip155_example();
    big_chain.chain_id = 0xffffffffffffULL;
    big_chain.data = Bytes(100, 0xab);
    for (const Transaction& tx : {eip155_example(), eip1559_example(), creation, big_chain}) {
        const SignedTransaction s = sign_transaction(tx, key);
        const SignedTransaction d = decode_transaction(s.raw);
        CHECK(d.tx == tx);
        CHECK(d.from == key.address());
        CHECK(d.signature == s.signature);
        CHECK(d.hash == s.hash);
        CHECK(d.raw == s.raw);
    }
}

TEST_CASE("fee fields of the other transaction type are refused", "[eth][tx]") {
    Transaction legacy = eip155_example();
    legacy.max_fee_per_gas = U256(1);
    CHECK(test::error_kind([&] { (void)legacy.signing_payload(); }) == ErrorKind::invalid_input);
    Transaction no_chain = eip155_example();
    no_chain.chain_id = 0;
    CHECK(test::error_kind([&] { (void)no_chain.signing_payload(); }) == ErrorKind::invalid_input);
    Transaction typed = eip1559_example();
    typed.gas_price = U256(1);
    CHECK(test::error_kind([&] { (void)sign_transaction(typed, eip155_key()); }) == ErrorKind::invalid_input);
}

TEST_CASE("malformed raw transactions are rejected as invalid input", "[eth][tx]") {
    const SignedTransaction good = sign_transaction(eip1559_example(), eip155_key());
    const SignedTransaction legacy = sign_transaction(eip155_example(), eip155_key());
    const rlp::Item fields = rlp::decode(ByteView(good.raw).subspan(1));

    // Re-encodes the EIP-1559 fields with one replaced (index → encoded item).
    auto with_field = [&](std::size_t index, const Bytes& encoded) {
        rlp::ListBuilder list;
        for (std::size_t i = 0; i < fields.items.size(); ++i) {
            const rlp::Item& item = fields.items[i];
            if (i == index)
                list.add_encoded(encoded);
            else if (item.is_list)
                list.add_encoded(Bytes{0xc0});
            else
                list.add_bytes(item.bytes);
        }
        Bytes out{0x02};
        const Bytes body = list.build();
        out.insert(out.end(), body.begin(), body.end());
        return out;
    };
    // n - s with the parity flipped is the same signature in high-s form.
    const U256 order = U256::parse("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
    const U256 high_s = order - U256::from_be_bytes(good.signature.s);

    const Bytes truncated(good.raw.begin(), good.raw.end() - 1);
    Bytes trailing = good.raw;
    trailing.push_back(0);
    Bytes type1 = good.raw;
    type1[0] = 0x01;
    const std::pair<const char*, Bytes> cases[] = {
        {"empty", {}},
        {"truncated", truncated},
        {"trailing byte", trailing},
        {"type 1", type1},
        {"type 3", Bytes{0x03, 0xc0}},
        {"not a list", Bytes{0x02, 0x80}},
        {"too few fields", Bytes{0x02, 0xc1, 0x01}},
        {"access list", with_field(8, rlp::encode_list({rlp::encode_bytes(Bytes(20, 1))}))},
        {"to of 19 bytes", with_field(5, rlp::encode_bytes(Bytes(19, 1)))},
        {"data as list", with_field(7, Bytes{0xc0})},
        {"parity 2", with_field(9, u(U256(2)))},
        {"nonce over 64 bits", with_field(1, u(U256(1) << 64))},
        {"nonce with leading zero", with_field(1, rlp::encode_bytes(Bytes{0x00, 0x09}))},
        {"high s", with_field(11, u(high_s))},
        {"zero r", with_field(10, u(U256(0)))},
        {"legacy pre-EIP-155 v", [&] {
             rlp::ListBuilder list;
             const rlp::Item l = rlp::decode(legacy.raw);
             for (std::size_t i = 0; i < l.items.size(); ++i)
                 i == 6 ? list.add_uint(27) : list.add_bytes(l.items[i].bytes);
             return list.build();
         }()},
    };
    for (const auto& [name, raw] : cases) {
        INFO(name);
        CHECK(test::error_kind([&] { (void)decode_transaction(raw); }) == ErrorKind::invalid_input);
    }
}
