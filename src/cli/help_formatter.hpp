#pragma once
// --help as gh and kubectl write it: what the command does, its usage, its
// commands, its flags with plain value names and defaults ("--limit N …
// (default 1000)", not CLI11's "UINT:UINT in [1 - 1000000]=1000"), the global
// flags every command takes, and its examples (cli/examples.hpp).

#include <CLI/CLI.hpp>

namespace abci::cli {

class HelpFormatter final : public CLI::FormatterBase {
public:
    std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
};

}  // namespace abci::cli
