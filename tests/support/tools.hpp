#pragma once
// Paths to the real tools the tests run (from the repository's node_modules),
// and a checked way to call cast as an independent oracle.

#include <cstddef>
#include <string>
#include <vector>

#include "core/os/process.hpp"

namespace abci::test {

/// Absolute path of an npm-installed tool, e.g. tool("cast") → <repo>/node_modules/.bin/cast.
[[nodiscard]] std::string tool(const std::string& name);
/// Absolute path of a file in the source tree, e.g. source_path("contracts/build/ABCIToken.json").
[[nodiscard]] std::string source_path(const std::string& relative);
/// The abcictl binary under test (support/build_tree.cpp).
[[nodiscard]] std::string abcictl_binary();
/// Where fixtures keep what they make once per build tree (support/build_tree.cpp).
[[nodiscard]] std::string test_cache_dir();
/// Whether the code under test runs under ASan and UBSan (ABCI_SANITIZE):
/// several times slower, and what the tests look for there is memory errors
/// and undefined behaviour, not other values.
[[nodiscard]] bool sanitized_build();

/// The last `lines` lines of the text file at `path` (a child's log, for
/// failure messages); empty when it cannot be read.
[[nodiscard]] std::string file_tail(const std::string& path, std::size_t lines);

/// Runs `cast args…` and returns its stdout without the trailing newline.
/// Fails the current test (Catch2 REQUIRE) if cast exits non-zero.
std::string cast(const std::vector<std::string>& args, const std::string& input = {});

}  // namespace abci::test
