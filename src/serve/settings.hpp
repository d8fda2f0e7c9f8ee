#pragma once
// Everything `abcictl serve` can be told, with its precedence: command-line
// flag > environment (ABCI_*) > config file (TOML, DESIGN.md §5) > default.
// The CLI binds its flags into FlagSettings; load_settings() applies the rest.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/service/network_config.hpp"
#include "core/auth/auth_service.hpp"
#include "core/content/content_store.hpp"
#include "core/limits/rate_limiter.hpp"
#include "core/store/store.hpp"
#include "core/webhooks/cleanup.hpp"
#include "core/webhooks/delivery.hpp"

namespace abci::serve {

/// [limits] on connections and request heads, in front of every route
/// (serve/limited_server.hpp). A connection holds a request thread from
/// accept to close, so the caps are what keeps threads free for others.
struct ConnectionLimits {
    std::chrono::seconds head_timeout{10};  // the whole request line and headers, from accept or first byte
    std::chrono::seconds body_timeout{30};  // the whole body, from the end of its head (1 MiB at 35 KB/s)
    std::size_t max_header_lines = 100;     // more: 431
    std::size_t max_connections = 1984;     // open at once; must stay below `threads`: the rest answer refusals
    std::size_t max_per_client = 1536;      // open at once from one client address (1500 concurrent mints fit)
    std::size_t reserve = 256;              // the last slots of max_connections: only for addresses with none open
};

/// [metrics]: the Prometheus listener (serve/metrics_listener.hpp), on a port of its own.
struct MetricsSettings {
    std::string listen_host;  // empty: no listener
    std::uint16_t listen_port = 0;
    std::string token_file;  // set: a scrape must send its first line as a bearer token

    [[nodiscard]] bool enabled() const noexcept { return !listen_host.empty(); }
};

/// What came from the command line (empty = not given).
struct FlagSettings {
    std::string config_file;
    std::string listen;
    std::string data_dir;
    /// `--devnet`: a data directory not given anywhere defaults to store::devnet_data_dir().
    bool devnet = false;
    /// `--strict`: a failing start-up check refuses the start.
    bool strict = false;
};

struct Settings {
    std::string listen_host = "127.0.0.1";
    std::uint16_t listen_port = 8080;
    std::string data_dir;
    /// [database]: an empty url keeps the store in SQLite in data_dir; the
    /// data directory holds the lock, secrets and local content either way.
    store::PostgresqlSettings database;
    std::string domain;  // public host[:port]; SIWE domain
    std::string public_url;  // [server] publicUrl, no trailing '/'; empty: http(s):// and domain
    std::vector<std::string> trusted_proxies;

    limits::RateLimit abci_rate{10, std::chrono::seconds(60)};
    limits::RateLimit api_rate{120, std::chrono::seconds(60)};

    std::string jwt_secret_file;  // default: <data_dir>/jwt.secret; with database.url: empty, the secret is in the database
    content::ContentSettings content;  // data_dir filled from data_dir
    auth::AuthSettings auth;

    std::vector<service::NetworkConfig> chains;  // [[chains]]; may be empty (auth only)
    bool mint_batching = false;            // [mint_batching] enabled: for every chain
    chain::BatchOptions batch_options;     // its window and size
    service::SignerConfig signer;                // [signer]; password from ABCI_SIGNER_PASSWORD

    std::string tls_cert;  // both set: serve HTTPS
    std::string tls_key;

    std::size_t max_body_bytes = 1024 * 1024;
    int max_json_depth = 32;
    // A mint's body holds a few dozen values; 10,000 bound what parsing a
    // body costs (about 1.5 MB) whoever sends it.
    std::size_t max_json_values = 10000;
    std::size_t threads = 2048;  // at most this many requests served at once (a mint holds its thread until mined)
    ConnectionLimits connections;
    MetricsSettings metrics;
    webhooks::DeliverySettings webhooks;  // [webhooks]
    webhooks::CleanupSettings webhook_cleanup;  // [webhooks] keepDeliveries
    bool strict = false;         // a failing start-up check (AbciService::readiness) refuses the start
    // ABCI_BENCH_REFERENCE_ROUTE=1 (loopback only; in no settings table or
    // help, named in the man page as the benchmark's): GET /_bench/reference
    // answers a constant body, the benchmark's measure of cpp-httplib's own
    // cost (docs/decisions.md).
    bool bench_reference_route = false;

    // First admin on an empty data directory (environment only: a password has no place in a file or a flag).
    std::string admin_email;
    std::string admin_password;
    std::string anvil;  // ABCI_ANVIL: the anvil of --devnet (default: find_anvil's search)

    /// The config file read, if any.
    std::string config_file;
    /// --devnet's own, which it writes at each start (serve/devnet.hpp).
    std::string devnet_config_file;
    /// Where each setting that is not at its default came from, by key
    /// ("listen", "chains[0].rpcUrls", "ABCI_ADMIN_EMAIL"): "file", "env
    /// ABCI_LISTEN" or "flag --listen".
    std::map<std::string, std::string> sources;

    [[nodiscard]] bool tls() const noexcept { return !tls_cert.empty() && !tls_key.empty(); }
};

/// One setting of `abcictl serve`, as the key table has it (ccache's
/// k_config_key_table is the model): loading, the refusal of unknown keys,
/// the man page and --print-config all come from the one table.
struct SettingKey {
    /// The config file's key: "listen", "rate_limit.abci"; a chain's keys are
    /// "chains[].rpcUrls". Empty for a setting only the environment gives.
    std::string key;
    std::string type;         // "string", "integer 1–4096", "rate N/S", …
    std::string env;          // its environment variable, or ""
    std::string fallback;     // the default, as a person reads it
    std::string description;  // one line
    bool secret = false;      // never shown by --print-config
};

/// Every setting, server-wide first, then the keys of each [[chains]] entry.
[[nodiscard]] const std::vector<SettingKey>& setting_keys();

/// The effective settings, one line per key: `key = value  # source`, the
/// source being default, file, env VARIABLE or flag --FLAG; secrets masked.
[[nodiscard]] std::string describe_settings(const Settings& settings);

/// Builds the settings from the defaults, the config file (flag, else
/// ABCI_CONFIG), the environment `env` and the flags. Error(invalid_input)
/// naming the key or variable that is wrong; Error(not_found) when a named
/// config file does not exist. A key no table knows is refused with the
/// nearest known key as a suggestion.
[[nodiscard]] Settings load_settings(const FlagSettings& flags, const std::map<std::string, std::string>& env);

/// Checks the chain registry's settings as a whole: every chain validate()d,
/// ids unique, at most one signer source (keystore or anvilKey), a password
/// file only with a keystore, and the anvil key only when every chain is a
/// local devnet (chain id 31337). Error(invalid_input) naming the entry.
void check_chains(const std::vector<service::NetworkConfig>& chains, const service::SignerConfig& signer);


/// Opens the store `settings` name: PostgreSQL at database.url when one is
/// given, else SQLite in the data directory (created when missing). Throws
/// what store::open_postgresql_store and store::DataDir::open_store throw.
[[nodiscard]] std::unique_ptr<store::Store> open_store(const Settings& settings);

/// The arguments by which an admin command on this machine reaches the store
/// `settings` name: `--database-url URL [--database-password-file FILE]`, or
/// `--data-dir DIR` (quoted for a shell where needed).
[[nodiscard]] std::string admin_store_arguments(const Settings& settings);

/// The process environment's ABCI_* variables.
[[nodiscard]] std::map<std::string, std::string> abci_environment();

}  // namespace abci::serve
