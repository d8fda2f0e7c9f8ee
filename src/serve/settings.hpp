#pragma once
// Everything `abcictl serve` can be told, with its precedence: command-line
// flag > environment (ABCI_*) > config file (TOML, DESIGN.md §5) > default.
// The CLI binds its flags into FlagSettings; load_settings() applies the rest.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/abci/network_config.hpp"
#include "core/auth/auth_service.hpp"
#include "core/content/content_store.hpp"
#include "core/limits/rate_limiter.hpp"

namespace abci::serve {

/// [limits] on connections and request heads, in front of every route
/// (serve/limited_server.hpp). A connection holds a request thread from
/// accept to close, so the caps are what keeps threads free for others.
struct ConnectionLimits {
    std::chrono::seconds head_timeout{10};  // the whole request line and headers, from accept or first byte
    std::size_t max_header_lines = 100;     // more: 431
    std::size_t max_connections = 1984;     // open at once; must stay below `threads`: the rest answer refusals
    std::size_t max_per_client = 1536;      // open at once from one client address (1500 concurrent mints fit)
    std::size_t reserve = 256;              // the last slots of max_connections: only for addresses with none open
};

/// What came from the command line (empty = not given).
struct FlagSettings {
    std::string config_file;
    std::string listen;
    std::string data_dir;
    /// `--devnet`: a data directory not given anywhere defaults to devnet_data_dir().
    bool devnet = false;
};

struct Settings {
    std::string listen_host = "127.0.0.1";
    std::uint16_t listen_port = 8080;
    std::string data_dir;
    std::string domain;  // public host[:port]; SIWE domain
    std::vector<std::string> trusted_proxies;

    limits::RateLimit abci_rate{10, std::chrono::seconds(60)};
    limits::RateLimit api_rate{120, std::chrono::seconds(60)};

    std::string jwt_secret_file;  // default: <data_dir>/jwt.secret
    content::ContentSettings content;  // data_dir filled from data_dir
    auth::AuthSettings auth;

    std::vector<service::NetworkConfig> chains;  // [[chains]]; may be empty (auth only)
    std::optional<chain::BatchOptions> mint_batching;  // [mint_batching] enabled: for every chain
    service::SignerConfig signer;                // [signer]; password from ABCI_SIGNER_PASSWORD

    std::string tls_cert;  // both set: serve HTTPS
    std::string tls_key;

    std::size_t max_body_bytes = 1024 * 1024;
    int max_json_depth = 32;
    std::size_t threads = 2048;  // at most this many requests served at once (a mint holds its thread until mined)
    ConnectionLimits connections;

    // First admin on an empty data directory (environment only: a password has no place in a file or a flag).
    std::string admin_email;
    std::string admin_password;

    [[nodiscard]] bool tls() const noexcept { return !tls_cert.empty() && !tls_key.empty(); }
};

/// Builds the settings from the defaults, the config file (flag, else
/// ABCI_CONFIG), the environment `env` and the flags. Error(invalid_input)
/// naming the key or variable that is wrong; Error(not_found) when a named
/// config file does not exist.
[[nodiscard]] Settings load_settings(const FlagSettings& flags, const std::map<std::string, std::string>& env);

/// Checks the chain registry's settings as a whole: every chain validate()d,
/// ids unique, at most one signer source (keystore or anvilKey), a password
/// file only with a keystore, and the anvil key only when every chain is a
/// local devnet (chain id 31337). Error(invalid_input) naming the entry.
void check_chains(const std::vector<service::NetworkConfig>& chains, const service::SignerConfig& signer);

/// `$XDG_STATE_HOME/abcictl/devnet`, else `~/.local/state/abcictl/devnet`:
/// the devnet's chain state is state, not data the operator curates.
[[nodiscard]] std::string devnet_data_dir();

/// The process environment's ABCI_* variables.
[[nodiscard]] std::map<std::string, std::string> abci_environment();

}  // namespace abci::serve
