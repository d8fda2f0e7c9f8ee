#pragma once
// Which server the command line talks to, as whom (DESIGN.md §5–6):
// --server/--profile, then ABCICTL_SERVER/ABCICTL_PROFILE (both bound by
// CLI11), then $XDG_CONFIG_HOME/abcictl/config.toml (cli/config_file.hpp),
// then the server the profile last logged in to (so `abcictl --server X login`
// is remembered), then the defaults (http://127.0.0.1:8080, profile
// "default"): the keys, variables and defaults of cli/cli_settings.hpp's table. The config file is applied as defaults here, after parsing,
// because CLI11's own config support would rank the file above the environment.

#include <memory>
#include <optional>
#include <string>

#include "cli/api_client.hpp"
#include "cli/config_file.hpp"
#include "cli/context.hpp"
#include "cli/state_db.hpp"

namespace abci::cli {

/// The server `profile` last logged in to (state.db), if any; never creates state.db.
[[nodiscard]] std::optional<std::string> remembered_server(const std::string& profile);

/// A client of the server the options name, after apply_config_file(options), without credentials.
[[nodiscard]] std::unique_ptr<ApiClient> anonymous_client(GlobalOptions& options, std::chrono::milliseconds timeout = std::chrono::seconds(60));

/// A client with credentials: the API key in ABCICTL_TOKEN when set (for cron
/// jobs), else the profile's stored session for this server, refreshed first
/// when it expires within 30 s (the rotated refresh token is stored). Throws
/// Error(unauthenticated, "not logged in to <server>: run abcictl login") when
/// there is no session or it can no longer be refreshed.
[[nodiscard]] std::unique_ptr<ApiClient> authenticated_client(GlobalOptions& options, StateDb& state, std::chrono::milliseconds timeout = std::chrono::seconds(60));

/// Stores a login answer (spec 5.3 plus refresh_token) as the session of
/// (options.profile, client.base_url()).
void save_login(const GlobalOptions& options, const ApiClient& client, const nlohmann::json& login, StateDb& state);

}  // namespace abci::cli
