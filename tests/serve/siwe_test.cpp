// Wallet login (Sign-In with Ethereum, EIP-4361) against a real `abcictl
// serve`, with messages built and signed by the real `siwe` and `ethers` npm
// packages (tests/support/js/siwe_wallet.mjs): the wallet client is not ours.

#include <cctype>
#include <ctime>

#include "core/os/process.hpp"
#include "serve/expect.hpp"
#include "support/anvil.hpp"
#include "support/tools.hpp"

namespace abci::test {
namespace {

// Seconds from now as RFC 3339 UTC ("2025-01-01T00:00:00Z").
std::string iso_in(std::int64_t seconds) {
    const std::time_t t = std::time(nullptr) + seconds;
    std::tm utc{};
    ::gmtime_r(&t, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

// Signs every request with the real wallet client, in one node run.
nlohmann::json wallet_sign(const nlohmann::json& requests) {
    const auto r = os::run_command({"node", source_path("tests/support/js/siwe_wallet.mjs")}, requests.dump());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto signed_messages = nlohmann::json::parse(r.out);
    REQUIRE(signed_messages.size() == requests.size());
    return signed_messages;
}

nlohmann::json connect_body(const nlohmann::json& signed_message) {
    return {{"address", signed_message["address"]},
            {"signature", signed_message["signature"]},
            {"message", signed_message["message"]}};
}

std::string fresh_nonce(const Http& http) {
    const auto r = http.get("/api/auth/wallet-nonce");
    INFO(r.body);
    REQUIRE(r.status == 200);
    return r.json["nonce"].get<std::string>();
}

std::string lower(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

const std::string kWalletConfig = "[auth.wallet]\nchainIds = [31337]\n";

}  // namespace

TEST_CASE("wallet login with SIWE messages signed by the real siwe and ethers packages", "[serve][siwe]") {
    Server server({.config = kWalletConfig});
    const auto http = server.http();
    const auto& accounts = Anvil::dev_accounts();
    const auto& linked = accounts[0];
    const auto& stranger = accounts[1];
    server.add_user("grower@example.org", "farmer", "grower pass phrase 1");
    server.link_wallet("grower@example.org", linked.address);

    const auto nonce_reply = http.get("/api/auth/wallet-nonce");
    INFO(nonce_reply.body);
    REQUIRE(nonce_reply.status == 200);
    CHECK(nonce_reply.json["success"] == true);
    CHECK(nonce_reply.json["domain"] == server.host());
    CHECK(nonce_reply.json["uri"] == server.url());
    CHECK(nonce_reply.json["chainIds"] == nlohmann::json::array({31337}));
    CHECK(nonce_reply.json["expiresAt"].is_string());
    const auto nonce = nonce_reply.json["nonce"].get<std::string>();
    CHECK(nonce.size() >= 8);
    CHECK(fresh_nonce(http) != nonce);

    // One request per case; each (but the first two) with a nonce of its own.
    const auto request = [&](const std::string& key, std::string case_nonce) {
        return nlohmann::json{{"privateKey", key},       {"domain", server.host()},
                              {"uri", server.url()},     {"chainId", 31337},
                              {"nonce", std::move(case_nonce)}, {"issuedAt", iso_in(0)},
                              {"statement", "Sign in to ABCI"}};
    };
    nlohmann::json requests = nlohmann::json::array();
    requests.push_back(request(linked.private_key, nonce));  // 0: the good one
    auto r = request(linked.private_key, fresh_nonce(http));
    r["domain"] = "evil.example.net";
    requests.push_back(r);  // 1: another site's message
    r = request(linked.private_key, fresh_nonce(http));
    r["chainId"] = 1;
    requests.push_back(r);  // 2: a chain the server does not serve
    r = request(linked.private_key, fresh_nonce(http));
    r["issuedAt"] = iso_in(-300);
    r["expirationTime"] = iso_in(-60);
    requests.push_back(r);  // 3: expired
    r = request(linked.private_key, fresh_nonce(http));
    r["notBefore"] = iso_in(3600);
    requests.push_back(r);  // 4: not yet valid
    r = request(linked.private_key, fresh_nonce(http));
    r["signerKey"] = stranger.private_key;
    requests.push_back(r);  // 5: signed by someone else
    requests.push_back(request(stranger.private_key, fresh_nonce(http)));  // 6: a wallet linked to nobody
    requests.push_back(request(linked.private_key, "madeUpNonce12345"));   // 7: a nonce the server never issued
    r = request(linked.private_key, fresh_nonce(http));
    r["uri"] = "http://evil.example.net/login";
    requests.push_back(r);  // 8: another site's URI
    const auto tamper_nonce = fresh_nonce(http);
    requests.push_back(request(linked.private_key, tamper_nonce));  // 9: to be tampered with
    r = request(linked.private_key, fresh_nonce(http));
    r["issuedAt"] = iso_in(-3 * 3600);
    requests.push_back(r);  // 10: issued long ago, no expiry
    const auto signed_messages = wallet_sign(requests);
    const auto connect = [&](const nlohmann::json& body) { return http.post("/api/auth/wallet-connect", body); };

    // The good one logs in the user the wallet is linked to; the response is the spec's.
    const auto good = connect(connect_body(signed_messages[0]));
    const auto session = require_login_response(good, "grower@example.org", "farmer");
    const auto me = http.get("/api/auth/me", session.token);
    REQUIRE(me.status == 200);
    CHECK(me.json["user"]["wallets"] == nlohmann::json::array({lower(linked.address)}));

    // The same message again: its nonce is spent.
    require_unauthorized(connect(connect_body(signed_messages[0])), "INVALID_CREDENTIALS");

    for (const auto& [index, what] : std::vector<std::pair<int, const char*>>{{1, "wrong domain"},
                                                                              {2, "wrong chain id"},
                                                                              {3, "expired"},
                                                                              {4, "not before"},
                                                                              {5, "signed by another key"},
                                                                              {6, "unlinked wallet"},
                                                                              {7, "unknown nonce"},
                                                                              {8, "wrong uri"},
                                                                              {10, "stale issued-at"}}) {
        INFO(what);
        require_unauthorized(connect(connect_body(signed_messages[index])), "INVALID_CREDENTIALS");
    }

    // Tampering: the signature, the message, the claimed address.
    const auto& original = signed_messages[9];
    {
        auto body = connect_body(original);
        auto signature = body["signature"].get<std::string>();
        signature[10] = signature[10] == 'a' ? 'b' : 'a';  // inside r
        body["signature"] = signature;
        require_unauthorized(connect(body), "INVALID_CREDENTIALS");
    }
    {
        auto body = connect_body(original);
        auto message = body["message"].get<std::string>();
        const auto at = message.find("Sign in to ABCI");
        REQUIRE(at != std::string::npos);
        message.replace(at, 15, "Sign in to ABCJ");
        body["message"] = message;
        require_unauthorized(connect(body), "INVALID_CREDENTIALS");
    }
    {
        auto body = connect_body(original);
        body["address"] = stranger.address;
        require_unauthorized(connect(body), "INVALID_CREDENTIALS");
    }
    // … and after all that the untampered original still logs in (failed attempts spent nothing of it).
    require_login_response(connect(connect_body(original)), "grower@example.org", "farmer");

    // Malformed input is a 400, not a 401 or a 500.
    require_invalid_request(connect({{"address", linked.address}, {"signature", "0x1234"},
                                     {"message", signed_messages[6]["message"]}}));
    require_invalid_request(connect({{"address", linked.address}}));
    const auto garbage = connect({{"address", linked.address},
                                  {"signature", signed_messages[6]["signature"]},
                                  {"message", "hello, I am definitely a SIWE message"}});
    require_invalid_request(garbage);  // not a SIWE message at all: malformed input, not a failed login

    require_log_free_of(server, {session.token, session.refresh_token});
}

TEST_CASE("wallet login: an unknown wallet registers as a farmer only when autoRegister is on", "[serve][siwe]") {
    Server server({.config = kWalletConfig + "autoRegister = true\n"});
    const auto http = server.http();
    const auto& wallet = Anvil::dev_accounts()[2];
    nlohmann::json requests = nlohmann::json::array();
    for (int i = 0; i < 2; ++i)
        requests.push_back({{"privateKey", wallet.private_key}, {"domain", server.host()}, {"uri", server.url()},
                            {"chainId", 31337}, {"nonce", fresh_nonce(http)}, {"issuedAt", iso_in(0)}});
    const auto signed_messages = wallet_sign(requests);
    const auto first = http.post("/api/auth/wallet-connect", connect_body(signed_messages[0]));
    INFO(first.body);
    REQUIRE(first.status == 200);
    CHECK(first.json["user"]["role"] == "farmer");
    const auto second = http.post("/api/auth/wallet-connect", connect_body(signed_messages[1]));
    REQUIRE(second.status == 200);
    CHECK(second.json["user"]["id"] == first.json["user"]["id"]);
}

// A server without [auth.wallet] serves no wallet sign-in: a well-formed,
// well-signed message is answered as the nonce route is (404), never 500.
TEST_CASE("wallet login: while it is off, wallet-connect answers the 404 of wallet-nonce", "[serve][siwe]") {
    Server server;
    const auto http = server.http();
    const auto& wallet = Anvil::dev_accounts()[3];
    server.add_user("off@example.org", "farmer", "wallet off pass 12");
    server.link_wallet("off@example.org", wallet.address);
    const auto nonce = http.get("/api/auth/wallet-nonce");
    INFO(nonce.body);
    require_error(nonce, 404, "not_found");

    const auto signed_messages = wallet_sign(nlohmann::json::array(
        {{{"privateKey", wallet.private_key}, {"domain", server.host()}, {"uri", server.url()}, {"chainId", 31337},
          {"nonce", "walletOffNonce123"}, {"issuedAt", iso_in(0)}}}));
    const auto connect = http.post("/api/auth/wallet-connect", connect_body(signed_messages[0]));
    INFO(connect.body);
    require_error(connect, 404, "not_found");
    CHECK(connect.json == nonce.json);
}

}  // namespace abci::test
