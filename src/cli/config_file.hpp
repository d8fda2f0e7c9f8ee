#pragma once
// The command line's own config file, $XDG_CONFIG_HOME/abcictl/config.toml
// (DESIGN.md §5–6): which server, which profile.
//
// config.toml:
//   server = "https://abci.example.org"   # for every profile without its own
//   profile = "default"
//   [profiles.staging]
//   server = "https://staging.example.org"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "cli/context.hpp"

namespace abci::cli {

/// $XDG_CONFIG_HOME/abcictl/config.toml (or ~/.config/…); nothing without a home.
[[nodiscard]] std::optional<std::filesystem::path> config_file_path();

/// Fills options.server and options.profile where neither flag nor
/// environment gave them. Error(invalid_input) naming the config file and key
/// when the file is malformed; a missing file is no error.
void apply_config_file(GlobalOptions& options);

/// What apply_config_file() (session.cpp) does with the file's text, `source` naming it in
/// errors; leaves the defaults to apply_config_file().
void apply_config_text(GlobalOptions& options, std::string_view text, const std::string& source);

}  // namespace abci::cli
