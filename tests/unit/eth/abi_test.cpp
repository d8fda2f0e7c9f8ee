#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>

#include "core/error.hpp"
#include "core/eth/abi.hpp"

using namespace abci::eth;
using namespace abci::eth::abi;

namespace {

const Address alice = Address::parse("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");

std::string word(std::string_view hex_tail) {  // a 32-byte word, left-padded with zeros
    return std::string(64 - hex_tail.size(), '0') + std::string(hex_tail);
}

void check_invalid(const std::string& types, const std::string& hex) {
    INFO(types << " <- " << hex);
    try {
        (void)decode(parse_types(types), from_hex(hex));
        FAIL("decoded without error");
    } catch (const abci::Error& e) {
        CHECK(e.kind() == abci::ErrorKind::invalid_input);
    }
}

}  // namespace

TEST_CASE("ABI: type parsing and canonical forms", "[eth][abi]") {
    CHECK(parse_type("uint").canonical() == "uint256");
    CHECK(parse_type(" int ").canonical() == "int256");
    CHECK(parse_type("bytes32").canonical() == "bytes32");
    CHECK(parse_type("(uint8,(string,bytes4)[2])[][3]").canonical() == "(uint8,(string,bytes4)[2])[][3]");
    CHECK(parse_type("( uint8 , address )").canonical() == "(uint8,address)");
    CHECK(parse_type("()").canonical() == "()");
    CHECK(parse_types("").empty());
    CHECK(parse_types("uint256, address[]").size() == 2);

    auto arr = parse_type("uint8[2][]");
    CHECK(arr.kind == Type::Kind::array);
    CHECK(arr.components[0].kind == Type::Kind::fixed_array);
    CHECK(arr.components[0].size == 2);

    CHECK_FALSE(parse_type("uint256[3]").is_dynamic());
    CHECK_FALSE(parse_type("(address,bytes32)").is_dynamic());
    CHECK(parse_type("(address,bytes)").is_dynamic());
    CHECK(parse_type("string[2]").is_dynamic());

    for (const char* bad : {"uint7", "uint264", "uint0", "int", "bytes0", "bytes33", "uint256[", "uint256[01]",
                            "(uint256", "uint256)", "foo", "", "uint256[x]", "address payable", "uint08"}) {
        INFO(bad);
        if (std::string_view(bad) == "int") continue;  // bare int is int256, listed to keep the table honest
        CHECK_THROWS_AS(parse_type(bad), abci::Error);
    }
    CHECK_THROWS_AS(parse_type(std::string(40, '(') + "uint8" + std::string(40, ')')), abci::Error);
}

TEST_CASE("ABI: selectors and topics of known signatures", "[eth][abi]") {
    CHECK(to_hex(selector("transfer(address,uint256)")) == "0xa9059cbb");
    CHECK(to_hex(selector("mint(address,uint256,uint256,bytes)")) == "0x731133e9");
    CHECK(to_hex(selector("mint(address to, uint256 id, uint256 amount, bytes memory data)")) == "0x731133e9");
    CHECK(to_hex(event_topic("Transfer(address,address,uint256)")) ==
          "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");
    CHECK(to_hex(event_topic("TransferSingle(address indexed operator, address indexed from, address indexed to, "
                             "uint256 id, uint256 value)")) ==
          "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62");
    auto sig = Signature::parse("balanceOfBatch(address[] accounts, uint256[] ids) returns (uint256[])");
    CHECK(sig.canonical() == "balanceOfBatch(address[],uint256[])");
    REQUIRE(sig.outputs.size() == 1);
    CHECK(sig.outputs[0].canonical() == "uint256[]");
    CHECK(Signature::parse("version()(string)").outputs[0].canonical() == "string");
    for (const char* bad : {"", "f", "(uint256)", "f(uint256", "f(uint256) x", "1f()", "f(uint256 a b)"})
        CHECK_THROWS_AS(Signature::parse(bad), abci::Error);
}

TEST_CASE("ABI: encoding of a known call", "[eth][abi]") {
    // The calldata cast prints for: cast calldata "mint(address,uint256,uint256,bytes)" <alice> 1 2 0x1234
    Bytes call = encode_call("mint(address,uint256,uint256,bytes)", std::vector<Value>{alice, 1, 2, Bytes{0x12, 0x34}});
    CHECK(to_hex(call) == "0x731133e9" + word("5aaeb6053f3e94c9b9a09f33669435e7ef1beaed") + word("1") + word("2") +
                              word("80") + word("2") + "1234" + std::string(60, '0'));
    CHECK_THROWS_AS(encode(parse_types("uint8"), std::vector<Value>{256}), abci::Error);
    CHECK_THROWS_AS(encode(parse_types("int8"), std::vector<Value>{Value::from_int(-129)}), abci::Error);
    CHECK_THROWS_AS(encode(parse_types("bytes2"), std::vector<Value>{Bytes{1}}), abci::Error);
    CHECK_THROWS_AS(encode(parse_types("uint256[2]"), std::vector<Value>{Value::List{1}}), abci::Error);
    CHECK_THROWS_AS(encode(parse_types("uint256"), std::vector<Value>{true}), abci::Error);
    CHECK_THROWS_AS(encode(parse_types("uint256,bool"), std::vector<Value>{1}), abci::Error);
    CHECK(encode(parse_types("int8"), std::vector<Value>{Value::from_int(-1)}) == Bytes(32, 0xff));
}

TEST_CASE("ABI: decoding round-trips and output decoding", "[eth][abi]") {
    auto types = parse_types("uint256,int16,address,bool,bytes3,bytes,string,uint8[],(string,uint64)[2]");
    std::vector<Value> values{U256::parse("123456789012345678901234567890"),
                              Value::from_int(-300),
                              alice,
                              true,
                              Bytes{1, 2, 3},
                              Bytes(70, 0xab),
                              "héllo",
                              Value::List{1, 2, 255},
                              Value::List{Value::List{"a", 1}, Value::List{"", 2}}};
    Bytes enc = encode(types, values);
    CHECK(decode(types, enc) == values);
    Bytes with_tail = enc;
    with_tail.push_back(0);
    CHECK(decode(types, with_tail) == values);  // trailing bytes are tolerated, as Solidity does

    auto version = decode_output("version()(string)", encode(parse_types("string"), std::vector<Value>{"1.2.3"}));
    CHECK(version == std::vector<Value>{"1.2.3"});
    auto balances = decode_output("balanceOfBatch(address[],uint256[])(uint256[])",
                                  encode(parse_types("uint256[]"), std::vector<Value>{Value::List{0, 5}}));
    CHECK(balances[0].as_list() == Value::List{0, 5});
}

TEST_CASE("ABI: strict decoding rejects non-canonical and out-of-bounds input", "[eth][abi]") {
    check_invalid("address", "01" + std::string(62, '0') + "01");            // dirty address padding
    check_invalid("bool", word("2"));
    check_invalid("uint8", word("100"));
    check_invalid("uint248", "01" + std::string(62, '0'));
    check_invalid("int8", word("80"));                                        // 128 without sign extension
    check_invalid("int8", std::string(62, 'f') + "7f");                       // sign bits set, value positive
    check_invalid("bytes4", "abcdef01" + std::string(55, '0') + "1");         // dirty bytes4 padding
    check_invalid("uint256", std::string(62, '0'));                           // short
    check_invalid("bytes", word("40"));                                       // offset past the end
    check_invalid("bytes", word("20") + word("21") + std::string(64, '0'));  // length past the end
    check_invalid("bytes", word("20") + std::string(63, 'f') + "0");          // huge length
    check_invalid("uint256[]", word("20") + word("3") + word("1") + word("2"));
    check_invalid("uint256[]", word("20") + "ff" + std::string(62, '0'));     // absurd array length
    check_invalid("string", std::string(63, 'f') + "f");                      // offset overflows
    check_invalid("()[]", word("20") + word("1000000"));

    CHECK(decode(parse_types("int8"), from_hex(std::string(62, 'f') + "80"))[0] == Value::from_int(-128));
    CHECK(decode(parse_types("uint8[][]"), from_hex(word("20") + word("0")))[0].as_list().empty());
}

TEST_CASE("ABI: aliased offsets cannot blow up the work", "[eth][abi]") {
    // An outer bytes[] whose 2000 offsets all point at one 1 KiB blob would copy
    // 2 MB out of 66 KB; the decoder's budget refuses it.
    const std::size_t n = 2000;
    std::string hex = word("20") + word(U256{n}.to_hex().substr(2));
    std::size_t blob_offset = n * 32;
    for (std::size_t i = 0; i < n; ++i) hex += word(U256{blob_offset}.to_hex().substr(2));
    hex += word("400") + std::string(2048, 'a');
    check_invalid("bytes[]", hex);
}

TEST_CASE("ABI: random corruption of valid encodings never escapes as anything but invalid_input", "[eth][abi]") {
    auto types = parse_types("(uint8,string)[],bytes,uint256[2][],address,string[]");
    std::vector<Value> values{Value::List{Value::List{7, "seven"}, Value::List{8, ""}}, Bytes(33, 0x11),
                              Value::List{Value::List{1, 2}}, alice, Value::List{"x", "yz"}};
    const Bytes enc = encode(types, values);
    std::mt19937 rng(42);
    for (int i = 0; i < 3000; ++i) {
        Bytes mutated = enc;
        for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k)
            mutated[rng() % mutated.size()] = static_cast<std::uint8_t>(rng() % 4 == 0 ? 0xff : rng());
        if (rng() % 5 == 0) mutated.resize(rng() % mutated.size());
        try {
            (void)decode(types, mutated);
        } catch (const abci::Error& e) {
            REQUIRE(e.kind() == abci::ErrorKind::invalid_input);
        }
    }
}

TEST_CASE("ABI: values from text, as cast abi-encode accepts them", "[eth][abi]") {
    CHECK(parse_value(parse_type("uint256"), "1000") == Value(1000));
    CHECK(parse_value(parse_type("uint256"), "0x3e8") == Value(1000));
    CHECK(parse_value(parse_type("int16"), "-32768") == Value::from_int(-32768));
    CHECK(parse_value(parse_type("bool"), "true") == Value(true));
    CHECK(parse_value(parse_type("address"), alice.lower()) == Value(alice));
    CHECK(parse_value(parse_type("bytes2"), "0xabcd") == Value(Bytes{0xab, 0xcd}));
    CHECK(parse_value(parse_type("string"), "\"hello, world\"") == Value("hello, world"));
    CHECK(parse_value(parse_type("string"), "plain") == Value("plain"));
    CHECK(parse_value(parse_type("uint8[]"), "[1, 2,3]") == Value(Value::List{1, 2, 3}));
    CHECK(parse_value(parse_type("uint8[]"), "[]") == Value(Value::List{}));
    CHECK(parse_value(parse_type("(uint8,string)"), "(1,hello)") == Value(Value::List{1, "hello"}));
    CHECK(parse_value(parse_type("string[]"), R"(["a,b", "c]", (x)])") == Value(Value::List{"a,b", "c]", "(x)"}));
    for (auto [type, text] : std::vector<std::pair<const char*, const char*>>{
             {"uint8", "256"}, {"int8", "128"}, {"int8", "-129"}, {"bool", "yes"}, {"bytes2", "0xab"},
             {"uint8[2]", "[1]"}, {"(uint8,bool)", "(1)"}, {"(uint8)", "(1,2)"}, {"uint8[]", "1,2"},
             {"address", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"}, {"uint8[]", "[1,[2]"}}) {
        INFO(type << " " << text);
        CHECK_THROWS_AS(parse_value(parse_type(type), text), abci::Error);
    }
}

TEST_CASE("ABI: values to text", "[eth][abi]") {
    CHECK(format_value(parse_type("int8"), Value::from_int(-5)) == "-5");
    CHECK(format_value(parse_type("address"), alice) == alice.checksummed());
    CHECK(format_value(parse_type("string"), "a\"b\\c\n") == R"("a\"b\\c\n")");
    CHECK(format_value(parse_type("(uint8,string)[]"), Value::List{Value::List{1, "a"}, Value::List{2, "b c"}}) ==
          R"([(1, "a"), (2, "b c")])");
    CHECK(format_value(parse_type("bytes"), Bytes{}) == "0x");
    CHECK_THROWS_AS(format_value(parse_type("bool"), Value(1)), abci::Error);
}

TEST_CASE("ABI: revert reasons", "[eth][abi]") {
    CHECK(decode_revert({}).message == "execution reverted without data");
    Bytes error_string = encode_call("Error(string)", std::vector<Value>{"not allowed"});
    auto r = decode_revert(error_string);
    CHECK(r.name == "Error");
    CHECK(r.message == "not allowed");
    auto panic = decode_revert(encode_call("Panic(uint256)", std::vector<Value>{0x11}));
    CHECK(panic.name == "Panic");
    CHECK(panic.message == "Panic(0x11): arithmetic underflow or overflow");
    CHECK(panic_meaning(U256{0x32}) == "array index out of bounds");

    auto custom = Signature::parse("RoleTokenAlreadyHeld(address account, uint256 roleId)");
    Bytes data = encode_call("RoleTokenAlreadyHeld(address,uint256)", std::vector<Value>{alice, 10000});
    auto held = decode_revert(data, std::vector<Signature>{custom});
    CHECK(held.name == "RoleTokenAlreadyHeld");
    CHECK(held.message == "RoleTokenAlreadyHeld(" + alice.checksummed() + ", 10000)");
    CHECK(held.args == std::vector<Value>{alice, 10000});

    CHECK(decode_revert(data).message == to_hex(data));  // unknown selector → raw hex
    CHECK(decode_revert(Bytes{0x08, 0xc3}).message == "0x08c3");
    Bytes truncated(error_string.begin(), error_string.end() - 40);
    CHECK(decode_revert(truncated).message == to_hex(truncated));
}

TEST_CASE("ABI: custom errors from a JSON ABI", "[eth][abi]") {
    auto abi = nlohmann::json::parse(R"([
        {"type": "function", "name": "mint", "inputs": []},
        {"type": "error", "name": "RoleTokenAlreadyHeld",
         "inputs": [{"name": "account", "type": "address"}, {"name": "roleId", "type": "uint256"}]},
        {"type": "error", "name": "BadBatch",
         "inputs": [{"name": "items", "type": "tuple[]",
                     "components": [{"name": "id", "type": "uint256"}, {"name": "tag", "type": "string"}]}]}
    ])");
    auto errors = errors_from_json_abi(abi);
    REQUIRE(errors.size() == 2);
    CHECK(errors[1].canonical() == "BadBatch((uint256,string)[])");
    auto r = decode_revert(encode_call("BadBatch((uint256,string)[])",
                                       std::vector<Value>{Value::List{Value::List{3, "x"}}}),
                           errors);
    CHECK(r.message == R"(BadBatch([(3, "x")]))");
    CHECK_THROWS_AS(errors_from_json_abi(nlohmann::json::parse(R"([{"type":"error"}])")), abci::Error);
    CHECK_THROWS_AS(errors_from_json_abi(nlohmann::json::object()), abci::Error);
}

TEST_CASE("ABI: decoding an event log", "[eth][abi]") {
    auto event = Signature::parse("TransferSingle(address indexed operator, address indexed from, "
                                  "address indexed to, uint256 id, uint256 value)");
    auto topic_of = [](const Address& a) {
        Hash32 h{};
        std::copy(a.bytes().begin(), a.bytes().end(), h.begin() + 12);
        return h;
    };
    std::vector<Hash32> topics{event.topic(), topic_of(alice), topic_of(Address{}), topic_of(alice)};
    Bytes data = encode(parse_types("uint256,uint256"), std::vector<Value>{10000, 1});
    CHECK(decode_event(event, topics, data) == std::vector<Value>{alice, Address{}, alice, 10000, 1});
    topics.pop_back();
    CHECK_THROWS_AS(decode_event(event, topics, data), abci::Error);
    topics = {Hash32{}};
    CHECK_THROWS_AS(decode_event(event, topics, data), abci::Error);
}
