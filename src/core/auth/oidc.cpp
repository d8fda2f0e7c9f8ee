#include "core/auth/oidc.hpp"

#include <httplib.h>
#include <openssl/err.h>

#include <set>

#include <nlohmann/json.hpp>

#include "core/auth/jose.hpp"
#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/eth/bytes.hpp"
#include "core/eth/wipe.hpp"
#include "core/rpc/http_transport.hpp"
#include "core/rpc/url.hpp"
#include "core/util/json_members.hpp"

namespace abci::auth {
namespace {

using nlohmann::json;
using MonotonicClock = std::chrono::steady_clock;

// An unknown kid may mean the provider rotated its keys, so it triggers a
// JWKS refetch, but an attacker can send any kid: refetch at most once per
// kid and at most this often, so forged tokens cannot make us hammer the provider.
constexpr auto kJwksRefetchInterval = std::chrono::seconds(10);
constexpr std::size_t kMaxRefetchKids = 1024;
// Real ID tokens are a few KiB; anything far larger is not worth decoding.
constexpr std::size_t kMaxIdTokenSize = 16 * 1024;
// Claims such as "address" nest; deeper than this is no ID token.
constexpr std::size_t kMaxIdTokenDepth = 16;
using jose::Alg;
using jose::optional_string;
[[noreturn]] void refuse(const std::string& why) {
    ERR_clear_error();  // leave no OpenSSL errors behind for unrelated code to trip over
    throw Error(ErrorKind::unauthenticated, "ID token refused: " + why);
}

[[noreturn]] void unavailable(const std::string& why) { throw Error(ErrorKind::unavailable, "OpenID provider: " + why); }

// ---- HTTP -----------------------------------------------------------------

// RFC 3986 percent-encoding of everything but the unreserved characters,
// which is also valid application/x-www-form-urlencoded.
std::string percent_encode(std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                                c == '-' || c == '.' || c == '_' || c == '~';
        if (unreserved) {
            out += ch;
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        }
    }
    return out;
}

std::string form_encode(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
    std::string out;
    for (const auto& [name, value] : fields) {
        if (!out.empty()) out += '&';
        out += percent_encode(name) + "=" + percent_encode(value);
    }
    return out;
}

// One request to `url` within `timeout`, made by rpc's transport (whose
// failures say unavailable or timeout); any HTTP status is an answer.
httplib::Response http_exchange(const std::string& url, std::chrono::seconds timeout, httplib::Request& request) {
    const auto parsed = rpc::parse_url(url);
    const auto client = rpc::make_http_client(parsed, {timeout, timeout});
    request.path = parsed.target;
    return rpc::send_or_throw(*client, request, timeout, "OpenID provider: " + rpc::mask_url(url));
}

// GET of a document (discovery, JWKS): its body. Error(unavailable) unless
// the answer is 200.
std::string get_document(const std::string& url, std::chrono::seconds timeout) {
    httplib::Request request;
    request.method = "GET";
    request.set_header("Accept", "application/json");
    auto answer = http_exchange(url, timeout, request);
    if (answer.status != 200) unavailable(rpc::mask_url(url) + ": HTTP " + std::to_string(answer.status));
    return std::move(answer.body);
}

// A document's text as a JSON object; Error(unavailable) naming `what` otherwise.
json json_object(std::string_view text, const std::string& what) {
    auto doc = json::parse(text, nullptr, false);
    if (!doc.is_object()) unavailable(what + ": the answer is not a JSON object");
    return doc;
}

std::vector<jose::Jwk> parse_jwks(const json& doc) {
    const auto keys = doc.find("keys");
    if (keys == doc.end() || !keys->is_array()) unavailable("the JWKS has no \"keys\" array");
    std::vector<jose::Jwk> out;
    for (const auto& entry : *keys)
        if (entry.is_object()) out.push_back(jose::parse_jwk(entry));
    return out;
}

// A JWS part (header or payload) as a JSON object, read strictly.
json decode_part(std::string_view part, const char* what) {
    try {
        return jose::decode_object(part, what, kMaxIdTokenDepth);
    } catch (const Error& e) {
        refuse(e.what());  // jose's reason, worded as an ID token refusal
    }
}

// Seconds since the epoch in a time claim: a NumericDate, which may hold a
// fraction (RFC 7519 §2), so any JSON number.
double numeric_date(const util::RequiredMembers& claims, std::string_view name) {
    const auto& value = claims.any(name);
    if (!value.is_number()) throw claims.refusal(name, "is no number");
    return value.get<double>();
}

// A claim OpenID Connect lets the provider leave out, of its type when there.
std::optional<std::string> optional_text(const util::RequiredMembers& claims, std::string_view name) {
    if (!claims.has(name)) return std::nullopt;
    return claims.text(name);
}

// Whether "aud" (one string or an array of strings, OIDC Core §2) names
// `client_id`, and how many audiences it names.
std::pair<bool, std::size_t> audience(const util::RequiredMembers& claims, const std::string& client_id) {
    const auto& aud = claims.any("aud");
    if (aud.is_string()) return {aud == client_id, 1};
    if (!aud.is_array()) throw claims.refusal("aud", "is neither a string nor an array of strings");
    bool ours = false;
    for (const auto& a : aud) {
        if (!a.is_string()) throw claims.refusal("aud", "holds a member that is no string");
        ours = ours || a == client_id;
    }
    return {ours, aud.size()};
}

const auto refuse_claim = [](const std::string& why) { refuse(why); };

}  // namespace

struct OidcClient::Endpoints {
    std::string authorization;
    std::string token;
    std::string jwks;
};

struct OidcClient::Cache {
    std::optional<Endpoints> endpoints;
    std::vector<jose::Jwk> keys;
    std::optional<MonotonicClock::time_point> fetched_at;  // of the JWKS
    std::set<std::string> refetched_for;          // kids that already caused a refetch

    void use_keys(std::string_view document, const std::string& what) {
        keys = parse_jwks(json_object(document, what));
        fetched_at = MonotonicClock::now();
    }

    void fetch_keys(const std::string& jwks_uri, std::chrono::seconds timeout) {
        use_keys(get_document(jwks_uri, timeout), rpc::mask_url(jwks_uri));
    }

    // The key for a token's header, fetching the JWKS when needed (see
    // kJwksRefetchInterval). Refuses the token when no key may verify it.
    std::shared_ptr<EVP_PKEY> key_for(const std::optional<std::string>& kid, Alg alg, const std::string& jwks_uri,
                                      std::chrono::seconds timeout) {
        if (!fetched_at) fetch_keys(jwks_uri, timeout);
        const auto find = [&]() -> const jose::Jwk* {
            if (kid) {
                for (const auto& k : keys)
                    if (k.kid == kid) return &k;
                return nullptr;
            }
            // No kid: acceptable when exactly one key could have signed it.
            const jose::Jwk* only = nullptr;
            for (const auto& k : keys) {
                if (k.objection(alg)) continue;
                if (only) refuse("it names no \"kid\" and several keys fit " + std::string(jose::name(alg)));
                only = &k;
            }
            return only;
        };
        const jose::Jwk* jwk = find();
        if (!jwk && kid && !refetched_for.contains(*kid) && MonotonicClock::now() - *fetched_at >= kJwksRefetchInterval) {
            if (refetched_for.size() >= kMaxRefetchKids) refetched_for.clear();
            refetched_for.insert(*kid);
            fetch_keys(jwks_uri, timeout);
            jwk = find();
        }
        if (!jwk) refuse(kid ? "no key with kid \"" + *kid + "\" in the provider's JWKS"
                             : "no key in the provider's JWKS fits " + std::string(jose::name(alg)));
        if (auto why = jwk->objection(alg)) refuse("key \"" + jwk->kid.value_or("") + "\": " + *why);
        return jwk->key;
    }
};

OidcClient::OidcClient(OidcProviderSettings settings) : settings_(std::move(settings)), cache_(std::make_unique<Cache>()) {
    if (settings_.issuer.empty() || settings_.client_id.empty() || settings_.redirect_uri.empty())
        throw Error(ErrorKind::invalid_input, "OpenID provider \"" + settings_.name +
                                                  "\": issuer, client_id and redirect_uri are required");
    for (const auto* url : {&settings_.issuer, &settings_.redirect_uri, &settings_.authorization_endpoint,
                            &settings_.token_endpoint, &settings_.jwks_uri})
        if (!url->empty()) (void)rpc::parse_url(*url);
}

OidcClient::~OidcClient() = default;

OidcClient::Endpoints OidcClient::endpoints() {
    std::lock_guard lock(mutex_);
    if (cache_->endpoints) return *cache_->endpoints;
    if (settings_.authorization_endpoint.empty() || settings_.token_endpoint.empty() || settings_.jwks_uri.empty()) {
        // OpenID Connect Discovery 1.0 §4: the issuer without its trailing slash.
        auto base = settings_.issuer;
        if (base.ends_with('/')) base.pop_back();
        const auto url = base + "/.well-known/openid-configuration";
        cache_->endpoints = discovered(get_document(url, settings_.http_timeout), rpc::mask_url(url));
    } else {
        cache_->endpoints = Endpoints{settings_.authorization_endpoint, settings_.token_endpoint, settings_.jwks_uri};
    }
    return *cache_->endpoints;
}

OidcClient::Endpoints OidcClient::discovered(std::string_view document, const std::string& what) const {
    const auto doc = json_object(document, what);
    Endpoints e{settings_.authorization_endpoint, settings_.token_endpoint, settings_.jwks_uri};
    const auto bad = [](const std::string& why) { unavailable("discovery: " + why); };
    // A document for another issuer would have us trust that issuer's keys.
    if (optional_string(doc, "issuer", bad) != settings_.issuer)
        unavailable("discovery: the document is for issuer " + doc.value("issuer", json()).dump() +
                    ", not the configured " + settings_.issuer);
    for (auto [field, key] : {std::pair{&e.authorization, "authorization_endpoint"},
                              std::pair{&e.token, "token_endpoint"}, std::pair{&e.jwks, "jwks_uri"}}) {
        if (!field->empty()) continue;
        *field = optional_string(doc, key, bad).value_or("");
        if (field->empty()) bad(std::string("no ") + key);
        try {
            (void)rpc::parse_url(*field);
        } catch (const Error&) {
            bad(std::string(key) + " is not an http(s) URL");
        }
    }
    return e;
}

void OidcClient::use_discovery(std::string_view document) {
    auto e = discovered(document, "discovery document");
    std::lock_guard lock(mutex_);
    cache_->endpoints = std::move(e);
}

void OidcClient::use_jwks(std::string_view document) {
    std::lock_guard lock(mutex_);
    cache_->use_keys(document, "JWKS");
}

AuthorizationRequest OidcClient::begin() {
    const auto e = endpoints();
    AuthorizationRequest request;
    request.state = crypto::random_token(32);
    request.nonce = crypto::random_token(32);
    request.code_verifier = crypto::random_token(32);
    const auto challenge = crypto::base64url_encode(crypto::sha256(eth::as_bytes(request.code_verifier)));
    std::string scope;
    for (const auto& s : settings_.scopes) scope += (scope.empty() ? "" : " ") + s;
    request.url = e.authorization + (e.authorization.find('?') == std::string::npos ? '?' : '&') +
                  form_encode({{"response_type", "code"},
                               {"client_id", settings_.client_id},
                               {"redirect_uri", settings_.redirect_uri},
                               {"scope", scope},
                               {"state", request.state},
                               {"nonce", request.nonce},
                               {"code_challenge", challenge},
                               {"code_challenge_method", "S256"}});
    return request;
}

IdTokenClaims OidcClient::exchange_code(const std::string& code, const std::string& code_verifier,
                                        const std::string& expected_nonce) {
    const auto e = endpoints();
    std::string body = form_encode({{"grant_type", "authorization_code"},
                                    {"code", code},
                                    {"redirect_uri", settings_.redirect_uri},
                                    {"code_verifier", code_verifier},
                                    {"client_id", settings_.client_id}});
    const eth::WipeOnExit wipe_body(body);
    std::string credentials;
    const eth::WipeOnExit wipe_credentials(credentials);
    std::string authorization;
    const eth::WipeOnExit wipe_authorization(authorization);
    if (!settings_.client_secret.empty()) {
        // RFC 6749 §2.3.1: id and secret are form-encoded before base64.
        credentials = percent_encode(settings_.client_id) + ":" + percent_encode(settings_.client_secret);
        authorization = "Basic " + crypto::base64_encode(eth::as_bytes(credentials));
    }
    httplib::Request request;
    request.method = "POST";
    request.set_header("Accept", "application/json");
    if (!authorization.empty()) request.set_header("Authorization", authorization);
    request.set_header("Content-Type", "application/x-www-form-urlencoded");
    request.body = body;
    const eth::WipeOnExit wipe_request_body(request.body);
    const auto answer = http_exchange(e.token, settings_.http_timeout, request);

    const auto doc = json::parse(answer.body, nullptr, false);
    if (answer.status >= 500) unavailable("token endpoint: HTTP " + std::to_string(answer.status));
    if (answer.status != 200) {
        const auto error = doc.is_object() ? doc.value("error", json()).dump() : "no JSON error";
        throw Error(ErrorKind::unauthenticated,
                    "the OpenID provider refused the code: HTTP " + std::to_string(answer.status) + " " + error);
    }
    if (!doc.is_object() || !doc.contains("id_token") || !doc["id_token"].is_string())
        throw Error(ErrorKind::unauthenticated, "the OpenID provider's token answer has no id_token");
    return verify_id_token(doc["id_token"].get<std::string>(), expected_nonce);
}

IdTokenClaims OidcClient::verify_id_token(std::string_view id_token,
                                          const std::optional<std::string>& expected_nonce) {
    if (id_token.size() > kMaxIdTokenSize) refuse("it is longer than " + std::to_string(kMaxIdTokenSize) + " bytes");
    const auto jws = jose::split(id_token);
    if (!jws) refuse("it is not a compact JWS (three dot-separated parts)");
    const auto header = decode_part(jws->header, "header");

    const auto alg_name = optional_string(header, "alg", refuse_claim).value_or("");
    // Only asymmetric algorithms: "none" is no signature, and HS256 with a
    // public key as its secret is the classic forgery.
    if (alg_name != "RS256" && alg_name != "ES256") refuse("alg \"" + alg_name + "\" is not accepted");
    const auto alg = alg_name == "RS256" ? Alg::rs256 : Alg::es256;
    if (header.contains("crit")) refuse("it has critical header extensions");
    const auto kid = optional_string(header, "kid", refuse_claim);

    std::shared_ptr<EVP_PKEY> key;
    {
        const auto jwks_uri = endpoints().jwks;
        std::lock_guard lock(mutex_);
        key = cache_->key_for(kid, alg, jwks_uri, settings_.http_timeout);
    }
    bool valid = false;
    try {
        valid = jose::signature_valid(key.get(), alg, jws->signing_input, jws->signature);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::unauthenticated) throw;
        refuse(e.what());
    }
    if (!valid) refuse("the signature does not verify");

    // Signed by the provider: now its claims mean something.
    const auto payload = decode_part(jws->payload, "payload");
    const util::RequiredMembers claims(payload, ErrorKind::unauthenticated, "ID token refused");
    if (claims.text("iss") != settings_.issuer) refuse("\"iss\" is not the configured issuer");

    const auto [ours, audiences] = audience(claims, settings_.client_id);
    if (!ours) refuse("\"aud\" does not contain this client");
    const auto azp = optional_text(claims, "azp");
    if ((audiences > 1 || azp) && azp != settings_.client_id) refuse("\"azp\" is not this client");

    const auto now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const auto leeway = static_cast<double>(settings_.leeway.count());
    if (now > numeric_date(claims, "exp") + leeway) refuse("it has expired");
    if (numeric_date(claims, "iat") > now + leeway) refuse("it was issued in the future");
    if (claims.has("nbf") && numeric_date(claims, "nbf") > now + leeway) refuse("it is not valid yet");

    if (expected_nonce &&
        !crypto::constant_time_equal(eth::as_bytes(claims.text("nonce")), eth::as_bytes(*expected_nonce)))
        refuse("\"nonce\" does not match");

    IdTokenClaims out;
    out.issuer = settings_.issuer;
    out.subject = claims.nonempty_text("sub");
    if (out.subject.size() > 255) throw claims.refusal("sub", "is longer than 255 characters");
    out.email = optional_text(claims, "email").value_or("");
    if (claims.has("email_verified")) {
        const auto& verified = claims.any("email_verified");
        if (!verified.is_boolean()) throw claims.refusal("email_verified", "is no boolean");
        out.email_verified = verified.get<bool>();
    }
    return out;
}

}  // namespace abci::auth
