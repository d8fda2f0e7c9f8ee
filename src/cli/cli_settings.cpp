#include "cli/cli_settings.hpp"

#include <stdexcept>

#include <toml++/toml.h>

#include "core/error.hpp"
#include "core/util/suggest.hpp"

namespace abci::cli {
namespace {

std::vector<std::string> split_key(std::string_view key) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
        const auto dot = key.find('.', start);
        parts.emplace_back(key.substr(start, dot - start));
        if (dot == std::string_view::npos) return parts;
        start = dot + 1;
    }
}

/// Whether `key` ("profiles.staging.server") is `pattern` ("profiles.NAME.server").
bool matches(const std::string& key, std::string_view pattern) {
    const auto k = split_key(key), p = split_key(pattern);
    if (k.size() != p.size()) return false;
    for (std::size_t i = 0; i < k.size(); ++i)
        if (p[i] != "NAME" && p[i] != k[i]) return false;
    return true;
}

/// The table's keys as `key` would spell them: NAME becomes the name `key`
/// has in its place, so that "profiles.staging.sever" is offered "profiles.staging.server".
std::vector<std::string> candidates_for(const std::string& key) {
    const auto k = split_key(key);
    std::vector<std::string> keys;
    for (const auto& s : cli_settings()) {
        if (s.key.empty()) continue;
        auto p = split_key(s.key);
        std::string joined;
        for (std::size_t i = 0; i < p.size(); ++i) {
            if (p[i] == "NAME" && i < k.size()) p[i] = k[i];
            joined += (i == 0 ? "" : ".") + p[i];
        }
        keys.push_back(joined);
    }
    return keys;
}

void flatten(const toml::table& table, const std::string& prefix, std::vector<std::pair<std::string, const toml::node*>>& out) {
    for (const auto& [name, node] : table) {
        const std::string key = prefix + std::string(name.str());
        if (const auto* sub = node.as_table()) flatten(*sub, key + ".", out);
        else out.emplace_back(key, &node);
    }
}

}  // namespace

const std::vector<CliSetting>& cli_settings() {
    static const std::vector<CliSetting> settings{
        {"server", "string", "ABCICTL_SERVER", "--server", "http://127.0.0.1:8080",
         "The API server's URL"},
        {"profile", "string", "ABCICTL_PROFILE", "--profile", "default", "The session profile"},
        {"profiles.NAME.server", "string", "", "", "", "The API server's URL for the profile NAME"},
        {"", "string", "ABCICTL_TOKEN", "", "",
         "An API key (see abcictl admin apikey create) used instead of the stored session, so that a cron job "
         "needs no login; health needs the scope abci:health. A key the server refuses is never replaced by the "
         "session: the command fails naming ABCICTL_TOKEN (unset it to use the profile's session)"},
        {"", "string", "ABCICTL_KEYSTORE_DIR", "--dir", "", "The keystore directory of the keystore commands"},
    };
    return settings;
}

const CliSetting& cli_setting(std::string_view key) {
    for (const auto& s : cli_settings())
        if (s.key == key || (s.key.empty() && s.env == key)) return s;
    throw std::logic_error("no CLI setting " + std::string(key));
}

CliConfigFile::CliConfigFile(std::string_view text, const std::string& source) {
    toml::table file;
    try {
        file = toml::parse(text, source);
    } catch (const toml::parse_error& e) {
        throw Error(ErrorKind::invalid_input, source + ": " + std::string(e.description()));
    }
    std::vector<std::pair<std::string, const toml::node*>> entries;
    flatten(file, "", entries);
    for (const auto& [key, node] : entries) {
        const CliSetting* setting = nullptr;
        for (const auto& s : cli_settings())
            if (!s.key.empty() && matches(key, s.key)) setting = &s;
        if (!setting) {
            std::string message = source + ": unknown key '" + key + "'";
            if (const auto near = util::closest_match(key, candidates_for(key))) message += ". Did you mean '" + *near + "'?";
            throw Error(ErrorKind::invalid_input, message);
        }
        const auto value = node->value<std::string>();
        if (!value || !node->is_string())
            throw Error(ErrorKind::invalid_input, source + ": " + key + " must be a " + std::string(setting->type));
        values_.emplace_back(key, *value);
    }
}

std::optional<std::string> CliConfigFile::get(const std::string& key) const {
    for (const auto& [k, v] : values_)
        if (k == key) return v;
    return std::nullopt;
}

}  // namespace abci::cli
