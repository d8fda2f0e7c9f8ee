#pragma once
// XDG base directories (the XDG Base Directory specification): where
// abcictl keeps its files when the user did not say.

#include <filesystem>
#include <optional>
#include <string_view>

namespace abci::os {

enum class XdgBase {
    data,    // $XDG_DATA_HOME, else ~/.local/share  (keystores, server data)
    state,   // $XDG_STATE_HOME, else ~/.local/state (CLI sessions, devnet chain)
    config,  // $XDG_CONFIG_HOME, else ~/.config     (CLI config file)
};

/// `<base>/<leaf>`: the variable when set to an absolute path (an empty or
/// relative value is ignored, as the specification says), else the default
/// under $HOME; nothing when neither is usable.
[[nodiscard]] std::optional<std::filesystem::path> xdg_path(XdgBase base, std::string_view leaf);

}  // namespace abci::os
