#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/util/strict_json.hpp"

namespace abci {
namespace {

// The message of the Error(invalid_input) that parsing `text` raises.
std::string refusal(std::string_view text, std::size_t max_depth = 8,
                    std::size_t max_values = std::numeric_limits<std::size_t>::max()) {
    try {
        (void)util::parse_strict_json(text, max_depth, "the body", max_values);
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::invalid_input);
        return e.what();
    }
    FAIL("parsed: " << text);
    return {};
}

}  // namespace

TEST_CASE("parse_strict_json refuses members named twice at any depth, and says which", "[strict_json]") {
    CHECK(refusal(R"({"a":1,"a":1})") == R"(the body names the member "a" twice in one object; send each member once)");
    CHECK(refusal(R"({"x":[{"b":{"c":1,"c":2}}]})").find(R"("c" twice)") != std::string::npos);
    const std::string long_name(500, 'n');
    const auto message = refusal("{\"" + long_name + "\":1,\"" + long_name + "\":2}");
    CHECK(message.size() < 200);
    // One name in sibling or nested objects is fine.
    CHECK(util::parse_strict_json(R"({"a":{"a":1},"b":[{"a":1},{"a":2}]})", 8)["b"][1]["a"] == 2);
}

TEST_CASE("parse_strict_json explains broken text in plain words, with where", "[strict_json]") {
    CHECK(refusal(R"({"a": })") == "the body is not valid JSON: unexpected character '}' at line 1, column 7 (byte 7)");
    CHECK(refusal("{\"a\":1,\n\"b\":\x01}") ==
          "the body is not valid JSON: unexpected byte 0x01 at line 2, column 5 (byte 13)");
    CHECK(refusal(R"({"a":)") == "the body is not valid JSON: it ends before the JSON is complete (after byte 5)");
    CHECK(refusal("") == "the body is empty; send a JSON object");
    CHECK(refusal("[[[[1]]]]", 3) == "the body is nested deeper than 3 levels");
    CHECK(util::parse_strict_json("[[[1]]]", 3) == nlohmann::json::parse("[[[1]]]"));
}

TEST_CASE("parse_strict_json refuses a number beyond a double's range as bad input", "[strict_json]") {
    // Found by tests/fuzz/jwt.cpp: nlohmann reports such a number with
    // out_of_range, not parse_error, and it escaped as a bare library
    // exception from every body and token segment.
    CHECK(refusal(R"({"amount": 1e400})") ==
          "the body holds a number too large to read (beyond 1.8e308); send a smaller one");
    CHECK(refusal("[-1E999]").find("too large") != std::string::npos);
    CHECK(util::parse_strict_json("[1e308]", 8)[0].get<double>() == 1e308);
}

}  // namespace abci

namespace abci {

TEST_CASE("parse_strict_json counts every value against its limit, containers included", "[strict_json]") {
    const std::string_view six = R"({"a":[1,2],"b":{"c":null}})";
    CHECK(util::parse_strict_json(six, 8, "the body", 6).size() == 2);
    CHECK(refusal(six, 8, 5) == "the body holds more than 5 JSON values");
    // A megabyte of tiny members stops at the limit, long before it is all parsed.
    std::string many = "{";
    for (int i = 0; i < 100000; ++i) many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
    many += "}";
    CHECK(refusal(many, 8, 10000) == "the body holds more than 10000 JSON values");
}

}  // namespace abci
