// Sign-In with Ethereum against a wallet client nobody here wrote: the `siwe`
// npm package formats each message and an `ethers` wallet signs it
// (tests/support/js/siwe_wallet.mjs), and the same package's parser is a
// second opinion on texts formatted here.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>


#include "core/auth/siwe.hpp"
#include "core/error.hpp"
#include "core/eth/signer.hpp"
#include "core/eth/u256.hpp"
#include "core/os/process.hpp"
#include "core/util/time.hpp"
#include "support/error_kind.hpp"
#include "support/tools.hpp"

using namespace abci;
using namespace abci::auth;
using nlohmann::json;
using std::chrono::minutes;
using std::chrono::seconds;

namespace abci::siwe_test {

// anvil's first two dev keys: the signing user and somebody else.
constexpr const char* kUserKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
constexpr const char* kOtherKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
constexpr const char* kUserAddress = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
constexpr const char* kOtherAddress = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
constexpr const char* kDomain = "abci.example.org";
constexpr const char* kNonce = "n0nce4siweTest";

const auto kNow = util::parse_rfc3339("2026-11-22T10:00:00Z");

std::string at(std::chrono::system_clock::duration from_now) { return util::format_iso8601_utc(kNow + from_now); }

SiweExpectations expectations() { return SiweExpectations{kDomain, "https://abci.example.org", {1, 31337}, kNow}; }

// A sign request the server would accept; cases change what they test.
json valid_request() {
    return {{"privateKey", kUserKey},   {"domain", kDomain}, {"uri", "https://abci.example.org/login"},
            {"chainId", 31337},         {"nonce", kNonce},   {"issuedAt", at(-seconds(30))}};
}

json with(json request, const json& changes) {
    request.update(changes);
    return request;
}

// Runs the wallet helper on an array of requests; one answer per request.
json wallet(const json& requests) {
    const auto r = os::run_command({"node", test::source_path("tests/support/js/siwe_wallet.mjs")}, requests.dump());
    INFO("siwe_wallet.mjs stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    auto answers = json::parse(r.out);
    REQUIRE(answers.size() == requests.size());
    return answers;
}

// What a client would post: the text, its signature and the claimed address.
struct Login {
    std::string message;
    std::string signature;
    std::string address;
};

std::vector<Login> sign_all(const json& requests) {
    std::vector<Login> out;
    for (const auto& a : wallet(requests)) out.push_back({a["message"], a["signature"], a["address"]});
    return out;
}

SiweMessage verify(const Login& l, const SiweExpectations& expect = expectations()) {
    return verify_siwe(l.message, l.signature, l.address, expect);
}

std::optional<std::chrono::system_clock::time_point> optional_time(const json& fields, const char* key) {
    if (!fields.contains(key) || fields[key].is_null()) return std::nullopt;
    return util::parse_rfc3339(fields[key].get<std::string>());
}

std::optional<std::string> optional_string(const json& fields, const char* key) {
    if (!fields.contains(key) || fields[key].is_null()) return std::nullopt;
    return fields[key].get<std::string>();
}

// Checks that `m` holds every field of `fields` (a sign request, or the siwe
// package's parse of the same text: both use the package's field names).
void check_fields(const SiweMessage& m, const json& fields) {
    CHECK(m.scheme == fields.value("scheme", ""));
    CHECK(m.domain == fields["domain"].get<std::string>());
    CHECK(m.statement == optional_string(fields, "statement"));
    CHECK(m.uri == fields["uri"].get<std::string>());
    CHECK(m.version == "1");
    CHECK(m.chain_id == fields["chainId"].get<std::uint64_t>());
    CHECK(m.nonce == fields["nonce"].get<std::string>());
    CHECK(m.issued_at == util::parse_rfc3339(fields["issuedAt"].get<std::string>()));
    CHECK(m.expiration_time == optional_time(fields, "expirationTime"));
    CHECK(m.not_before == optional_time(fields, "notBefore"));
    CHECK(m.request_id == optional_string(fields, "requestId"));
    CHECK(m.resources == fields.value("resources", std::vector<std::string>{}));
}

// Replaces the first `from` in `text` (which must be there) with `to`.
std::string edited(std::string text, const std::string& from, const std::string& to) {
    const auto pos = text.find(from);
    REQUIRE(pos != std::string::npos);
    return text.replace(pos, from.size(), to);
}

}  // namespace abci::siwe_test

using namespace abci::siwe_test;

TEST_CASE("SIWE messages from the siwe package verify and parse back every field", "[siwe]") {
    const json requests = json::array({
        valid_request(),
        with(valid_request(), {{"statement", "Sign in to ABCI: roles & entities (v1) = yours; ok? #1 @ [here]!"}}),
        with(valid_request(), {{"statement", ""}}),
        with(valid_request(), {{"resources", {"ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
                                              "https://abci.example.org/api/roles?x=1#top"}}}),
        with(valid_request(), {{"requestId", "req-42:%20a@b"}}),
        with(valid_request(), {{"scheme", "https"}}),
        with(valid_request(), {{"expirationTime", at(minutes(10))}, {"notBefore", at(-minutes(1))}}),
        // Every optional field at once, offsets and long fractions in the timestamps,
        // and the edges of the time window that still pass.
        with(valid_request(), {{"scheme", "https"},
                               {"statement", "All of it."},
                               {"uri", "https://abci.example.org"},
                               {"chainId", 1},
                               {"issuedAt", "2026-11-22T10:50:30.123456+01:00"},
                               {"expirationTime", "2026-11-22T05:00:01-05:00"},
                               {"notBefore", at(seconds(59))},
                               {"requestId", "r1"},
                               {"resources", {"urn:abci:role:1"}}}),
        with(valid_request(), {{"issuedAt", at(seconds(59))}}),
        with(valid_request(), {{"issuedAt", at(-seconds(600))}}),
    });
    const auto logins = sign_all(requests);
    for (std::size_t i = 0; i < logins.size(); ++i) {
        INFO(logins[i].message);
        CHECK(logins[i].address == kUserAddress);
        const auto m = verify(logins[i]);
        CHECK(m.address.checksummed() == kUserAddress);
        check_fields(m, requests[i]);
        check_fields(parse_siwe_message(logins[i].message), requests[i]);
    }
    // The claimed address is compared case-insensitively.
    const auto lower = eth::Address::parse(kUserAddress).lower();
    CHECK_NOTHROW(verify_siwe(logins[0].message, logins[0].signature, lower, expectations()));
}

TEST_CASE("SIWE verification refuses each failed check as unauthenticated", "[siwe]") {
    struct Case {
        const char* name;
        json changes;
        const char* claimed = nullptr;  // instead of the signer's address
    };
    const Case cases[] = {
        {"another domain", {{"domain", "evil.example.org"}}},
        {"our domain with a port", {{"domain", "abci.example.org:8443"}}},
        {"uri on another origin", {{"uri", "https://evil.example.org/login"}}},
        {"uri on an origin that extends ours", {{"uri", "https://abci.example.org.evil.com/login"}}},
        {"uri over http", {{"uri", "http://abci.example.org/login"}}},
        {"scheme other than the origin's", {{"scheme", "http"}}},
        {"chain id not served", {{"chainId", 5}}},
        {"expired", {{"expirationTime", at(-seconds(1))}}},
        {"expiring this instant", {{"expirationTime", at(seconds(0))}}},
        {"not yet valid", {{"notBefore", at(minutes(5))}}},
        {"issued too long ago", {{"issuedAt", at(-minutes(11))}}},
        {"issued in the future", {{"issuedAt", at(minutes(5))}}},
        {"signed by another key", {{"signerKey", kOtherKey}}},
        {"claimed by another address", json::object(), kOtherAddress},
    };
    json requests = json::array();
    for (const auto& c : cases) requests.push_back(with(valid_request(), c.changes));
    const auto logins = sign_all(requests);
    for (std::size_t i = 0; i < logins.size(); ++i) {
        INFO(cases[i].name << "\n" << logins[i].message);
        auto login = logins[i];
        if (cases[i].claimed) login.address = cases[i].claimed;
        CHECK_NOTHROW(parse_siwe_message(login.message));
        CHECK(test::error_kind([&] { (void)verify(login); }) == ErrorKind::unauthenticated);
    }
}

TEST_CASE("SIWE signatures that were tampered with are refused", "[siwe]") {
    const auto login = sign_all(json::array({valid_request()})).front();
    REQUIRE_NOTHROW(verify(login));
    const auto rsv = eth::from_hex(login.signature);
    REQUIRE(rsv.size() == 65);
    const auto with_signature = [&](const eth::Bytes& sig) {
        auto l = login;
        l.signature = eth::to_hex(sig);
        return l;
    };

    // A changed byte of r or s recovers another key or none at all; the other
    // v recovers another key.
    for (const std::size_t index : {std::size_t{0}, std::size_t{17}, std::size_t{40}, std::size_t{63}}) {
        INFO("byte " << index);
        auto sig = rsv;
        sig[index] ^= 0x5a;
        CHECK(test::error_kind([&] { (void)verify(with_signature(sig)); }) == ErrorKind::unauthenticated);
    }
    auto other_v = rsv;
    other_v[64] = rsv[64] == 27 ? 28 : 27;
    CHECK(test::error_kind([&] { (void)verify(with_signature(other_v)); }) == ErrorKind::unauthenticated);

    {  // the high-s twin, which recovers the same signer
        const auto n = eth::U256::parse("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
        const auto s = eth::U256::from_be_bytes(eth::ByteView(rsv).subspan(32, 32));
        auto twin = rsv;
        const auto high_s = (n - s).to_be_bytes32();
        std::copy(high_s.begin(), high_s.end(), twin.begin() + 32);
        twin[64] = other_v[64];
        CHECK(eth::recover_message_signer(eth::as_bytes(login.message), eth::Signature::parse(eth::to_hex(twin)))
                  .checksummed() == kUserAddress);
        CHECK(test::error_kind([&] { (void)verify(with_signature(twin)); }) == ErrorKind::unauthenticated);
    }

    {  // a signature that is not 0x and 65 bytes of hex is invalid input
        auto l = login;
        for (const std::string& bad : {login.signature.substr(2), login.signature.substr(0, 130), login.signature + "00",
                                      std::string("0x") + std::string(130, 'g')}) {
            l.signature = bad;
            INFO(bad);
            CHECK(test::error_kind([&] { (void)verify(l); }) == ErrorKind::invalid_input);
        }
    }
}

TEST_CASE("SIWE texts off the EIP-4361 grammar are invalid input", "[siwe]") {
    const auto login = sign_all(json::array({with(valid_request(), {{"statement", "Hello."}})})).front();
    const auto& text = login.message;
    const auto lower_address = eth::Address::parse(kUserAddress).lower();
    struct Case {
        const char* name;
        std::string text;
        bool siwe_package_rejects = true;  // false where we are deliberately stricter
    };
    const Case cases[] = {
        {"lower-case address", edited(text, kUserAddress, lower_address)},
        {"version 2", edited(text, "Version: 1", "Version: 2")},
        {"short nonce", edited(text, std::string("Nonce: ") + kNonce, "Nonce: abc1234")},
        {"nonce with a dash", edited(text, std::string("Nonce: ") + kNonce, "Nonce: abcd-1234")},
        {"garbage", "hello, world"},
        {"empty", ""},
        {"CRLF line endings", [&] {
             std::string crlf;
             for (const char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
             return crlf;
         }()},
        {"trailing newline", text + "\n"},
        {"trailing junk line", text + "\nPS: hi"},
        {"unknown field", edited(text, "\nIssued At:", "\nColor: blue\nIssued At:")},
        {"fields out of order", edited(text, "Version: 1\nChain ID: 31337", "Chain ID: 31337\nVersion: 1")},
        {"missing blank line", edited(text, "Hello.\n\n", "Hello.\n")},
        {"statement with a newline", edited(text, "Hello.", "Hel\nlo.")},
        {"statement with a quote", edited(text, "Hello.", "\"Hello.\"")},
        {"no space after a title", edited(text, "Nonce: ", "Nonce:")},
        {"domain with a path", edited(text, "abci.example.org wants", "abci.example.org/x wants")},
        {"empty domain", edited(text, "abci.example.org wants", " wants")},
        {"bad scheme", "1http://" + text},
        {"URI without a scheme", edited(text, "URI: https://", "URI: //")},
        {"URI with a space", edited(text, "/login", "/log in")},
        {"URI with a bad escape", edited(text, "/login", "/log%zzin")},
        {"issued-at without an offset", edited(text, "Issued At: 2026-11-22T09:59:30.000Z", "Issued At: 2026-11-22T09:59:30")},
        {"issued-at on no date", edited(text, "Issued At: 2026-11-22", "Issued At: 2026-11-31")},
        {"chain id with a leading zero", edited(text, "Chain ID: 31337", "Chain ID: 031337"), false},
        {"chain id past 64 bits", edited(text, "Chain ID: 31337", "Chain ID: 18446744073709551616"), false},
        {"chain id in hex", edited(text, "Chain ID: 31337", "Chain ID: 0x7a69")},
        {"resource without its dash", text + "\nResources:\nhttps://abci.example.org/r"},
    };
    json parse_requests = json::array();
    for (const auto& c : cases) {
        INFO(c.name << "\n" << c.text);
        CHECK(test::error_kind([&] { (void)parse_siwe_message(c.text); }) == ErrorKind::invalid_input);
        CHECK(test::error_kind([&] { (void)verify_siwe(c.text, login.signature, login.address, expectations()); }) ==
              ErrorKind::invalid_input);
        parse_requests.push_back({{"parse", c.text}});
    }
    const auto opinions = wallet(parse_requests);
    for (std::size_t i = 0; i < std::size(cases); ++i) {
        INFO(cases[i].name << ": " << opinions[i].dump());
        if (cases[i].siwe_package_rejects) CHECK_FALSE(opinions[i]["ok"].get<bool>());
    }
}

TEST_CASE("SIWE messages formatted by hand parse alike here and in the siwe package", "[siwe]") {
    const std::string header = " wants you to sign in with your Ethereum account:\n" + std::string(kUserAddress) + "\n";
    const std::string fields = "URI: https://abci.example.org/login\nVersion: 1\nChain ID: 31337\nNonce: " +
                               std::string(kNonce) + "\nIssued At: 2026-11-22T09:59:30Z";
    const std::string texts[] = {
        kDomain + header + "\n\n" + fields,                          // no statement
        kDomain + header + "\n\n\n" + fields,                        // an empty statement
        kDomain + header + "\nURI: not the uri\n\n" + fields,        // a statement that looks like a field
        "https://" + std::string(kDomain) + header + "\n\n" + fields,
        "[::1]:8080" + header + "\n\n" + fields,
        "user:pw@127.0.0.1:3000" + header + "\n\n" + fields,
        kDomain + header + "\nHi!\n\n" + fields + "\nExpiration Time: 2026-11-22T10:10:00.5+00:00" +
            "\nNot Before: 2026-11-22T09:00:00-01:00\nRequest ID: \nResources:\n- https://[2001:db8::7]/r?q=1#f" +
            "\n- mailto:someone@example.org\n- urn:isbn:0451450523",
        kDomain + header + "\n\n" + fields + "\nResources:",
    };
    json parse_requests = json::array();
    for (const auto& text : texts) parse_requests.push_back({{"parse", text}});
    const auto opinions = wallet(parse_requests);
    for (std::size_t i = 0; i < std::size(texts); ++i) {
        INFO(texts[i] << "\n" << opinions[i].dump());
        REQUIRE(opinions[i]["ok"].get<bool>());
        const auto m = parse_siwe_message(texts[i]);
        CHECK(m.address.checksummed() == opinions[i]["fields"]["address"].get<std::string>());
        check_fields(m, opinions[i]["fields"]);
    }
}
