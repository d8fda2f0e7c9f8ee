// Cross-checks of the eth encodings against the real `cast` (foundry), run as a
// separate process on inputs drawn from a fixed-seed generator, so a failure
// reproduces exactly. One cast call per input: each takes ~10-50 ms here.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>

#include "core/eth/abi.hpp"
#include "core/eth/address.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/rlp.hpp"
#include "core/eth/u256.hpp"
#include "support/random.hpp"
#include "support/tools.hpp"

using namespace abci::eth;
using abci::test::cast;

namespace {

// Each sample costs cast processes (40 ms of a core each). The sanitizer
// build runs the same code for memory errors, which a third of them shows.
const int samples = abci::test::sanitized_build() ? 10 : 30;

class AbiRandom : public abci::test::Random {
public:
    using abci::test::Random::Random;
    Bytes bytes(std::size_t n) {
        Bytes out = abci::test::Random::bytes(n);
        // Bias towards the boundary bytes RLP and ABI treat specially.
        if (n > 0 && below(4) == 0) out[0] = static_cast<std::uint8_t>(below(2) ? 0x00 : 0x7f + below(3));
        return out;
    }
    /// A U256 of a random byte length up to `max_bytes`, so small and large values both occur.
    U256 u256(std::size_t max_bytes = 32) { return U256::from_be_bytes(bytes(below(max_bytes + 1))); }
    /// Text cast passes through unchanged inside quotes: no quote or backslash,
    /// but commas, brackets and spaces that a naive splitter would trip on.
    std::string text() {
        static constexpr std::string_view alphabet = "abcXYZ019 ,[]()-_.:";
        std::string out(below(40), ' ');
        for (auto& c : out) c = alphabet[below(alphabet.size())];
        return out;
    }
    abi::Value value(const abi::Type& t);
};

abi::Value AbiRandom::value(const abi::Type& t) {
    using Kind = abi::Type::Kind;
    switch (t.kind) {
        case Kind::uint: return u256(t.size / 8);
        case Kind::sint: {
            U256 v = u256(t.size / 8);
            // Sign-extend from bit size-1 so negative values occur.
            if (t.size < 256 && v.bit(static_cast<unsigned>(t.size - 1)))
                v = v + ((U256{0} - U256{1}) << static_cast<unsigned>(t.size));
            return v;
        }
        case Kind::address: return address();
        case Kind::boolean: return below(2) == 1;
        case Kind::fixed_bytes: return bytes(t.size);
        case Kind::bytes: return bytes(below(70));
        case Kind::string: return text();
        case Kind::array:
        case Kind::fixed_array:
        case Kind::tuple: {
            std::size_t n = t.kind == Kind::tuple ? t.components.size() : t.kind == Kind::array ? below(4) : t.size;
            abi::Value::List list;
            for (std::size_t i = 0; i < n; ++i) list.push_back(value(t.kind == Kind::tuple ? t.components[i] : t.components[0]));
            return list;
        }
    }
    return {};
}

/// Removes the scientific-notation hints cast adds to large numbers ("1000000 [1e6]").
/// Random strings use an alphabet without 'e', so they never contain one.
std::string strip_hints(const std::string& line) {
    static const std::regex hint(R"( \[-?[0-9.]+e[0-9]+\])");
    return std::regex_replace(line, hint, "");
}

/// A random RLP structure in cast's JSON form (hex strings and arrays) and its encoding by us.
std::pair<nlohmann::json, Bytes> random_rlp(AbiRandom& r, int depth) {
    if (depth < 3 && r.below(3) == 0) {
        nlohmann::json list = nlohmann::json::array();
        std::vector<Bytes> encoded;
        for (std::size_t i = r.below(5); i > 0; --i) {
            auto [json, enc] = random_rlp(r, depth + 1);
            list.push_back(json);
            encoded.push_back(enc);
        }
        return {list, rlp::encode_list(encoded)};
    }
    // Lengths around the 1-byte, 55/56 and 255/256 header boundaries.
    static constexpr std::size_t lengths[] = {0, 1, 1, 2, 20, 55, 56, 57, 255, 256, 300};
    Bytes data = r.bytes(lengths[r.below(std::size(lengths))]);
    return {to_hex(data), rlp::encode_bytes(data)};
}

}  // namespace

TEST_CASE("cast cross-check: keccak256", "[eth][cast][keccak]") {
    AbiRandom r(1);
    for (int i = 0; i < samples; ++i) {
        Bytes data = r.bytes(1 + r.below(300));
        INFO(to_hex(data));
        CHECK(to_hex(keccak256(data)) == cast({"keccak", to_hex(data)}));
    }
}

TEST_CASE("cast cross-check: U256 decimal and hex", "[eth][cast][u256]") {
    AbiRandom r(2);
    for (int i = 0; i < samples; ++i) {
        U256 v = r.u256();
        INFO(v.to_hex());
        CHECK(v.to_dec() == cast({"to-dec", v.to_hex()}));
        CHECK(v.to_hex() == cast({"to-hex", v.to_dec()}));
    }
}

TEST_CASE("cast cross-check: EIP-55 checksums", "[eth][cast][address]") {
    AbiRandom r(3);
    for (int i = 0; i < samples; ++i) {
        Bytes raw = r.bytes(20);
        std::array<std::uint8_t, 20> a{};
        std::copy(raw.begin(), raw.end(), a.begin());
        Address address(a);
        INFO(address.lower());
        std::string expected = cast({"to-check-sum-address", address.lower()});
        CHECK(address.checksummed() == expected);
        CHECK(Address::parse(expected) == address);
    }
}

TEST_CASE("cast cross-check: RLP encode and decode", "[eth][cast][rlp]") {
    AbiRandom r(4);
    for (int i = 0; i < samples; ++i) {
        auto [json, encoded] = random_rlp(r, 0);
        INFO(json.dump());
        CHECK(to_hex(encoded) == cast({"to-rlp", json.dump()}));
        CHECK(nlohmann::json::parse(cast({"from-rlp", to_hex(encoded)})) == json);
    }
}

TEST_CASE("cast cross-check: ABI encode and decode", "[eth][cast][abi]") {
    AbiRandom r(5);
    const std::vector<std::string> signatures{
        "f(uint256,address,bool,bytes,string,bytes32,uint256[],(uint8,string))",
        "f(int8,int256,uint8,uint128,bytes1,bytes7,int40)",
        "f(string[],bytes[2],(address,uint256[])[],bool[3][])",
        "f((uint256,(string,bytes4)[])[2],int64[],string)",
    };
    for (int i = 0; i < samples; ++i) {
        const auto sig = abi::Signature::parse(signatures[i % signatures.size()]);
        const auto types = sig.input_types();
        std::vector<abi::Value> values;
        std::vector<std::string> args{"abi-encode", sig.canonical()};
        for (const auto& t : types) {
            values.push_back(r.value(t));
            args.push_back(abi::format_value(t, values.back()));
            CHECK(abi::parse_value(t, args.back()) == values.back());  // our text form parses back
        }
        const Bytes encoded = abi::encode(types, values);
        INFO(sig.canonical() << " " << nlohmann::json(args).dump());
        CHECK(to_hex(encoded) == cast(args));
        CHECK(abi::decode(types, encoded) == values);

        // cast decodes our encoding to the same text we render, one value per line.
        std::string decoded = cast({"abi-decode", "f()(" + sig.canonical().substr(2), to_hex(encoded)});
        std::istringstream lines(decoded);
        std::string line;
        for (std::size_t k = 0; k < types.size(); ++k) {
            REQUIRE(std::getline(lines, line));
            CHECK(strip_hints(line) == abi::format_value(types[k], values[k]));
        }
    }
}

TEST_CASE("cast cross-check: calldata and selectors", "[eth][cast][abi]") {
    AbiRandom r(6);
    const std::string mint = "mint(address,uint256,uint256,bytes)";
    const auto mint_types = abi::Signature::parse(mint).input_types();
    static constexpr std::string_view names[] = {"uint256", "address", "bool", "bytes", "string", "bytes32",
                                                 "uint8[]", "(uint256,address)[]", "int24", "bytes4[2]"};
    for (int i = 0; i < samples; ++i) {
        std::vector<abi::Value> values;
        std::vector<std::string> args{"calldata", mint};
        for (const auto& t : mint_types) {
            values.push_back(r.value(t));
            args.push_back(abi::format_value(t, values.back()));
        }
        CHECK(to_hex(abi::encode_call(mint, values)) == cast(args));

        // A random signature, written with parameter names and spaces on our side.
        std::string canonical = "fn" + std::to_string(r.below(100000)) + "(";
        std::string named = canonical;
        for (std::size_t k = r.below(4); k > 0; --k) {
            std::string_view type = names[r.below(std::size(names))];
            canonical += std::string(type) + (k > 1 ? "," : "");
            named += std::string(type) + " p" + std::to_string(k) + (k > 1 ? ", " : "");
        }
        canonical += ")";
        named += ")";
        INFO(named);
        CHECK(to_hex(abi::selector(named)) == cast({"sig", canonical}));
    }
}

TEST_CASE("cast cross-check: revert data built by cast", "[eth][cast][abi]") {
    const Address account = Address::parse("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");
    const auto custom = abi::Signature::parse("RoleTokenAlreadyHeld(address,uint256)");
    Bytes data = from_hex(cast({"calldata", custom.canonical(), account.lower(), "10000"}));
    auto r = abi::decode_revert(data, std::vector{custom});
    CHECK(r.message == "RoleTokenAlreadyHeld(0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed, 10000)");
    CHECK(abi::decode_revert(from_hex(cast({"calldata", "Error(string)", "insufficient balance"}))).message ==
          "insufficient balance");
    CHECK(abi::decode_revert(from_hex(cast({"calldata", "Panic(uint256)", "0x12"}))).message ==
          "Panic(0x12): division or modulo by zero");
}
