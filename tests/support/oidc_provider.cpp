#include "support/oidc_provider.hpp"

#include <httplib.h>

#include <catch2/catch.hpp>
#include <exception>
#include <iostream>
#include <map>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/rpc/url.hpp"
#include "support/tools.hpp"

namespace abci::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// The browser's cookie store, reduced to what following one provider's
// redirects needs: name, value and path (RFC 6265 path matching).
class CookieJar {
public:
    void take(const httplib::Response& res) {
        const auto n = res.get_header_value_count("Set-Cookie");
        for (std::size_t i = 0; i < n; ++i) take(res.get_header_value("Set-Cookie", i));
    }

    // The Cookie header for a request to `target` (path and query).
    [[nodiscard]] std::string header_for(const std::string& target) const {
        const auto path = target.substr(0, target.find('?'));
        std::string header;
        for (const auto& [key, value] : cookies_) {
            const auto& cookie_path = key.first;
            const bool match = path == cookie_path || (path.rfind(cookie_path, 0) == 0 &&
                                                       (cookie_path.back() == '/' || path[cookie_path.size()] == '/'));
            if (!match) continue;
            if (!header.empty()) header += "; ";
            header += key.second + "=" + value;
        }
        return header;
    }

private:
    void take(const std::string& set_cookie) {
        const auto eq = set_cookie.find('=');
        const auto end = set_cookie.find(';');
        if (eq == std::string::npos || eq > end) return;
        const auto name = set_cookie.substr(0, eq);
        const auto value = set_cookie.substr(eq + 1, end == std::string::npos ? end : end - eq - 1);
        std::string path = "/";
        if (const auto at = set_cookie.find("; path="); at != std::string::npos) {
            const auto from = at + 7;
            path = set_cookie.substr(from, set_cookie.find(';', from) - from);
        }
        // Clearing a cookie sets it empty (and expired).
        if (value.empty())
            cookies_.erase({path, name});
        else
            cookies_[{path, name}] = value;
    }

    std::map<std::pair<std::string, std::string>, std::string> cookies_;  // (path, name) → value
};

const char* key_name(OidcProvider::SigningKey key) {
    using K = OidcProvider::SigningKey;
    switch (key) {
        case K::rsa: return "rsa";
        case K::ec: return "ec";
        case K::encryption_rsa: return "encryption-rsa";
        case K::stranger_rsa: return "stranger-rsa";
        case K::stranger_ec: return "stranger-ec";
        case K::hmac_rsa_public: return "hmac-rsa-public";
        case K::none: return "none";
    }
    return "";
}

}  // namespace

std::vector<OidcProvider::Client> OidcProvider::default_clients() {
    return {{.id = "rs-client", .secret = "rs-client-secret-1f9d", .id_token_alg = "RS256"},
            {.id = "es-client", .secret = "es-client-secret-83c2", .id_token_alg = "ES256"},
            {.id = "public-client", .secret = "", .id_token_alg = "ES256"}};
}

OidcProvider::OidcProvider(Options options) : options_(std::move(options)), log_path_(dir_ / "oidc-provider.log") {
    // The port is free when picked but may be taken before node binds it.
    for (int tries = 0; tries < 3; ++tries) {
        port_ = os::free_loopback_port();
        if (launch()) return;
    }
    throw Error(ErrorKind::unavailable, "oidc-provider did not start; log:\n" + log_tail());
}

OidcProvider::~OidcProvider() {
    stop();
    if (std::uncaught_exceptions() > 0)
        std::cerr << "---- oidc-provider on port " << port_ << ", last lines of its log ----\n"
                  << log_tail() << "---- end of oidc-provider log ----\n";
}

bool OidcProvider::launch() {
    json clients = json::array();
    for (const auto& c : options_.clients) {
        json client{{"client_id", c.id}, {"redirect_uris", c.redirect_uris}, {"alg", c.id_token_alg}};
        if (!c.secret.empty()) client["client_secret"] = c.secret;
        clients.push_back(std::move(client));
    }
    const json config{{"port", port_},
                      {"issuer", issuer()},
                      {"user", {{"sub", options_.user.sub}, {"email", options_.user.email}}},
                      {"clients", std::move(clients)}};
    process_.emplace(std::vector<std::string>{"node", source_path("tests/support/js/oidc_provider.mjs"), config.dump()},
                     log_path_);
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
        if (!process_->running()) return false;
        if (os::wait_for_port(port_, 100ms)) return true;
    }
    process_->stop();
    return false;
}

std::string OidcProvider::issuer() const { return "http://127.0.0.1:" + std::to_string(port_); }

const OidcProvider::Client& OidcProvider::client(const std::string& id) const {
    for (const auto& c : options_.clients)
        if (c.id == id) return c;
    FAIL("the OIDC provider fixture has no client " << id);
    throw std::logic_error("not reached: FAIL throws");
}

auth::OidcProviderSettings OidcProvider::settings_for(const std::string& id) const {
    const auto& c = client(id);
    auth::OidcProviderSettings s;
    s.issuer = issuer();
    s.client_id = c.id;
    s.client_secret = c.secret;
    s.redirect_uri = c.redirect_uris.front();
    s.http_timeout = std::chrono::seconds(5);
    return s;
}

std::string OidcProvider::authorize(const std::string& authorization_url) const {
    const auto provider_origin = rpc::parse_url(issuer()).origin();
    CookieJar jar;
    std::string url = authorization_url;
    for (int hop = 0; hop < 10; ++hop) {
        const auto parsed = rpc::parse_url(url);
        if (parsed.origin() != provider_origin) return url;
        httplib::Client http(parsed.origin());
        http.set_read_timeout(5s);
        httplib::Headers headers;
        if (auto cookie = jar.header_for(parsed.target); !cookie.empty()) headers.emplace("Cookie", cookie);
        auto res = http.Get(parsed.target, headers);
        if (!res) throw Error(ErrorKind::unavailable, "oidc-provider: GET " + url + ": " + httplib::to_string(res.error()));
        jar.take(*res);
        const auto location = res->get_header_value("Location");
        if (res->status / 100 != 3 || location.empty())
            throw Error(ErrorKind::internal,
                        "oidc-provider answered GET " + url + " with HTTP " + std::to_string(res->status) + ": " + res->body);
        url = location.rfind("http://", 0) == 0 || location.rfind("https://", 0) == 0 ? location
                                                                                      : parsed.origin() + location;
    }
    throw Error(ErrorKind::internal, "oidc-provider: more than 10 redirects from " + authorization_url);
}

std::string OidcProvider::issue_id_token(const std::string& id, const std::string& nonce) const {
    const auto& c = client(id);
    const auto verifier = crypto::random_token(32);
    const httplib::Params query{{"response_type", "code"},
                                {"client_id", c.id},
                                {"redirect_uri", c.redirect_uris.front()},
                                {"scope", "openid email profile"},
                                {"state", crypto::random_token(16)},
                                {"nonce", nonce},
                                {"code_challenge", crypto::base64url_encode(crypto::sha256(eth::as_bytes(verifier)))},
                                {"code_challenge_method", "S256"}};
    const auto redirected = authorize(issuer() + httplib::append_query_params("/auth", query));
    const auto code = query_param(redirected, "code");
    INFO("authorization ended at " << redirected);
    REQUIRE(code);

    httplib::Client http(issuer());
    http.set_read_timeout(5s);
    httplib::Params form{{"grant_type", "authorization_code"},
                         {"code", *code},
                         {"redirect_uri", c.redirect_uris.front()},
                         {"code_verifier", verifier}};
    if (c.secret.empty())
        form.emplace("client_id", c.id);
    else
        http.set_basic_auth(c.id, c.secret);
    auto res = http.Post("/token", form);
    REQUIRE(res);
    INFO("token endpoint answered " << res->status << ": " << res->body);
    REQUIRE(res->status == 200);
    return json::parse(res->body).at("id_token").get<std::string>();
}

std::string OidcProvider::sign(const json& header, const json& payload, SigningKey key) const {
    httplib::Client http(issuer());
    auto res = http.Post("/test/sign", json{{"header", header}, {"payload", payload}, {"key", key_name(key)}}.dump(),
                         "application/json");
    REQUIRE(res);
    INFO("/test/sign answered " << res->body);
    REQUIRE(res->status == 200);
    return res->body;
}

json OidcProvider::get_json(const std::string& path) const {
    httplib::Client http(issuer());
    auto res = http.Get(path);
    REQUIRE(res);
    INFO(path << " answered " << res->body);
    REQUIRE(res->status == 200);
    return json::parse(res->body);
}

std::string OidcProvider::kid(SigningKey key) const {
    REQUIRE((key == SigningKey::rsa || key == SigningKey::ec));
    return get_json("/test/keys").at(key == SigningKey::rsa ? "rsa_kid" : "ec_kid").get<std::string>();
}

int OidcProvider::jwks_requests() const { return get_json("/test/stats").at("jwks_requests").get<int>(); }

void OidcProvider::stop() noexcept {
    if (process_) process_->stop();
}

std::string OidcProvider::log_tail(std::size_t lines) const {
    return file_tail(log_path_, lines);
}

std::optional<std::string> query_param(const std::string& url, const std::string& name) {
    const auto q = url.find('?');
    if (q == std::string::npos) return std::nullopt;
    httplib::Params params;
    httplib::detail::parse_query_text(url.substr(q + 1, url.find('#', q) - q - 1), params);
    const auto it = params.find(name);
    if (it == params.end()) return std::nullopt;
    return it->second;
}

}  // namespace abci::test
