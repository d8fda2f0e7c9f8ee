#include "cli/config_file.hpp"

#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "cli/session.hpp"
#include "core/error.hpp"
#include "core/os/xdg.hpp"

namespace abci::cli {

std::optional<std::filesystem::path> config_file_path() { return os::xdg_path(os::XdgBase::config, "abcictl/config.toml"); }

void apply_config_text(GlobalOptions& options, std::string_view text, const std::string& source) {
    toml::table file;
    try {
        file = toml::parse(text, source);
    } catch (const toml::parse_error& e) {
        throw Error(ErrorKind::invalid_input, source + ": " + std::string(e.description()));
    }
    auto string_at = [&](toml::node_view<toml::node> node, const std::string& key) -> std::string {
        if (!node) return {};
        if (const auto value = node.value<std::string>()) return *value;
        throw Error(ErrorKind::invalid_input, source + ": " + key + " must be a string");
    };
    if (options.profile.empty()) options.profile = string_at(file["profile"], "profile");
    const std::string profile = options.profile.empty() ? "default" : options.profile;
    if (options.server.empty())
        options.server = string_at(file["profiles"][profile]["server"], "profiles." + profile + ".server");
    if (options.server.empty()) options.server = string_at(file["server"], "server");
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
    if (options.profile.empty()) options.profile = "default";
    if (options.server.empty()) options.server = remembered_server(options.profile).value_or(kDefaultServer);
}

}  // namespace abci::cli
