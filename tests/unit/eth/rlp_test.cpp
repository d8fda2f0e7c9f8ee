#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/eth/rlp.hpp"
#include "support/tools.hpp"

using namespace abci::eth;

namespace {

nlohmann::json load_vectors(const std::string& name) {
    std::ifstream in(abci::test::source_path("tests/vectors/" + name));
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

/// Encodes an ethereum/tests RLP "in" value by that suite's conventions.
Bytes encode_vector_input(const nlohmann::json& in) {
    if (in.is_array()) {
        std::vector<Bytes> items;
        for (const auto& e : in) items.push_back(encode_vector_input(e));
        return rlp::encode_list(items);
    }
    if (in.is_number_unsigned()) return rlp::encode_uint(U256{in.get<std::uint64_t>()});
    const auto s = in.get<std::string>();
    if (s.starts_with("#")) return rlp::encode_uint(U256::parse(s.substr(1)));
    if (s.starts_with("0x")) return rlp::encode_bytes(from_hex(s));
    return rlp::encode_bytes(as_bytes(s));
}

/// Checks that a decoded item has the structure of the "in" value.
void check_matches(const rlp::Item& item, const nlohmann::json& in) {
    REQUIRE(item.is_list == in.is_array());
    if (in.is_array()) {
        REQUIRE(item.items.size() == in.size());
        for (std::size_t i = 0; i < in.size(); ++i) check_matches(item.items[i], in[i]);
    } else if (in.is_number_unsigned()) {
        CHECK(item.as_uint() == U256{in.get<std::uint64_t>()});
    } else if (const auto s = in.get<std::string>(); s.starts_with("#")) {
        CHECK(item.as_uint() == U256::parse(s.substr(1)));
    } else if (s.starts_with("0x")) {
        CHECK(item.bytes == from_hex(s));
    } else {
        CHECK(item.bytes == Bytes(s.begin(), s.end()));
    }
}

Bytes reencode(const rlp::Item& item) {
    if (!item.is_list) return rlp::encode_bytes(item.bytes);
    rlp::ListBuilder b;
    for (const auto& child : item.items) b.add_encoded(reencode(child));
    return b.build();
}

void check_rejected(const std::string& hex) {
    Bytes encoded = from_hex(hex);
    try {
        (void)rlp::decode(encoded);
        FAIL("decoded without error");
    } catch (const abci::Error& e) {
        CHECK(e.kind() == abci::ErrorKind::invalid_input);
    }
}

}  // namespace

TEST_CASE("RLP: ethereum/tests valid vectors encode, decode and round-trip", "[eth][rlp]") {
    auto vectors = load_vectors("rlp_valid.json");
    REQUIRE(vectors["tests"].size() >= 25);
    for (const auto& [name, v] : vectors["tests"].items()) {
        INFO(name);
        Bytes expected = from_hex(v["out"].get<std::string>());
        CHECK(to_hex(encode_vector_input(v["in"])) == to_hex(expected));
        rlp::Item item = rlp::decode(expected);
        check_matches(item, v["in"]);
        CHECK(reencode(item) == expected);
    }
}

TEST_CASE("RLP: ethereum/tests invalid vectors and truncations are rejected", "[eth][rlp]") {
    auto vectors = load_vectors("rlp_invalid.json");
    REQUIRE(vectors["tests"].size() >= 15);
    for (const char* group : {"tests", "added"}) {
        for (const auto& [name, v] : vectors[group].items()) {
            INFO(group << "/" << name);
            check_rejected(v["out"].get<std::string>());
        }
    }
    // Every strict prefix of a valid encoding is truncated input.
    Bytes valid = rlp::ListBuilder().add_bytes(Bytes(60, 0xaa)).add_uint(U256{1000}).add_encoded(rlp::encode_list({})).build();
    for (std::size_t n = 0; n < valid.size(); ++n) {
        INFO("prefix of length " << n);
        check_rejected(to_hex(ByteView(valid).first(n)));
    }
}

TEST_CASE("RLP: integers", "[eth][rlp]") {
    CHECK(to_hex(rlp::encode_uint(U256{0})) == "0x80");
    CHECK(to_hex(rlp::encode_uint(U256{0x7f})) == "0x7f");
    CHECK(to_hex(rlp::encode_uint(U256{0x80})) == "0x8180");
    CHECK(rlp::decode(from_hex("0x8203e8")).as_uint() == U256{1000});
    CHECK(rlp::decode(from_hex("0x80")).as_uint() == U256{0});
    CHECK_THROWS_AS(rlp::decode(from_hex("0x820001")).as_uint(), abci::Error);  // leading zero
    CHECK_THROWS_AS(rlp::decode(from_hex("0x00")).as_uint(), abci::Error);      // zero must be 0x80
    CHECK_THROWS_AS(rlp::decode(from_hex("0xc0")).as_uint(), abci::Error);      // a list
    Bytes b33(33, 0x01);
    CHECK_THROWS_AS(rlp::decode(rlp::encode_bytes(b33)).as_uint(), abci::Error);
}

TEST_CASE("RLP: deep nesting is bounded", "[eth][rlp]") {
    Bytes deep(100000, 0xc0);  // each list header claims a zero payload, so this is trailing-bytes input
    check_rejected(to_hex(deep));
    Bytes nested = rlp::encode_list({});
    for (int i = 0; i < 300; ++i) nested = rlp::encode_list({nested});
    check_rejected(to_hex(nested));
}
