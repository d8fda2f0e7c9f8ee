#pragma once
// Helpers of the tests of what abcictl generates or ships beside itself
// (completions, man page, install rules, examples).

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/tools.hpp"

namespace abci::test {

/// What to do when a generated file drifted from what the binary prints.
inline constexpr const char* kRegenerateHint =
    "it is stale: run scripts/gen-cli-files <build>/src/abcictl and commit the result";

/// The whole content of `path` ("" when it cannot be read).
[[nodiscard]] inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Whether `program` is an executable on PATH.
[[nodiscard]] inline bool on_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        std::error_code ec;
        if (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / program, ec)) return true;
    }
    return false;
}

}  // namespace abci::test
