#include "cli/config_file.hpp"

#include "cli/cli_settings.hpp"
#include "core/error.hpp"
#include "core/os/xdg.hpp"

namespace abci::cli {

std::optional<std::filesystem::path> config_file_path() { return os::xdg_path(os::XdgBase::config, "abcictl/config.toml"); }

void apply_config_text(GlobalOptions& options, std::string_view text, const std::string& source) {
    const CliConfigFile file(text, source);
    if (options.profile.empty()) options.profile = file.get("profile").value_or("");
    const std::string profile = options.profile.empty() ? std::string(cli_setting("profile").default_value) : options.profile;
    if (options.server.empty()) options.server = file.get("profiles." + profile + ".server").value_or("");
    if (options.server.empty()) options.server = file.get("server").value_or("");
}

}  // namespace abci::cli
