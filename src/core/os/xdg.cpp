#include "core/os/xdg.hpp"

#include <cstdlib>

namespace abci::os {

std::optional<std::filesystem::path> xdg_path(XdgBase base, std::string_view leaf) {
    const char* variable = base == XdgBase::data ? "XDG_DATA_HOME" : base == XdgBase::state ? "XDG_STATE_HOME" : "XDG_CONFIG_HOME";
    const char* fallback = base == XdgBase::data ? ".local/share" : base == XdgBase::state ? ".local/state" : ".config";
    if (const char* value = std::getenv(variable); value && *value) {
        const std::filesystem::path dir(value);
        if (dir.is_absolute()) return dir / leaf;
    }
    if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / fallback / leaf;
    return std::nullopt;
}

}  // namespace abci::os
