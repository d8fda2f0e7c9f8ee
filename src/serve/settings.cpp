// The server's settings in one file, over 500 lines on purpose: the table of
// every setting (file key, environment variable, flag, default, check) and
// the code that reads it from the file, the environment and the command line
// are one thing, and suggestions, help and the man page come from the table.
#include "serve/settings.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "core/service/database_url.hpp"
#include "core/service/devnet_key.hpp"
#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/rpc/url.hpp"
#include "core/store/data_dir.hpp"
#include "core/util/shell_command.hpp"
#include "core/util/suggest.hpp"

extern char** environ;

namespace abci::serve {

namespace {

Error bad_setting(const std::string& where, const std::string& why) {
    return Error(ErrorKind::invalid_input, where + ": " + why);
}

/// `[server] publicUrl` as the document's servers entry takes it: an http(s)
/// URL, its path kept (a reverse proxy's prefix) without a trailing '/' (every
/// path of the document begins with one). No credentials, query or fragment:
/// nothing a client could append a path to.
std::string parse_public_url(const std::string& text, const std::string& where) {
    // Not repeating the value: it may hold credentials.
    const auto refused = [&] {
        return bad_setting(where, "must be http(s)://host[:port][/path], without credentials, query or fragment");
    };
    rpc::Url url;
    try {
        url = rpc::parse_url(text);
    } catch (const Error&) {
        throw refused();  // its message speaks of an RPC URL
    }
    if (!url.user.empty() || text.find_first_of("?#") != std::string::npos) throw refused();
    auto kept = text;
    while (kept.ends_with('/')) kept.pop_back();
    return kept;
}

/// Splits "host:port" ("[v6]:port" too) into `host` and `port`. Error naming `where` when malformed.
void parse_host_port(const std::string& text, const std::string& where, std::string& host_out, std::uint16_t& port_out) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) throw bad_setting(where, "'" + text + "' is not host:port");
    auto host = text.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    unsigned port = 0;
    const auto digits = std::string_view(text).substr(colon + 1);
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || port > 65535)
        throw bad_setting(where, "'" + text + "' has no valid port");
    host_out = host;
    port_out = static_cast<std::uint16_t>(port);
}

void parse_listen(const std::string& text, const std::string& where, Settings& settings) {
    parse_host_port(text, where, settings.listen_host, settings.listen_port);
}

bool is_loopback(const std::string& host) {
    return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

std::string host_port(const std::string& host, std::uint16_t port) {
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

/// One setting's value as given: a TOML node of the config file, or the text
/// of an environment variable or flag. Each reader states the type it wants;
/// a value of another type is an error naming where it came from.
class Value {
public:
    Value(const toml::node& node, std::string where) : node_(&node), where_(std::move(where)) {}
    Value(std::string text, std::string where) : text_(std::move(text)), where_(std::move(where)) {}

    [[nodiscard]] const std::string& where() const noexcept { return where_; }

    [[nodiscard]] std::string string() const {
        if (!node_) return text_;
        if (!node_->is_string()) throw bad_setting(where_, "must be a string");
        return node_->value<std::string>().value();
    }
    [[nodiscard]] bool boolean() const {
        if (node_ ? node_->is_boolean() : text_ == "true" || text_ == "false")
            return node_ ? node_->value<bool>().value() : text_ == "true";
        throw bad_setting(where_, "must be true or false");
    }
    [[nodiscard]] std::int64_t integer(std::int64_t min, std::int64_t max) const {
        std::optional<std::int64_t> value;
        if (node_) {
            if (node_->is_integer()) value = node_->value<std::int64_t>();
        } else {
            std::int64_t parsed = 0;
            const auto [ptr, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), parsed);
            if (ec == std::errc() && ptr == text_.data() + text_.size()) value = parsed;
        }
        if (!value || *value < min || *value > max)
            throw bad_setting(where_, "must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
        return *value;
    }
    template <typename Duration>
    [[nodiscard]] Duration duration(std::int64_t min, std::int64_t max) const {
        return Duration(integer(min, max));
    }
    /// A TOML array of strings; in the environment, comma-separated.
    [[nodiscard]] std::vector<std::string> strings() const {
        std::vector<std::string> out;
        if (!node_) {
            std::istringstream items(text_);
            for (std::string item; std::getline(items, item, ',');)
                if (!item.empty()) out.push_back(item);
            return out;
        }
        const auto* array = node_->as_array();
        if (!array) throw bad_setting(where_, "must be an array of strings");
        for (const auto& item : *array) {
            if (!item.is_string()) throw bad_setting(where_, "must be an array of strings");
            out.push_back(item.value<std::string>().value());
        }
        return out;
    }
    /// A TOML array of positive integers; in the environment, comma-separated.
    [[nodiscard]] std::vector<std::uint64_t> positive_integers() const {
        std::vector<std::uint64_t> out;
        if (!node_) {
            for (const auto& item : strings())
                out.push_back(static_cast<std::uint64_t>(Value(item, where_).integer(1, std::numeric_limits<std::int64_t>::max())));
            return out;
        }
        const auto* array = node_->as_array();
        if (!array) throw bad_setting(where_, "must be an array of integers");
        for (const auto& item : *array) {
            const auto value = item.value<std::int64_t>();
            if (!item.is_integer() || !value || *value <= 0) throw bad_setting(where_, "must be an array of positive integers");
            out.push_back(static_cast<std::uint64_t>(*value));
        }
        return out;
    }
    [[nodiscard]] limits::RateLimit rate() const { return limits::parse_rate_limit(string(), where_); }

private:
    const toml::node* node_ = nullptr;
    std::string text_;
    std::string where_;
};


// How --print-config shows a value: as TOML has it (JSON's strings and arrays are TOML's too).
std::string text(const std::string& value) { return nlohmann::json(value).dump(); }
std::string text(bool value) { return value ? "true" : "false"; }
std::string text(std::int64_t value) { return std::to_string(value); }
std::string text(const limits::RateLimit& rate) {
    return text(rate.enabled() ? std::to_string(rate.limit) + "/" + std::to_string(rate.window.count()) : "0");
}
template <typename T>
std::string text(const std::vector<T>& values) {
    return nlohmann::json(values).dump();
}

/// A row of the key table with what reads and shows it: `read` applies a
/// given value to the target (throwing what Value throws, naming where it
/// came from); `show` is the effective value, "" to show nothing.
template <typename Target>
struct Entry {
    SettingKey key;
    void (*read)(const Value&, Target&);
    std::string (*show)(const Target&);
};

auth::OidcProviderSettings& idp(Settings& s) {
    // [idp] in the file makes the provider (load_settings); its keys only reach it then.
    return *s.auth.idp;
}
/// The row of a string key of [idp].
template <std::string auth::OidcProviderSettings::*field>
Entry<Settings> idp_text(SettingKey key) {
    return {std::move(key), [](const Value& v, Settings& s) { idp(s).*field = v.string(); },
            [](const Settings& s) { return s.auth.idp ? text((*s.auth.idp).*field) : std::string(); }};
}

// ccache's k_config_key_table is the model: one row per setting. To add one,
// add its row here (and its field to Settings); the loader, the refusal of
// unknown keys, the man page and --print-config follow.
const std::vector<Entry<Settings>>& server_entries() {
    static const std::vector<Entry<Settings>> entries{
        {{"listen", "host:port", "ABCI_LISTEN", "127.0.0.1:8080", "The address to listen on (also --listen)."},
         [](const Value& v, Settings& s) { parse_listen(v.string(), v.where(), s); },
         [](const Settings& s) { return text(host_port(s.listen_host, s.listen_port)); }},
        {{"dataDir", "path", "ABCI_DATA_DIR", "$XDG_DATA_HOME/abcictl; with --devnet $XDG_STATE_HOME/abcictl/devnet",
          "The data directory: database, secrets, content (also --data-dir)."},
         [](const Value& v, Settings& s) { s.data_dir = v.string(); }, [](const Settings& s) { return text(s.data_dir); }},
        {{"domain", "host[:port]", "ABCI_DOMAIN", "the listen address",
          "The public host, the domain of Sign-In with Ethereum messages."},
         [](const Value& v, Settings& s) { s.domain = v.string(); }, [](const Settings& s) { return text(s.domain); }},
        {{"publicUrl", "URL", "ABCI_PUBLIC_URL", "http(s):// and the domain",
          "Where clients reach the API, with the path a reverse proxy serves it under (https://example.org/abci-api): the OpenAPI document's servers entry."},
         [](const Value& v, Settings& s) { s.public_url = parse_public_url(v.string(), v.where()); },
         [](const Settings& s) { return text(s.public_url); }},
        {{"trustedProxies", "array of strings", "", "[]",
          "Addresses of the TLS proxies in front, whose X-Forwarded-For is believed."},
         [](const Value& v, Settings& s) { s.trusted_proxies = v.strings(); },
         [](const Settings& s) { return text(s.trusted_proxies); }},
        {{"database.url", "URL", "ABCI_DATABASE_URL", "SQLite in the data directory",
          "The store's PostgreSQL database, which replicas share: postgresql://USER@HOST:PORT/DB, no password in it."},
         [](const Value& v, Settings& s) {
             s.database.url = v.string();
             if (const auto why = service::postgresql_url_objection(s.database.url, "database.passwordFile"))
                 throw bad_setting(v.where(), *why);
         },
         [](const Settings& s) { return text(s.database.url); }},
        {{"database.passwordFile", "path", "ABCI_DATABASE_PASSWORD_FILE", "libpq's: PGPASSFILE, else ~/.pgpass",
          "The database password (the file's first line); only with database.url."},
         [](const Value& v, Settings& s) { s.database.password_file = v.string(); },
         [](const Settings& s) { return text(s.database.password_file); }},
        {{"rate_limit.abci", "rate N/S, or 0", "ABCI_RATE_LIMIT", "10/60 (serve --devnet: 1000/60)",
          "Requests to /abci per caller (user, API key or client address) in S seconds; 0 turns the limit off."},
         [](const Value& v, Settings& s) { s.abci_rate = v.rate(); }, [](const Settings& s) { return text(s.abci_rate); }},
        {{"rate_limit.api", "rate N/S, or 0", "ABCI_API_RATE_LIMIT", "120/60", "The same for /api and /v1, per user."},
         [](const Value& v, Settings& s) { s.api_rate = v.rate(); }, [](const Settings& s) { return text(s.api_rate); }},
        {{"rate_limit.login", "rate N/S, or 0", "", "10/300",
          "Failed login attempts per account from one client address (a login that succeeds is not counted); five times as many per client address, and an account slowed down after five times as many failures from everywhere."},
         [](const Value& v, Settings& s) {
             const auto login = v.rate();
             s.auth.login_per_account_address = login;
             s.auth.login_per_address = limits::RateLimit{login.limit * 5, login.window};
             s.auth.login_account_backoff.threshold = login.limit * 5;
             s.auth.login_account_backoff.window = login.window;
         },
         [](const Settings& s) { return text(s.auth.login_per_account_address); }},
        {{"auth.tokenLifetime", "seconds, 1 to 86400", "", "3600", "Lifetime of an access token."},
         [](const Value& v, Settings& s) { s.auth.jwt.lifetime = v.duration<std::chrono::seconds>(1, 24 * 3600); },
         [](const Settings& s) { return text(std::int64_t{s.auth.jwt.lifetime.count()}); }},
        {{"auth.refreshLifetime", "seconds, 60 to 31536000", "", "2592000", "Lifetime of a refresh token."},
         [](const Value& v, Settings& s) { s.auth.refresh_lifetime = v.duration<std::chrono::seconds>(60, 365LL * 24 * 3600); },
         [](const Settings& s) { return text(std::int64_t{s.auth.refresh_lifetime.count()}); }},
        {{"auth.clockSkew", "seconds, 0 to 300", "", "30", "Clock skew tolerated in a token's times."},
         [](const Value& v, Settings& s) { s.auth.jwt.leeway = v.duration<std::chrono::seconds>(0, 300); },
         [](const Settings& s) { return text(std::int64_t{s.auth.jwt.leeway.count()}); }},
        {{"auth.jwtSecretFile", "path", "ABCI_JWT_SECRET_FILE", "DATA_DIR/jwt.secret",
          "The key that signs access tokens, created on first start. With database.url and no file given, it is kept "
          "in the database, shared by every server on it."},
         [](const Value& v, Settings& s) { s.jwt_secret_file = v.string(); },
         [](const Settings& s) { return text(s.jwt_secret_file); }},
        {{"auth.redirectOrigins", "array of strings", "", "[]",
          "Origins besides loopback that a login may redirect to, e.g. \"https://app.example.org\"."},
         [](const Value& v, Settings& s) { s.auth.redirect_origins = v.strings(); },
         [](const Settings& s) { return text(s.auth.redirect_origins); }},
        {{"auth.wallet.chainIds", "array of integers", "", "[] (with --devnet: [31337])",
          "Chain ids of Sign-In with Ethereum logins; empty: no wallet login."},
         [](const Value& v, Settings& s) { s.auth.wallet.chain_ids = v.positive_integers(); },
         [](const Settings& s) { return text(s.auth.wallet.chain_ids); }},
        {{"auth.wallet.autoRegister", "boolean", "", "false", "An unknown wallet that logs in becomes a new farmer user."},
         [](const Value& v, Settings& s) { s.auth.wallet.auto_register = v.boolean(); },
         [](const Settings& s) { return text(s.auth.wallet.auto_register); }},
        {{"auth.wallet.uri", "URL", "", "http(s)://DOMAIN", "What a Sign-In with Ethereum message's URI must start with."},
         [](const Value& v, Settings& s) { s.auth.wallet.uri_origin = v.string(); },
         [](const Settings& s) { return text(s.auth.wallet.uri_origin); }},
        idp_text<&auth::OidcProviderSettings::name>(
            {"idp.name", "string", "", "idp",
             "The OpenID Connect provider's routes: /api/auth/NAME-login and NAME-callback."}),
        idp_text<&auth::OidcProviderSettings::issuer>(
            {"idp.issuer", "URL", "", "",
             "The provider's issuer; required with [idp]."}),
        idp_text<&auth::OidcProviderSettings::client_id>(
            {"idp.clientId", "string", "", "",
             "This server's client id at the provider; required with [idp]."}),
        {{"idp.clientSecret", "string", "ABCI_IDP_CLIENT_SECRET", "", "Its client secret (only with [idp]); none for a public client.", true},
         [](const Value& v, Settings& s) {
             if (s.auth.idp) s.auth.idp->client_secret = v.string();
         },
         [](const Settings& s) { return s.auth.idp ? text(s.auth.idp->client_secret) : std::string(); }},
        idp_text<&auth::OidcProviderSettings::redirect_uri>(
            {"idp.redirectUri", "URL", "", "",
             "This server's callback, e.g. https://HOST/api/auth/idp-callback; required with [idp]."}),
        {{"idp.scopes", "array of strings", "", "[\"openid\", \"email\", \"profile\"]", "The scopes asked for."},
         [](const Value& v, Settings& s) { idp(s).scopes = v.strings(); },
         [](const Settings& s) { return s.auth.idp ? text(s.auth.idp->scopes) : ""; }},
        idp_text<&auth::OidcProviderSettings::authorization_endpoint>(
            {"idp.authorizationEndpoint", "URL", "", "from discovery",
             "The provider's authorization endpoint."}),
        idp_text<&auth::OidcProviderSettings::token_endpoint>(
            {"idp.tokenEndpoint", "URL", "", "from discovery",
             "The provider's token endpoint."}),
        idp_text<&auth::OidcProviderSettings::jwks_uri>(
            {"idp.jwksUri", "URL", "", "from discovery",
             "The provider's signing keys."}),
        {{"idp.autoRegister", "boolean", "", "false", "An unknown identity with a verified e-mail becomes a new farmer user."},
         [](const Value& v, Settings& s) { s.auth.idp_auto_register = v.boolean(); },
         [](const Settings& s) { return s.auth.idp ? text(s.auth.idp_auto_register) : ""; }},
        {{"content.backend", "\"local\" or \"kubo\"", "", "local", "Where content (metadata records) is stored."},
         [](const Value& v, Settings& s) { s.content.backend = v.string(); },
         [](const Settings& s) { return text(s.content.backend); }},
        {{"content.kuboUrl", "URL", "", "http://127.0.0.1:5001", "The kubo node's RPC API."},
         [](const Value& v, Settings& s) { s.content.kubo_url = v.string(); },
         [](const Settings& s) { return text(s.content.kubo_url); }},
        {{"content.timeoutMs", "milliseconds, 100 to 600000", "", "5000", "Deadline of one kubo request."},
         [](const Value& v, Settings& s) { s.content.timeout = v.duration<std::chrono::milliseconds>(100, 600000); },
         [](const Settings& s) { return text(std::int64_t{s.content.timeout.count()}); }},
        {{"signer.keystore", "path", "", "", "The signer's v3 keystore; it signs for every chain."},
         [](const Value& v, Settings& s) { s.signer.keystore = v.string(); },
         [](const Settings& s) { return text(s.signer.keystore); }},
        {{"signer.passwordFile", "path", "", "", "The keystore's password (one line); else ABCI_SIGNER_PASSWORD."},
         [](const Value& v, Settings& s) { s.signer.password_file = v.string(); },
         [](const Settings& s) { return text(s.signer.password_file); }},
        {{"signer.anvilKey", "boolean", "", "false", "Sign with anvil's published dev key; only when every chain is a local devnet."},
         [](const Value& v, Settings& s) { s.signer.anvil_key = v.boolean(); },
         [](const Settings& s) { return text(s.signer.anvil_key); }},
        {{"signer.pkcs11Module", "path", "", "", "A PKCS#11 module (an HSM's, or /usr/lib/softhsm/libsofthsm2.so): the key stays in its token."},
         [](const Value& v, Settings& s) { s.signer.pkcs11_module = v.string(); },
         [](const Settings& s) { return text(s.signer.pkcs11_module); }},
        {{"signer.pkcs11Token", "label", "", "", "The label of the token holding the key (signer.pkcs11Module)."},
         [](const Value& v, Settings& s) { s.signer.pkcs11_token = v.string(); },
         [](const Settings& s) { return text(s.signer.pkcs11_token); }},
        {{"signer.pkcs11Key", "label or hex id", "", "", "The key on the token: its label, or its CKA_ID in hex."},
         [](const Value& v, Settings& s) { s.signer.pkcs11_key = v.string(); },
         [](const Settings& s) { return text(s.signer.pkcs11_key); }},
        {{"signer.pkcs11PinFile", "path", "", "", "The token user's PIN (one line); else ABCI_SIGNER_PIN."},
         [](const Value& v, Settings& s) { s.signer.pkcs11_pin_file = v.string(); },
         [](const Settings& s) { return text(s.signer.pkcs11_pin_file); }},
        {{"signer.remote", "URL", "", "", "A remote JSON-RPC signer that signs by eth_signTransaction (web3signer; geth with Clef); every answer is checked."},
         [](const Value& v, Settings& s) { s.signer.remote = v.string(); },
         [](const Settings& s) { return text(s.signer.remote.empty() ? "" : rpc::mask_url(s.signer.remote)); }},
        {{"signer.remoteAddress", "0x address", "", "", "The account whose key the remote signer holds (signer.remote)."},
         [](const Value& v, Settings& s) { s.signer.remote_address = v.string(); },
         [](const Settings& s) { return text(s.signer.remote_address); }},
        {{"signer.remoteTokenFile", "path", "", "", "A bearer token for the remote signer (one line); else ABCI_SIGNER_TOKEN, else none."},
         [](const Value& v, Settings& s) { s.signer.remote_token_file = v.string(); },
         [](const Settings& s) { return text(s.signer.remote_token_file); }},
        {{"tls.cert", "path", "", "", "Certificate chain (PEM); with tls.key the server speaks HTTPS."},
         [](const Value& v, Settings& s) { s.tls_cert = v.string(); }, [](const Settings& s) { return text(s.tls_cert); }},
        {{"tls.key", "path", "", "", "The certificate's private key (PEM)."},
         [](const Value& v, Settings& s) { s.tls_key = v.string(); }, [](const Settings& s) { return text(s.tls_key); }},
        {{"mint_batching.enabled", "boolean", "", "false", "Concurrent mints on a chain go out together in mintMany transactions."},
         [](const Value& v, Settings& s) { s.mint_batching = v.boolean(); },
         [](const Settings& s) { return text(s.mint_batching); }},
        {{"mint_batching.windowMs", "milliseconds, 1 to 1000", "", "25", "How long a batch's first mint waits for others."},
         [](const Value& v, Settings& s) { s.batch_options.window = v.duration<std::chrono::milliseconds>(1, 1000); },
         [](const Settings& s) { return text(std::int64_t{s.batch_options.window.count()}); }},
        {{"mint_batching.maxMints", "integer, 2 to 1000", "", "100", "Mints per transaction at most."},
         [](const Value& v, Settings& s) { s.batch_options.max_mints = static_cast<std::size_t>(v.integer(2, 1000)); },
         [](const Settings& s) { return text(static_cast<std::int64_t>(s.batch_options.max_mints)); }},
        {{"limits.maxBodyBytes", "integer, 1024 to 67108864", "", "1048576", "The largest request body accepted."},
         [](const Value& v, Settings& s) { s.max_body_bytes = static_cast<std::size_t>(v.integer(1024, 64LL * 1024 * 1024)); },
         [](const Settings& s) { return text(static_cast<std::int64_t>(s.max_body_bytes)); }},
        {{"limits.maxJsonDepth", "integer, 2 to 512", "", "32", "The deepest nesting of a JSON body accepted."},
         [](const Value& v, Settings& s) { s.max_json_depth = static_cast<int>(v.integer(2, 512)); },
         [](const Settings& s) { return text(std::int64_t{s.max_json_depth}); }},
        {{"limits.maxJsonValues", "integer, 100 to 1000000", "", "10000", "The most values (objects, arrays, items) a JSON body may hold."},
         [](const Value& v, Settings& s) { s.max_json_values = static_cast<std::size_t>(v.integer(100, 1000000)); },
         [](const Settings& s) { return text(static_cast<std::int64_t>(s.max_json_values)); }},
        {{"limits.threads", "integer, 4 to 4096", "", "2048", "Requests served at once at most (a mint holds its thread until mined)."},
         [](const Value& v, Settings& s) { s.threads = static_cast<std::size_t>(v.integer(4, 4096)); },
         [](const Settings& s) { return text(static_cast<std::int64_t>(s.threads)); }},
        {{"limits.headTimeout", "seconds, 1 to 300", "", "10", "Deadline for a request's whole line and headers; slower: 408."},
         [](const Value& v, Settings& s) { s.connections.head_timeout = v.duration<std::chrono::seconds>(1, 300); },
         [](const Settings& s) { return text(std::int64_t{s.connections.head_timeout.count()}); }},
        {{"limits.bodyTimeout", "seconds, 1 to 600", "", "30", "Deadline for a request's whole body, from the end of its headers; slower: 408."},
         [](const Value& v, Settings& s) { s.connections.body_timeout = v.duration<std::chrono::seconds>(1, 600); },
         [](const Settings& s) { return text(std::int64_t{s.connections.body_timeout.count()}); }},
        {{"limits.maxHeaderLines", "integer, 8 to 1000", "", "100", "Header lines of a request at most; more: 431."},
         [](const Value& v, Settings& s) { s.connections.max_header_lines = static_cast<std::size_t>(v.integer(8, 1000)); },
         [](const Settings& s) { return text(static_cast<std::int64_t>(s.connections.max_header_lines)); }},
        {{"limits.maxConnections", "integer, 2 to 4095", "", "1984",
          "Connections open at once at most; below limits.threads, whose rest answer refused connections."},
         [](const Value& v, Settings& s) { s.connections.max_connections = static_cast<std::size_t>(v.integer(2, 4095)); },
         [](const Settings& s) { return text(static_cast<std::int64_t>(s.connections.max_connections)); }},
        {{"limits.maxConnectionsPerClient", "integer, 1 to 4095", "", "1536", "Connections open at once from one client address."},
         [](const Value& v, Settings& s) { s.connections.max_per_client = static_cast<std::size_t>(v.integer(1, 4095)); },
         [](const Settings& s) { return text(static_cast<std::int64_t>(s.connections.max_per_client)); }},
        {{"limits.connectionReserve", "integer, 0 to 4094", "", "256",
          "The last slots of limits.maxConnections, only for client addresses holding none."},
         [](const Value& v, Settings& s) { s.connections.reserve = static_cast<std::size_t>(v.integer(0, 4094)); },
         [](const Settings& s) { return text(static_cast<std::int64_t>(s.connections.reserve)); }},
        {{"limits.walletNonceRate", "rate N/S, or 0", "", "30/60", "Wallet-login nonces per client address."},
         [](const Value& v, Settings& s) { s.auth.wallet.nonces_per_address = v.rate(); },
         [](const Settings& s) { return text(s.auth.wallet.nonces_per_address); }},
        {{"limits.maxPendingWalletNonces", "integer, 1 to 10000000", "", "10000", "Unused wallet-login nonces held at once, from all clients; more: 503."},
         [](const Value& v, Settings& s) { s.auth.wallet.max_pending_nonces = static_cast<std::size_t>(v.integer(1, 10000000)); },
         [](const Settings& s) { return text(static_cast<std::int64_t>(s.auth.wallet.max_pending_nonces)); }},
        {{"metrics.listen", "host:port, or empty", "ABCI_METRICS_LISTEN", "empty: off",
          "Where Prometheus scrapes GET /metrics: a listener of its own, never the API's port."},
         [](const Value& v, Settings& s) {
             const auto listen = v.string();
             s.metrics.listen_host.clear();
             if (!listen.empty()) parse_host_port(listen, v.where(), s.metrics.listen_host, s.metrics.listen_port);
         },
         [](const Settings& s) {
             return text(s.metrics.enabled() ? host_port(s.metrics.listen_host, s.metrics.listen_port) : std::string());
         }},
        {{"metrics.tokenFile", "path", "", "", "A bearer token (the file's first line) that a scrape of /metrics must send."},
         [](const Value& v, Settings& s) { s.metrics.token_file = v.string(); },
         [](const Settings& s) { return text(s.metrics.token_file); }},
        {{"webhooks.allowInsecureTargets", "boolean", "", "false (serve --devnet: true)",
          "Let webhook subscriptions name http:// URLs; else https:// only."},
         [](const Value& v, Settings& s) { s.webhooks.policy.allow_insecure = v.boolean(); },
         [](const Settings& s) { return text(s.webhooks.policy.allow_insecure); }},
        {{"webhooks.allowPrivateTargets", "boolean", "", "false (serve --devnet: true)",
          "Let webhooks reach loopback, private, link-local, multicast and unspecified addresses, which are refused "
          "otherwise, when a URL is registered and at each connection."},
         [](const Value& v, Settings& s) { s.webhooks.policy.allow_private = v.boolean(); },
         [](const Settings& s) { return text(s.webhooks.policy.allow_private); }},
        {{"webhooks.retrySchedule", "waits, e.g. \"0s, 5s, 5m\"", "", "0s, 5s, 5m, 30m, 2h, 5h, 10h, 14h, 20h, 24h",
          "The wait before each attempt of a webhook delivery (units ms, s, m, h), each retry's jittered by up to a "
          "tenth; after the last the delivery has failed and waits for a replay."},
         [](const Value& v, Settings& s) {
             try {
                 s.webhooks.schedule = webhooks::parse_schedule(v.string());
             } catch (const Error& e) {
                 throw bad_setting(v.where(), e.what());
             }
         },
         [](const Settings& s) { return text(webhooks::schedule_text(s.webhooks.schedule)); }},
        {{"webhooks.disableAfter", "seconds, 1 to 31536000", "", "432000 (5 days)",
          "A webhook subscription none of whose attempts succeeded for this long is disabled by its next failed "
          "attempt (it says when and why); an admin enables it again."},
         [](const Value& v, Settings& s) { s.webhooks.disable_after = v.duration<std::chrono::seconds>(1, 365LL * 24 * 3600); },
         [](const Settings& s) {
             return text(std::int64_t{std::chrono::duration_cast<std::chrono::seconds>(s.webhooks.disable_after).count()});
         }},
        {{"webhooks.keepDeliveries", "seconds, 60 to 315360000", "", "2592000 (30 days)",
          "How long a webhook delivery that succeeded or failed is kept (to list and replay) after its last attempt; "
          "then it is removed with its attempts. Pending deliveries are kept until they finish."},
         [](const Value& v, Settings& s) {
             s.webhook_cleanup.keep_deliveries = v.duration<std::chrono::seconds>(60, 10 * 365LL * 24 * 3600);
         },
         [](const Settings& s) { return text(std::int64_t{s.webhook_cleanup.keep_deliveries.count()}); }},
        {{"webhooks.timeout", "wait, 1ms to 60s", "", "15s",
          "A webhook attempt's connection, and each of its reads and writes, give up after this (units ms, s, m); "
          "a delivery is leased for three times it and 10 s."},
         [](const Value& v, Settings& s) {
             const auto refused = [&] { return bad_setting(v.where(), "must be a wait from 1ms to 60s, such as 15s or 500ms"); };
             try {
                 s.webhooks.timeout = webhooks::parse_wait(v.string());
             } catch (const Error&) {
                 throw refused();
             }
             if (s.webhooks.timeout <= std::chrono::milliseconds(0) || s.webhooks.timeout > std::chrono::seconds(60))
                 throw refused();
         },
         [](const Settings& s) { return text(webhooks::wait_text(s.webhooks.timeout)); }},
        {{"webhooks.concurrency", "integer, 1 to 64", "", "8",
          "Webhook deliveries sent at once, each to another subscription: a subscription is sent one at a time."},
         [](const Value& v, Settings& s) { s.webhooks.concurrency = static_cast<std::size_t>(v.integer(1, 64)); },
         [](const Settings& s) { return text(static_cast<std::int64_t>(s.webhooks.concurrency)); }},
        {{"strict", "boolean", "", "false",
          "Refuse to start when a start-up check fails (node, chain id, contract, minter role, signer funds); also --strict."},
         [](const Value& v, Settings& s) { s.strict = v.boolean(); }, [](const Settings& s) { return text(s.strict); }},
        // The environment only: a password has no place in a file or a flag.
        // No reader: it names the file, which is read before the environment is applied over it.
        {{"", "path", "ABCI_CONFIG", "", "The config file (TOML), as --config."},
         nullptr, [](const Settings& s) { return text(s.config_file); }},
        {{"", "string", "ABCI_ADMIN_EMAIL", "", "The first administrator, created when the data directory has no users."},
         [](const Value& v, Settings& s) { s.admin_email = v.string(); }, [](const Settings& s) { return text(s.admin_email); }},
        {{"", "string", "ABCI_ADMIN_PASSWORD", "", "The first administrator's password.", true},
         [](const Value& v, Settings& s) { s.admin_password = v.string(); },
         [](const Settings& s) { return text(s.admin_password); }},
        {{"", "string", "ABCI_SIGNER_PASSWORD", "", "The password of signer.keystore, when signer.passwordFile is not given.", true},
         [](const Value& v, Settings& s) { s.signer.password = v.string(); },
         [](const Settings& s) { return text(s.signer.password); }},
        {{"", "string", "ABCI_SIGNER_PIN", "", "The PIN of signer.pkcs11Token, when signer.pkcs11PinFile is not given.", true},
         [](const Value& v, Settings& s) { s.signer.pkcs11_pin = v.string(); },
         [](const Settings& s) { return text(s.signer.pkcs11_pin); }},
        {{"", "string", "ABCI_SIGNER_TOKEN", "", "The bearer token of signer.remote, when signer.remoteTokenFile is not given.", true},
         [](const Value& v, Settings& s) { s.signer.remote_token = v.string(); },
         [](const Settings& s) { return text(s.signer.remote_token); }},
        {{"", "path", "ABCI_ANVIL", "node_modules/.bin/anvil, else anvil on PATH", "The anvil that --devnet runs."},
         [](const Value& v, Settings& s) { s.anvil = v.string(); }, [](const Settings& s) { return text(s.anvil); }},
    };
    return entries;
}

const std::vector<Entry<service::NetworkConfig>>& chain_entries() {
    using service::NetworkConfig;
    static const std::vector<Entry<NetworkConfig>> entries{
        {{"id", "slug [a-z0-9-]", "", "", "The chain's blockchainId in the API; required."},
         [](const Value& v, NetworkConfig& c) { c.id = v.string(); }, [](const NetworkConfig& c) { return text(c.id); }},
        {{"name", "string", "", "", "Its display name; required."},
         [](const Value& v, NetworkConfig& c) { c.name = v.string(); }, [](const NetworkConfig& c) { return text(c.name); }},
        {{"chainId", "integer", "", "", "The EVM chain id the node must serve; required."},
         [](const Value& v, NetworkConfig& c) {
             c.chain_id = static_cast<std::uint64_t>(v.integer(1, std::numeric_limits<std::int64_t>::max()));
         },
         [](const NetworkConfig& c) { return text(static_cast<std::int64_t>(c.chain_id)); }},
        {{"network", "string", "", "", "The family label, e.g. \"ethereum\"."},
         [](const Value& v, NetworkConfig& c) { c.network = v.string(); }, [](const NetworkConfig& c) { return text(c.network); }},
        {{"rpcUrls", "array of URLs", "", "", "JSON-RPC endpoints, the first primary, the rest failover; this or rpcUrl is required."},
         [](const Value& v, NetworkConfig& c) { c.rpc_urls = v.strings(); },
         [](const NetworkConfig& c) {
             std::vector<std::string> masked;
             for (const auto& url : c.rpc_urls) masked.push_back(rpc::mask_url(url));
             return text(masked);
         }},
        {{"rpcUrl", "URL", "", "", "One endpoint, instead of rpcUrls."},
         [](const Value& v, NetworkConfig& c) {
             if (!c.rpc_urls.empty()) throw bad_setting(v.where(), "give rpcUrls or rpcUrl, not both");
             c.rpc_urls = {v.string()};
         },
         [](const NetworkConfig&) { return std::string(); }},
        {{"contractAddress", "0x address", "", "", "The ABCIToken contract; none: reads only, no mints."},
         [](const Value& v, NetworkConfig& c) { c.contract_address = v.string(); },
         [](const NetworkConfig& c) { return text(c.contract_address); }},
        {{"blockExplorer", "URL", "", "", "Shown to clients with the chain."},
         [](const Value& v, NetworkConfig& c) { c.block_explorer = v.string(); },
         [](const NetworkConfig& c) { return text(c.block_explorer); }},
        {{"status", "\"active\", \"testnet\" or \"disabled\"", "", "active", "A disabled chain is neither listed nor served."},
         [](const Value& v, NetworkConfig& c) {
             const auto parsed = service::parse_network_status(v.string());
             if (!parsed) throw bad_setting(v.where(), "must be \"active\", \"testnet\" or \"disabled\"");
             c.status = *parsed;
         },
         [](const NetworkConfig& c) { return text(std::string(service::to_string(c.status))); }},
        {{"confirmations", "integer, 1 to 10000", "", "1", "Blocks on top of a mint's before it counts as mined."},
         [](const Value& v, NetworkConfig& c) { c.confirmations = static_cast<std::uint64_t>(v.integer(1, 10000)); },
         [](const NetworkConfig& c) { return text(static_cast<std::int64_t>(c.confirmations)); }},
        {{"headMaxAgeMs", "milliseconds, 0 to 60000", "", "250", "How old a head observation a balance read may rely on."},
         [](const Value& v, NetworkConfig& c) { c.head_max_age = v.duration<std::chrono::milliseconds>(0, 60000); },
         [](const NetworkConfig& c) { return text(std::int64_t{c.head_max_age.count()}); }},
        {{"rpcTimeoutMs", "milliseconds, 100 to 600000", "", "30000", "Deadline of one JSON-RPC call, retries included."},
         [](const Value& v, NetworkConfig& c) { c.rpc_timeout = v.duration<std::chrono::milliseconds>(100, 600000); },
         [](const NetworkConfig& c) { return text(std::int64_t{c.rpc_timeout.count()}); }},
        {{"receiptTimeoutMs", "milliseconds, 1000 to 3600000", "", "120000", "How long a mint request waits for its receipt."},
         [](const Value& v, NetworkConfig& c) { c.receipt_timeout = v.duration<std::chrono::milliseconds>(1000, 3600000); },
         [](const NetworkConfig& c) { return text(std::int64_t{c.receipt_timeout.count()}); }},
        {{"replaceAfterMs", "milliseconds, 1000 to 3600000", "", "30000", "How long a transaction stays unmined before it is sent again with higher fees."},
         [](const Value& v, NetworkConfig& c) { c.replace_after = v.duration<std::chrono::milliseconds>(1000, 3600000); },
         [](const NetworkConfig& c) { return text(std::int64_t{c.replace_after.count()}); }},
        {{"maxFeePerGasGwei", "integer, 0 to 100000000", "", "0", "The most a fee bump offers per gas, in gwei; 0: four times the first fee."},
         [](const Value& v, NetworkConfig& c) { c.max_fee_per_gas_gwei = static_cast<std::uint64_t>(v.integer(0, 100'000'000)); },
         [](const NetworkConfig& c) { return text(static_cast<std::int64_t>(c.max_fee_per_gas_gwei)); }},
        {{"minSignerBalanceGwei", "integer", "", "0", "Health reports the signer degraded below this balance; 0: enough for 100 mints."},
         [](const Value& v, NetworkConfig& c) {
             c.min_signer_balance_gwei = static_cast<std::uint64_t>(v.integer(0, std::numeric_limits<std::int64_t>::max()));
         },
         [](const NetworkConfig& c) { return text(static_cast<std::int64_t>(c.min_signer_balance_gwei)); }},
        {{"nativeCurrency.name", "string", "", "Ether", "The native currency's name."},
         [](const Value& v, NetworkConfig& c) { c.native_currency.name = v.string(); },
         [](const NetworkConfig& c) { return text(c.native_currency.name); }},
        {{"nativeCurrency.symbol", "string", "", "ETH", "Its symbol."},
         [](const Value& v, NetworkConfig& c) { c.native_currency.symbol = v.string(); },
         [](const NetworkConfig& c) { return text(c.native_currency.symbol); }},
        {{"nativeCurrency.decimals", "integer, 0 to 36", "", "18", "Its decimals."},
         [](const Value& v, NetworkConfig& c) { c.native_currency.decimals = static_cast<int>(v.integer(0, 36)); },
         [](const NetworkConfig& c) { return text(std::int64_t{c.native_currency.decimals}); }},
    };
    return entries;
}

template <typename Target>
std::vector<std::string> file_keys(const std::vector<Entry<Target>>& entries) {
    std::vector<std::string> keys;
    for (const auto& entry : entries)
        if (!entry.key.key.empty()) keys.push_back(entry.key.key);
    return keys;
}

/// Refuses every key of `table` (at `prefix`, e.g. "auth.") that `keys` does
/// not know, naming it as "<shown>key" and suggesting the nearest known key
/// of the same table. The top level's "chains" holds chain tables.
void check_keys(const toml::table& table, const std::string& prefix, const std::string& shown,
                const std::vector<std::string>& keys, bool top) {
    std::vector<std::string> here;  // the names this table may hold
    for (const auto& key : keys)
        if (key.rfind(prefix, 0) == 0) {
            const auto rest = key.substr(prefix.size());
            here.push_back(rest.substr(0, rest.find('.')));
        }
    if (top) here.push_back("chains");
    for (const auto& [name, node] : table) {
        const std::string key(name.str());
        const std::string path = prefix + key;
        if (top && key == "chains") {
            const auto* array = node.as_array();
            if (!array || !array->is_array_of_tables())
                throw bad_setting("config key chains", "must be an array of tables ([[chains]])");
            for (std::size_t i = 0; i < array->size(); ++i)
                check_keys(*array->get(i)->as_table(), "", "chains[" + std::to_string(i) + "].",
                           file_keys(chain_entries()), false);
        } else if (std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return k.rfind(path + ".", 0) == 0; })) {
            if (!node.is_table()) throw bad_setting("config key " + shown + path, "must be a table");
            check_keys(*node.as_table(), path + ".", shown, keys, false);
        } else if (std::find(keys.begin(), keys.end(), path) == keys.end()) {
            const bool is_table = node.is_table();
            const auto named = [&](const std::string& k) { return is_table ? "[" + shown + prefix + k + "]" : shown + prefix + k; };
            std::string why = is_table ? "is not a known table" : "is not a known key";
            if (const auto near = util::closest_match(key, here)) why += "; did you mean " + named(*near) + "?";
            throw bad_setting(is_table ? "config " + named(key) : "config key " + named(key), why);
        }
    }
}

/// Applies every key of `entries` that `table` holds, recording it in `sources` as "<shown>key".
template <typename Target>
void read_table(const toml::table& table, const std::vector<Entry<Target>>& entries, const std::string& shown,
                Target& target, std::map<std::string, std::string>& sources) {
    for (const auto& entry : entries) {
        if (entry.key.key.empty() || !entry.read) continue;
        const auto* node = table.at_path(entry.key.key).node();
        if (!node) continue;
        entry.read(Value(*node, "config key " + shown + entry.key.key), target);
        // A chain's rpcUrl is shown as the rpcUrls it sets.
        sources[shown + (entry.key.key == "rpcUrl" ? "rpcUrls" : entry.key.key)] = "file";
    }
}

void apply_file(const std::string& path, Settings& settings) {
    if (!std::filesystem::exists(path)) throw Error(ErrorKind::not_found, "config file " + path + " does not exist");
    toml::table root;
    try {
        root = toml::parse_file(path);
    } catch (const toml::parse_error& e) {
        const auto& where = e.source().begin;
        throw Error(ErrorKind::invalid_input, "config file " + path + ":" + std::to_string(where.line) + ":" +
                                                  std::to_string(where.column) + ": " + std::string(e.description()));
    }
    check_keys(root, "", "", file_keys(server_entries()), true);
    if (root["idp"].is_table()) settings.auth.idp.emplace();
    read_table(root, server_entries(), "", settings, settings.sources);
    if (const auto& idp = settings.auth.idp) {
        const auto require = [](const std::string& value, const char* key) {
            if (value.empty()) throw bad_setting(std::string("config key idp.") + key, "is required when [idp] is present");
        };
        require(idp->issuer, "issuer");
        require(idp->client_id, "clientId");
        require(idp->redirect_uri, "redirectUri");
    }
    if (const auto* chains = root["chains"].as_array())
        for (std::size_t i = 0; i < chains->size(); ++i) {
            const std::string shown = "chains[" + std::to_string(i) + "].";
            service::NetworkConfig chain;
            read_table(*chains->get(i)->as_table(), chain_entries(), shown, chain, settings.sources);
            if (chain.native_currency.name.empty() || chain.native_currency.symbol.empty())
                throw bad_setting("config key " + shown + "nativeCurrency.symbol", "name and symbol must not be empty");
            settings.chains.push_back(std::move(chain));
        }
}

/// Where the setting `key` came from, as an error names it; `key` itself when at its default.
std::string source_name(const Settings& settings, const std::string& key) {
    const auto it = settings.sources.find(key);
    if (it == settings.sources.end()) return key;
    if (it->second == "file") return "config key " + key;
    return it->second.substr(it->second.find(' ') + 1);  // "--listen", "ABCI_LISTEN"
}

}  // namespace

const std::vector<SettingKey>& setting_keys() {
    static const std::vector<SettingKey> keys = [] {
        std::vector<SettingKey> all;
        for (const auto& entry : server_entries()) all.push_back(entry.key);
        for (const auto& entry : chain_entries()) {
            all.push_back(entry.key);
            all.back().key = "chains[]." + entry.key.key;
        }
        return all;
    }();
    return keys;
}

std::string describe_settings(const Settings& settings) {
    std::ostringstream out;
    const auto line = [&](const std::string& name, const SettingKey& key, const std::string& value) {
        if (value.empty()) return;
        const auto source = settings.sources.find(name);
        // A secret's presence is worth knowing; its value never is.
        const bool hide = key.secret && value != text(std::string());
        out << name << " = " << (hide ? "\"********\"" : value) << "  # "
            << (source == settings.sources.end() ? "default" : source->second) << "\n";
    };
    out << "# abcictl serve: the effective settings; config file: "
        << (settings.config_file.empty() ? "none" : settings.config_file);
    if (!settings.devnet_config_file.empty()) out << "; --devnet's: " << settings.devnet_config_file << " (written at start)";
    out << "\n";
    for (const auto& entry : server_entries())
        line(entry.key.key.empty() ? entry.key.env : entry.key.key, entry.key, entry.show(settings));
    for (std::size_t i = 0; i < settings.chains.size(); ++i)
        for (const auto& entry : chain_entries())
            line("chains[" + std::to_string(i) + "]." + entry.key.key, entry.key, entry.show(settings.chains[i]));
    return out.str();
}

namespace {

/// Refuses an ABCI_* variable of `env` that abcictl does not read: a typo
/// would otherwise go unnoticed (ABCI_DATA_DRI starts an empty server in the
/// default directory), as unknown config keys are refused.
void check_environment(const std::map<std::string, std::string>& env) {
    std::vector<std::string> known;
    for (const auto& entry : server_entries())
        if (!entry.key.env.empty()) known.push_back(entry.key.env);
    // Read by the project's own test programs (chaos and fuzz runs), which a
    // developer's shell may export, and the benchmark's reference route.
    constexpr std::array<std::string_view, 3> kTestPrefixes{"ABCI_CHAOS_", "ABCI_FUZZ_", "ABCI_BENCH_"};
    for (const auto& entry : env) {
        const std::string& name = entry.first;  // not a structured binding: clang 14 (make fuzz) cannot capture one
        if (!name.starts_with("ABCI_") || std::find(known.begin(), known.end(), name) != known.end() ||
            std::any_of(kTestPrefixes.begin(), kTestPrefixes.end(), [&](auto prefix) { return name.starts_with(prefix); }))
            continue;
        std::string why = "is not a setting of abcictl serve";
        if (const auto near = util::closest_match(name, known))
            why += "; did you mean " + *near + "?";
        else
            why += " (see ENVIRONMENT in man abcictl; the client commands read ABCICTL_* variables)";
        throw bad_setting("environment variable " + name, why);
    }
}

}  // namespace

Settings load_settings(const FlagSettings& flags, const std::map<std::string, std::string>& env) {
    check_environment(env);
    Settings settings;
    if (const auto it = env.find("ABCI_CONFIG"); it != env.end() && !it->second.empty())
        settings.config_file = it->second, settings.sources["ABCI_CONFIG"] = "env ABCI_CONFIG";
    if (!flags.config_file.empty()) settings.config_file = flags.config_file, settings.sources["ABCI_CONFIG"] = "flag --config";
    if (!settings.config_file.empty()) apply_file(settings.config_file, settings);

    for (const auto& entry : server_entries()) {
        const auto it = entry.key.env.empty() ? env.end() : env.find(entry.key.env);
        if (!entry.read || it == env.end() || it->second.empty()) continue;
        entry.read(Value(it->second, entry.key.env), settings);
        settings.sources[entry.key.key.empty() ? entry.key.env : entry.key.key] = "env " + entry.key.env;
    }

    if (!flags.listen.empty()) parse_listen(flags.listen, "--listen", settings), settings.sources["listen"] = "flag --listen";
    if (!flags.data_dir.empty()) settings.data_dir = flags.data_dir, settings.sources["dataDir"] = "flag --data-dir";
    if (flags.strict) settings.strict = true, settings.sources["strict"] = "flag --strict";
    if (const auto it = env.find("ABCI_BENCH_REFERENCE_ROUTE"); it != env.end() && it->second == "1") {
        if (!is_loopback(settings.listen_host))
            throw bad_setting("environment variable ABCI_BENCH_REFERENCE_ROUTE",
                              "is for the benchmark: only with a loopback listen address");
        settings.bench_reference_route = true;
    }

    if (settings.data_dir.empty())
        settings.data_dir = (flags.devnet ? store::devnet_data_dir() : store::default_data_dir()).string();
    // Replicas on one database keep the secret there, so that a token one
    // issued is good on all: a file per data directory would differ.
    if (settings.jwt_secret_file.empty() && settings.database.url.empty())
        settings.jwt_secret_file = settings.data_dir + "/jwt.secret";
    settings.content.data_dir = settings.data_dir;
    if (settings.content.backend != "local" && settings.content.backend != "kubo")
        throw bad_setting("config key content.backend", "must be \"local\" or \"kubo\"");
    if (settings.tls_cert.empty() != settings.tls_key.empty())
        throw bad_setting("config [tls]", "cert and key must be given together");
    if (settings.connections.max_connections >= settings.threads)
        throw bad_setting("config key limits.maxConnections",
                          "must be less than limits.threads (" + std::to_string(settings.threads) +
                              "): the threads beyond it answer refused connections");
    if (settings.connections.reserve >= settings.connections.max_connections)
        throw bad_setting("config key limits.connectionReserve", "must be less than limits.maxConnections");
    if (!settings.metrics.token_file.empty() && !settings.metrics.enabled() && !flags.devnet)
        throw bad_setting("config key metrics.tokenFile", "needs metrics.listen (or ABCI_METRICS_LISTEN)");
    if (settings.metrics.enabled() && settings.metrics.listen_port != 0 &&
        settings.metrics.listen_port == settings.listen_port && settings.metrics.listen_host == settings.listen_host)
        throw bad_setting(source_name(settings, "metrics.listen"), "must not be the API's listen address: metrics have a port of their own");
    if (!settings.database.password_file.empty() && settings.database.url.empty())
        throw bad_setting(source_name(settings, "database.passwordFile"), "needs database.url");
    check_chains(settings.chains, settings.signer);
    // Spec 5.1: HTTPS is mandatory in production. Without TLS of our own, only
    // loopback, or a TLS-terminating proxy the operator names, may reach us.
    if (!settings.tls() && !is_loopback(settings.listen_host) && settings.trusted_proxies.empty())
        throw bad_setting(source_name(settings, "listen"), "listening on " + settings.listen_host +
                                                       " without TLS needs [tls] cert and key, or trustedProxies naming the TLS proxy in front");

    if (settings.domain.empty()) settings.domain = host_port(settings.listen_host, settings.listen_port);
    auto& wallet = settings.auth.wallet;
    wallet.domain = settings.domain;
    if (wallet.uri_origin.empty()) wallet.uri_origin = (settings.tls() ? "https://" : "http://") + settings.domain;
    return settings;
}

void check_chains(const std::vector<service::NetworkConfig>& chains, const service::SignerConfig& signer) {
    std::set<std::string> ids;
    for (std::size_t i = 0; i < chains.size(); ++i) {
        const std::string where = "config key chains[" + std::to_string(i) + "]";
        try {
            service::validate(chains[i]);
        } catch (const Error& e) {
            throw bad_setting(where, e.what());
        }
        if (!ids.insert(chains[i].id).second) throw bad_setting(where + ".id", "'" + chains[i].id + "' is used by another chain");
    }
    if (int{signer.anvil_key} + int{!signer.keystore.empty()} + int{!signer.pkcs11_module.empty()} +
            int{!signer.remote.empty()} >
        1)
        throw bad_setting("config [signer]", "give one of keystore, pkcs11Module, remote or anvilKey");
    if (!signer.remote.empty()) {
        rpc::Url url;
        try {
            url = rpc::parse_url(signer.remote);
        } catch (const Error& e) {
            throw bad_setting("config key signer.remote", e.what());
        }
        if (signer.remote_address.empty()) throw bad_setting("config key signer.remote", "needs signer.remoteAddress");
        try {
            (void)eth::Address::parse(signer.remote_address);
        } catch (const Error&) {
            throw bad_setting("config key signer.remoteAddress", "'" + signer.remote_address + "' is not a 0x address");
        }
        // A bearer token in clear text is anyone's on the way: only over TLS, or to this machine.
        if ((!signer.remote_token_file.empty() || !signer.remote_token.empty()) && url.scheme != "https" &&
            !is_loopback(url.host))
            throw bad_setting("config key signer.remote", "a bearer token is sent over https only (or to loopback)");
    } else if (!signer.remote_address.empty() || !signer.remote_token_file.empty()) {
        throw bad_setting("config [signer]", "remoteAddress and remoteTokenFile need signer.remote");
    }
    if (!signer.pkcs11_module.empty()) {
        if (signer.pkcs11_token.empty()) throw bad_setting("config key signer.pkcs11Module", "needs signer.pkcs11Token");
        if (signer.pkcs11_key.empty()) throw bad_setting("config key signer.pkcs11Module", "needs signer.pkcs11Key");
        if (signer.pkcs11_pin_file.empty() && signer.pkcs11_pin.empty())
            throw bad_setting("config key signer.pkcs11Module", "needs signer.pkcs11PinFile or ABCI_SIGNER_PIN");
    } else if (!signer.pkcs11_token.empty() || !signer.pkcs11_key.empty() || !signer.pkcs11_pin_file.empty()) {
        throw bad_setting("config [signer]", "pkcs11Token, pkcs11Key and pkcs11PinFile need signer.pkcs11Module");
    }
    if (!signer.password_file.empty() && signer.keystore.empty())
        throw bad_setting("config key signer.passwordFile", "needs signer.keystore");
    if (!signer.keystore.empty() && signer.password_file.empty() && signer.password.empty())
        throw bad_setting("config key signer.keystore", "needs signer.passwordFile or ABCI_SIGNER_PASSWORD");
    if (signer.anvil_key)
        for (const auto& chain : chains)
            // A published key on a public network is an open wallet: refused outright.
            if (chain.chain_id != service::kDevnetChainId)
                throw bad_setting("config key signer.anvilKey",
                                  "the published anvil key signs only on local devnets (chain id " +
                                      std::to_string(service::kDevnetChainId) + "); chain '" + chain.id + "' has chain id " +
                                      std::to_string(chain.chain_id));
}

std::unique_ptr<store::Store> open_store(const Settings& settings) {
    if (!settings.database.url.empty()) return store::open_postgresql_store(settings.database);
    return store::DataDir(settings.data_dir).open_store(true);
}


std::string admin_store_arguments(const Settings& settings) {
    if (settings.database.url.empty()) return util::shell_command({"--data-dir", settings.data_dir});
    std::vector<std::string> words{"--database-url", settings.database.url};
    if (!settings.database.password_file.empty())
        words.insert(words.end(), {"--database-password-file", settings.database.password_file});
    return util::shell_command(words);
}

std::map<std::string, std::string> abci_environment() {
    std::map<std::string, std::string> env;
    for (char** entry = environ; entry && *entry; ++entry) {
        const std::string_view text(*entry);
        if (text.rfind("ABCI_", 0) != 0) continue;
        const auto eq = text.find('=');
        if (eq != std::string_view::npos) env.emplace(text.substr(0, eq), text.substr(eq + 1));
    }
    return env;
}

}  // namespace abci::serve
