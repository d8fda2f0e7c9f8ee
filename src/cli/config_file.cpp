#include "cli/config_file.hpp"

#include <fstream>
#include <sstream>

#include "cli/cli_settings.hpp"
#include "cli/session.hpp"
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

void apply_config_file(GlobalOptions& options) {
    const auto path = config_file_path();
    std::error_code ec;
    if (path && std::filesystem::exists(*path, ec)) {
        std::ifstream in(*path, std::ios::binary);
        if (!in) throw Error(ErrorKind::invalid_input, path->string() + ": cannot be read");
        std::ostringstream text;
        text << in.rdbuf();
        apply_config_text(options, text.str(), path->string());
    }
    if (options.profile.empty()) options.profile = cli_setting("profile").default_value;
    if (options.server.empty())
        options.server = remembered_server(options.profile).value_or(std::string(cli_setting("server").default_value));
}

}  // namespace abci::cli
