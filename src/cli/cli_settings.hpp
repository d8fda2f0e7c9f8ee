#pragma once
// The command line's settings as one table: each key of config.toml with its
// type, environment variable, default and meaning. Loading the file, refusing
// a key the table does not have ("unknown key 'sever'. Did you mean
// 'server'?") and the man page's ENVIRONMENT and FILES entries all come from
// it, so a new setting is declared once.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abci::cli {

struct CliSetting {
    /// Its key in config.toml ("server", "profiles.NAME.server": NAME is any
    /// profile's name); empty for a setting only the environment gives.
    std::string_view key;
    std::string_view type;  // as the man page says it: "string"
    std::string_view env;   // its environment variable, if any
    std::string_view flag;  // the flag that overrides it, if any
    std::string_view default_value;
    std::string_view description;
};

[[nodiscard]] const std::vector<CliSetting>& cli_settings();

/// The row of `key` ("server"); throws std::logic_error for a key not in the table (a bug).
[[nodiscard]] const CliSetting& cli_setting(std::string_view key);

/// config.toml read against the table: the value of each key it sets.
class CliConfigFile {
public:
    /// Reads the file's `text`. Error(invalid_input) naming `source` when it
    /// is not TOML, has a key the table does not (with the nearest one that it
    /// does), or a value of the wrong type.
    CliConfigFile(std::string_view text, const std::string& source);

    /// The value the file gives `key` ("profiles.staging.server"), if any.
    [[nodiscard]] std::optional<std::string> get(const std::string& key) const;

private:
    std::vector<std::pair<std::string, std::string>> values_;
};

}  // namespace abci::cli
