#include "serve/settings.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>

#include <toml++/toml.h>

#include "core/abci/devnet_key.hpp"
#include "core/error.hpp"

extern char** environ;

namespace abci::serve {

namespace {

Error bad_setting(const std::string& where, const std::string& why) {
    return Error(ErrorKind::invalid_input, where + ": " + why);
}

/// `$<xdg_variable>/<leaf>`, else `~/<home_fallback>/<leaf>`, else `no_home` (relative to here).
std::string xdg_dir(const char* xdg_variable, const char* home_fallback, const std::string& leaf, const char* no_home) {
    if (const char* xdg = std::getenv(xdg_variable); xdg && *xdg) return std::string(xdg) + "/" + leaf;
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/" + home_fallback + "/" + leaf;
    return no_home;
}

std::string default_data_dir() { return xdg_dir("XDG_DATA_HOME", ".local/share", "abcictl", "abcictl-data"); }

/// Splits "host:port" ("[v6]:port" too). Error naming `where` when malformed.
void parse_listen(const std::string& text, const std::string& where, Settings& settings) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) throw bad_setting(where, "'" + text + "' is not host:port");
    auto host = text.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    unsigned port = 0;
    const auto digits = std::string_view(text).substr(colon + 1);
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || port > 65535)
        throw bad_setting(where, "'" + text + "' has no valid port");
    settings.listen_host = host;
    settings.listen_port = static_cast<std::uint16_t>(port);
}

bool is_loopback(const std::string& host) {
    return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

class Table {
public:
    Table(const toml::table* table, std::string prefix) : table_(table), prefix_(std::move(prefix)) {}

    /// The entries of an array of tables (`[[key]]`), named "key[i].".
    [[nodiscard]] std::vector<Table> tables(const std::string& key) const {
        std::vector<Table> entries;
        const auto* node = find(key);
        if (!node) return entries;
        const auto* array = node->as_array();
        if (!array || !array->is_array_of_tables()) throw bad_setting(name(key), "must be an array of tables ([[" + key + "]])");
        for (std::size_t i = 0; i < array->size(); ++i)
            entries.emplace_back(array->get(i)->as_table(), prefix_ + key + "[" + std::to_string(i) + "].");
        return entries;
    }

    /// Refuses any key but `known`, so a misspelt key cannot silently fall back to a default.
    void only(std::initializer_list<std::string_view> known) const {
        if (!table_) return;
        for (const auto& [key, value] : *table_)
            if (std::find(known.begin(), known.end(), key.str()) == known.end())
                throw bad_setting(name(std::string(key.str())), "is not a known key");
    }

    [[nodiscard]] Table sub(const std::string& key) const {
        if (!table_) return {nullptr, prefix_ + key + "."};
        const auto* node = table_->get(key);
        if (node && !node->is_table()) throw bad_setting(name(key), "must be a table");
        return {node ? node->as_table() : nullptr, prefix_ + key + "."};
    }

    void get(const std::string& key, std::string& out) const {
        if (const auto* node = find(key)) {
            if (!node->is_string()) throw bad_setting(name(key), "must be a string");
            out = node->value<std::string>().value();
        }
    }
    void get(const std::string& key, bool& out) const {
        if (const auto* node = find(key)) {
            if (!node->is_boolean()) throw bad_setting(name(key), "must be true or false");
            out = node->value<bool>().value();
        }
    }
    template <typename Int>
    void get_int(const std::string& key, Int& out, std::int64_t min, std::int64_t max) const {
        if (const auto* node = find(key)) {
            const auto value = node->value<std::int64_t>();
            if (!node->is_integer() || !value || *value < min || *value > max)
                throw bad_setting(name(key), "must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
            out = static_cast<Int>(*value);
        }
    }
    // A duration in the unit of `out` (seconds for "…Lifetime", milliseconds for "…Ms").
    template <typename Rep, typename Period>
    void get_duration(const std::string& key, std::chrono::duration<Rep, Period>& out, std::int64_t min,
                      std::int64_t max) const {
        std::int64_t count = out.count();
        get_int(key, count, min, max);
        out = std::chrono::duration<Rep, Period>(count);
    }
    void get(const std::string& key, std::vector<std::string>& out) const {
        if (const auto* node = find(key)) {
            const auto* array = node->as_array();
            if (!array) throw bad_setting(name(key), "must be an array of strings");
            out.clear();
            for (const auto& item : *array) {
                if (!item.is_string()) throw bad_setting(name(key), "must be an array of strings");
                out.push_back(item.value<std::string>().value());
            }
        }
    }
    void get(const std::string& key, std::vector<std::uint64_t>& out) const {
        if (const auto* node = find(key)) {
            const auto* array = node->as_array();
            if (!array) throw bad_setting(name(key), "must be an array of integers");
            out.clear();
            for (const auto& item : *array) {
                const auto value = item.value<std::int64_t>();
                if (!item.is_integer() || !value || *value <= 0) throw bad_setting(name(key), "must be an array of positive integers");
                out.push_back(static_cast<std::uint64_t>(*value));
            }
        }
    }
    void get_rate(const std::string& key, limits::RateLimit& out) const {
        std::string text;
        get(key, text);
        if (!text.empty()) out = limits::parse_rate_limit(text, name(key));
    }
    [[nodiscard]] bool present() const noexcept { return table_ != nullptr; }
    [[nodiscard]] const toml::table* raw() const noexcept { return table_; }
    /// "config key <prefix><key>", as errors name a key.
    [[nodiscard]] std::string name(const std::string& key) const { return "config key " + prefix_ + key; }

private:
    [[nodiscard]] const toml::node* find(const std::string& key) const { return table_ ? table_->get(key) : nullptr; }

    const toml::table* table_;
    std::string prefix_;
};

void apply_idp(const Table& idp, Settings& settings) {
    auth::OidcProviderSettings provider;
    idp.get("name", provider.name);
    idp.get("issuer", provider.issuer);
    idp.get("clientId", provider.client_id);
    idp.get("clientSecret", provider.client_secret);
    idp.get("redirectUri", provider.redirect_uri);
    idp.get("scopes", provider.scopes);
    idp.get("authorizationEndpoint", provider.authorization_endpoint);
    idp.get("tokenEndpoint", provider.token_endpoint);
    idp.get("jwksUri", provider.jwks_uri);
    idp.get("autoRegister", settings.auth.idp_auto_register);
    const auto require = [](const std::string& value, const char* key) {
        if (value.empty()) throw bad_setting(std::string("config key idp.") + key, "is required when [idp] is present");
    };
    require(provider.issuer, "issuer");
    require(provider.client_id, "clientId");
    require(provider.redirect_uri, "redirectUri");
    settings.auth.idp = std::move(provider);
}

service::NetworkConfig parse_chain(const Table& entry) {
    entry.only({"id", "name", "chainId", "network", "rpcUrls", "rpcUrl", "contractAddress", "blockExplorer", "status",
                "confirmations", "headMaxAgeMs", "rpcTimeoutMs", "receiptTimeoutMs", "replaceAfterMs",
                "maxFeePerGasGwei", "minSignerBalanceGwei", "nativeCurrency"});
    service::NetworkConfig chain;
    entry.get("id", chain.id);
    entry.get("name", chain.name);
    entry.get_int("chainId", chain.chain_id, 1, std::numeric_limits<std::int64_t>::max());
    entry.get("network", chain.network);
    entry.get("rpcUrls", chain.rpc_urls);
    std::string single_url;
    entry.get("rpcUrl", single_url);
    if (!single_url.empty()) {
        if (!chain.rpc_urls.empty()) throw bad_setting(entry.name("rpcUrl"), "give rpcUrls or rpcUrl, not both");
        chain.rpc_urls = {single_url};
    }
    entry.get("contractAddress", chain.contract_address);
    entry.get("blockExplorer", chain.block_explorer);
    std::string status = service::to_string(chain.status);
    entry.get("status", status);
    const auto parsed = service::parse_network_status(status);
    if (!parsed) throw bad_setting(entry.name("status"), "must be \"active\", \"testnet\" or \"disabled\"");
    chain.status = *parsed;
    entry.get_int("confirmations", chain.confirmations, 1, 10000);
    entry.get_duration("headMaxAgeMs", chain.head_max_age, 0, 60000);
    entry.get_duration("rpcTimeoutMs", chain.rpc_timeout, 100, 600000);
    entry.get_duration("receiptTimeoutMs", chain.receipt_timeout, 1000, 3600000);
    entry.get_duration("replaceAfterMs", chain.replace_after, 1000, 3600000);
    entry.get_int("maxFeePerGasGwei", chain.max_fee_per_gas_gwei, 0, 100'000'000);
    entry.get_int("minSignerBalanceGwei", chain.min_signer_balance_gwei, 0, std::numeric_limits<std::int64_t>::max());

    const auto currency = entry.sub("nativeCurrency");
    currency.only({"name", "symbol", "decimals"});
    currency.get("name", chain.native_currency.name);
    currency.get("symbol", chain.native_currency.symbol);
    currency.get_int("decimals", chain.native_currency.decimals, 0, 36);
    if (chain.native_currency.name.empty() || chain.native_currency.symbol.empty())
        throw bad_setting(currency.name("symbol"), "name and symbol must not be empty");
    return chain;
}

void apply_signer(const Table& signer, service::SignerConfig& out) {
    signer.only({"keystore", "passwordFile", "anvilKey"});
    signer.get("keystore", out.keystore);
    signer.get("passwordFile", out.password_file);
    signer.get("anvilKey", out.anvil_key);
}

void apply_file(const std::string& path, Settings& settings, std::string& listen) {
    if (!std::filesystem::exists(path)) throw Error(ErrorKind::not_found, "config file " + path + " does not exist");
    toml::table root;
    try {
        root = toml::parse_file(path);
    } catch (const toml::parse_error& e) {
        const auto& where = e.source().begin;
        throw Error(ErrorKind::invalid_input, "config file " + path + ":" + std::to_string(where.line) + ":" +
                                                  std::to_string(where.column) + ": " + std::string(e.description()));
    }
    const Table top(&root, "");
    top.get("listen", listen);
    top.get("dataDir", settings.data_dir);
    top.get("domain", settings.domain);
    top.get("trustedProxies", settings.trusted_proxies);

    const auto rate = top.sub("rate_limit");
    rate.get_rate("abci", settings.abci_rate);
    rate.get_rate("api", settings.api_rate);
    limits::RateLimit login = settings.auth.login_per_account_address;
    rate.get_rate("login", login);
    settings.auth.login_per_account_address = login;
    settings.auth.login_per_address = limits::RateLimit{login.limit * 5, login.window};
    settings.auth.login_account_backoff.threshold = login.limit * 5;
    settings.auth.login_account_backoff.window = login.window;

    const auto auth = top.sub("auth");
    auth.get_duration("tokenLifetime", settings.auth.jwt.lifetime, 1, 24 * 3600);
    auth.get_duration("refreshLifetime", settings.auth.refresh_lifetime, 60, 365LL * 24 * 3600);
    auth.get_duration("clockSkew", settings.auth.jwt.leeway, 0, 300);
    auth.get("jwtSecretFile", settings.jwt_secret_file);
    auth.get("redirectOrigins", settings.auth.redirect_origins);
    const auto wallet = auth.sub("wallet");
    wallet.get("chainIds", settings.auth.wallet.chain_ids);
    wallet.get("autoRegister", settings.auth.wallet.auto_register);
    wallet.get("uri", settings.auth.wallet.uri_origin);

    if (const auto idp = top.sub("idp"); idp.present()) apply_idp(idp, settings);

    const auto content = top.sub("content");
    content.get("backend", settings.content.backend);
    content.get("kuboUrl", settings.content.kubo_url);
    content.get_duration("timeoutMs", settings.content.timeout, 100, 600000);

    for (const auto& entry : top.tables("chains")) settings.chains.push_back(parse_chain(entry));
    apply_signer(top.sub("signer"), settings.signer);

    const auto tls = top.sub("tls");
    tls.get("cert", settings.tls_cert);
    tls.get("key", settings.tls_key);

    const auto batching = top.sub("mint_batching");
    bool batch = false;
    chain::BatchOptions batch_options;
    batching.only({"enabled", "windowMs", "maxMints"});
    std::int64_t window_ms = batch_options.window.count();
    batching.get("enabled", batch);
    batching.get_int("windowMs", window_ms, 1, 1000);
    batching.get_int("maxMints", batch_options.max_mints, 2, 1000);
    batch_options.window = std::chrono::milliseconds(window_ms);
    if (batch) settings.mint_batching = batch_options;

    const auto limits = top.sub("limits");
    limits.get_int("maxBodyBytes", settings.max_body_bytes, 1024, 64LL * 1024 * 1024);
    limits.get_int("maxJsonDepth", settings.max_json_depth, 2, 512);
    limits.get_int("threads", settings.threads, 4, 4096);
    auto& connections = settings.connections;
    limits.get_duration("headTimeout", connections.head_timeout, 1, 300);
    limits.get_int("maxHeaderLines", connections.max_header_lines, 8, 1000);
    limits.get_int("maxConnections", connections.max_connections, 2, 4095);
    limits.get_int("maxConnectionsPerClient", connections.max_per_client, 1, 4095);
    limits.get_int("connectionReserve", connections.reserve, 0, 4094);
    limits.get_rate("walletNonceRate", settings.auth.wallet.nonces_per_address);
    limits.get_int("maxPendingWalletNonces", settings.auth.wallet.max_pending_nonces, 1, 10000000);
    if (connections.max_connections >= settings.threads)
        throw bad_setting(limits.name("maxConnections"), "must be less than limits.threads (" +
                                                             std::to_string(settings.threads) +
                                                             "): the threads beyond it answer refused connections");
    if (connections.reserve >= connections.max_connections)
        throw bad_setting(limits.name("connectionReserve"), "must be less than limits.maxConnections");
}

std::string env_or(const std::map<std::string, std::string>& env, const char* name, const std::string& fallback) {
    const auto it = env.find(name);
    return it == env.end() || it->second.empty() ? fallback : it->second;
}

}  // namespace

Settings load_settings(const FlagSettings& flags, const std::map<std::string, std::string>& env) {
    Settings settings;
    std::string listen = "127.0.0.1:8080";
    std::string listen_from = "listen";

    if (const auto config = flags.config_file.empty() ? env_or(env, "ABCI_CONFIG", "") : flags.config_file; !config.empty())
        apply_file(config, settings, listen);

    listen = env_or(env, "ABCI_LISTEN", listen);
    settings.data_dir = env_or(env, "ABCI_DATA_DIR", settings.data_dir);
    settings.domain = env_or(env, "ABCI_DOMAIN", settings.domain);
    settings.jwt_secret_file = env_or(env, "ABCI_JWT_SECRET_FILE", settings.jwt_secret_file);
    if (const auto rate = env_or(env, "ABCI_RATE_LIMIT", ""); !rate.empty())
        settings.abci_rate = limits::parse_rate_limit(rate, "ABCI_RATE_LIMIT");
    if (const auto rate = env_or(env, "ABCI_API_RATE_LIMIT", ""); !rate.empty())
        settings.api_rate = limits::parse_rate_limit(rate, "ABCI_API_RATE_LIMIT");
    settings.admin_email = env_or(env, "ABCI_ADMIN_EMAIL", "");
    settings.admin_password = env_or(env, "ABCI_ADMIN_PASSWORD", "");
    settings.signer.password = env_or(env, "ABCI_SIGNER_PASSWORD", "");
    if (settings.auth.idp)
        settings.auth.idp->client_secret = env_or(env, "ABCI_IDP_CLIENT_SECRET", settings.auth.idp->client_secret);

    if (!flags.listen.empty()) listen = flags.listen, listen_from = "--listen";
    if (!flags.data_dir.empty()) settings.data_dir = flags.data_dir;

    parse_listen(listen, listen_from, settings);
    if (settings.data_dir.empty()) settings.data_dir = flags.devnet ? devnet_data_dir() : default_data_dir();
    if (settings.jwt_secret_file.empty()) settings.jwt_secret_file = settings.data_dir + "/jwt.secret";
    settings.content.data_dir = settings.data_dir;
    if (settings.content.backend != "local" && settings.content.backend != "kubo")
        throw bad_setting("config key content.backend", "must be \"local\" or \"kubo\"");
    if (settings.tls_cert.empty() != settings.tls_key.empty())
        throw bad_setting("config [tls]", "cert and key must be given together");
    check_chains(settings.chains, settings.signer);
    // Spec 5.1: HTTPS is mandatory in production. Without TLS of our own, only
    // loopback, or a TLS-terminating proxy the operator names, may reach us.
    if (!settings.tls() && !is_loopback(settings.listen_host) && settings.trusted_proxies.empty())
        throw bad_setting(listen_from, "listening on " + settings.listen_host +
                                           " without TLS needs [tls] cert and key, or trustedProxies naming the TLS proxy in front");

    if (settings.domain.empty())
        settings.domain = (settings.listen_host.find(':') != std::string::npos ? "[" + settings.listen_host + "]"
                                                                                : settings.listen_host) +
                          ":" + std::to_string(settings.listen_port);
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
    if (signer.anvil_key && !signer.keystore.empty())
        throw bad_setting("config [signer]", "give keystore or anvilKey, not both");
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

std::string devnet_data_dir() { return xdg_dir("XDG_STATE_HOME", ".local/state", "abcictl/devnet", "abcictl-devnet"); }

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
