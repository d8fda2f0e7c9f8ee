#pragma once
// The servers the tests start that refuse to run as root (PostgreSQL's
// initdb) or have no business with its powers (Prometheus) run as `nobody`
// when the tests run as root; as the tests' own user otherwise. These are
// the three things that takes.

#include <filesystem>
#include <string>
#include <vector>

namespace abci::test {

/// `argv` run through setpriv as nobody (its uid and gid, no supplementary
/// groups) when this process is root; `argv` itself otherwise.
[[nodiscard]] std::vector<std::string> unprivileged(std::vector<std::string> argv);

/// Gives `path` to nobody when this process is root (fails the test, Catch2,
/// when it cannot); nothing otherwise.
void give_to_unprivileged(const std::filesystem::path& path);

/// Opens the directory `path` for traversal by everyone when this process is
/// root, so that nobody reaches what was given to it inside; its listing and
/// everything else in it stay root's. Nothing otherwise.
void let_unprivileged_traverse(const std::filesystem::path& path);

}  // namespace abci::test
