#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/os/process.hpp"
#include "support/error_kind.hpp"
#include "support/random.hpp"

using namespace abci;

namespace encoding_test {

std::string text_of(const eth::Bytes& bytes) { return {bytes.begin(), bytes.end()}; }

}  // namespace encoding_test

TEST_CASE("base64 and base64url encode RFC 4648's vectors", "[crypto][base64]") {
    struct Vector {
        const char* plain;
        const char* base64;
        const char* base64url;
    };
    // RFC 4648 section 10.
    const Vector vectors[] = {
        {"", "", ""},
        {"f", "Zg==", "Zg"},
        {"fo", "Zm8=", "Zm8"},
        {"foo", "Zm9v", "Zm9v"},
        {"foob", "Zm9vYg==", "Zm9vYg"},
        {"fooba", "Zm9vYmE=", "Zm9vYmE"},
        {"foobar", "Zm9vYmFy", "Zm9vYmFy"},
    };
    for (const auto& v : vectors) {
        INFO(v.plain);
        CHECK(crypto::base64_encode(eth::as_bytes(v.plain)) == v.base64);
        CHECK(crypto::base64url_encode(eth::as_bytes(v.plain)) == v.base64url);
        CHECK(encoding_test::text_of(crypto::base64_decode(v.base64)) == v.plain);
        CHECK(encoding_test::text_of(crypto::base64url_decode(v.base64url)) == v.plain);
    }
    // The two alphabets differ in the last two characters.
    const eth::Bytes high{0xfb, 0xff, 0xbf};
    CHECK(crypto::base64_encode(high) == "+/+/");
    CHECK(crypto::base64url_encode(high) == "-_-_");
    CHECK(crypto::base64_decode("+/+/") == high);
    CHECK(crypto::base64url_decode("-_-_") == high);
}

TEST_CASE("base64 agrees with coreutils on random bytes", "[crypto][base64]") {
    test::Random random(4648);
    for (int i = 0; i < 20; ++i) {
        const eth::Bytes data = random.bytes(random.below(70));
        const std::string input(data.begin(), data.end());
        const auto standard = os::run_command({"basenc", "--base64", "-w0"}, input);
        const auto url = os::run_command({"basenc", "--base64url", "-w0"}, input);
        REQUIRE(standard.exit_code == 0);
        REQUIRE(url.exit_code == 0);
        std::string url_unpadded = url.out;
        while (!url_unpadded.empty() && url_unpadded.back() == '=') url_unpadded.pop_back();
        CHECK(crypto::base64_encode(data) == standard.out);
        CHECK(crypto::base64url_encode(data) == url_unpadded);
        CHECK(crypto::base64_decode(standard.out) == data);
        CHECK(crypto::base64url_decode(url_unpadded) == data);
    }
}

TEST_CASE("the base64 decoders are strict", "[crypto][base64]") {
    for (const char* bad : {
             "Zg=",        // padding is not part of base64url
             "Zg==",       //
             "Z",          // one character cannot hold a byte
             "Zm9vY",      //
             "Zh",         // non-canonical: trailing bits set
             "Zm9",        //
             "Zm9v YmFy",  // whitespace
             "Zm9v\n",     //
             "+/8",        // standard alphabet
             "Zm9v.",      //
         }) {
        INFO(bad);
        CHECK(test::error_kind([&] { (void)crypto::base64url_decode(bad); }) == ErrorKind::invalid_input);
    }
    for (const char* bad : {
             "Zg",          // missing padding
             "Zg=",         //
             "Zm9vYg=",     //
             "Zh==",        // non-canonical trailing bits
             "Zm9=",        //
             "Z===",        // too much padding
             "====",        //
             "Zg==Zg==",    // padding inside
             "Zm=v",        //
             "-_8=",        // url alphabet
             " Zg=",        // whitespace
             "Zm9vYg==\n",  //
         }) {
        INFO(bad);
        CHECK(test::error_kind([&] { (void)crypto::base64_decode(bad); }) == ErrorKind::invalid_input);
    }
}

TEST_CASE("sha256 and hmac_sha256 match FIPS 180 and RFC 4231", "[crypto][sha256]") {
    CHECK(crypto::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(crypto::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(eth::to_hex(crypto::sha256(eth::as_bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
                      false) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");

    // RFC 4231 test case 1.
    const eth::Bytes key1(20, 0x0b);
    CHECK(eth::to_hex(crypto::hmac_sha256(key1, eth::as_bytes("Hi There")), false) ==
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    // RFC 4231 test case 2.
    CHECK(eth::to_hex(crypto::hmac_sha256(eth::as_bytes("Jefe"), eth::as_bytes("what do ya want for nothing?")),
                      false) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("random_uuid gives distinct version-4 UUIDs", "[crypto][random]") {
    const std::regex shape("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
    std::set<std::string> seen;
    for (int i = 0; i < 100; ++i) {
        const std::string uuid = crypto::random_uuid();
        INFO(uuid);
        CHECK(std::regex_match(uuid, shape));
        seen.insert(uuid);
    }
    CHECK(seen.size() == 100);
}

TEST_CASE("random_bytes and random_token", "[crypto][random]") {
    CHECK(crypto::random_bytes(0).empty());
    const eth::Bytes a = crypto::random_bytes(32);
    CHECK(a.size() == 32);
    CHECK(a != crypto::random_bytes(32));
    const std::string token = crypto::random_token(32);
    CHECK(token.size() == 43);
    CHECK(crypto::base64url_decode(token).size() == 32);
}

TEST_CASE("constant_time_equal", "[crypto]") {
    const eth::Bytes a{1, 2, 3, 4};
    CHECK(crypto::constant_time_equal(a, eth::Bytes{1, 2, 3, 4}));
    CHECK_FALSE(crypto::constant_time_equal(a, eth::Bytes{1, 2, 3, 5}));
    CHECK_FALSE(crypto::constant_time_equal(a, eth::Bytes{9, 2, 3, 4}));
    CHECK_FALSE(crypto::constant_time_equal(a, eth::Bytes{1, 2, 3}));
    CHECK(crypto::constant_time_equal(eth::Bytes{}, eth::Bytes{}));
}
