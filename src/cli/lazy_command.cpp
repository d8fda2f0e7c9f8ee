#include "cli/lazy_command.hpp"

#include <CLI/CLI.hpp>

namespace abci::cli {
namespace {

// A subclass only to reach CLI11's protected constructor that inherits the
// parent's settings (help flag, fallthrough, option defaults…) and to carry
// the populate function where populate_all() finds it.
class LazyCommand final : public CLI::App {
public:
    LazyCommand(std::string description, std::string name, CLI::App& parent, PopulateCommand build)
        : CLI::App(std::move(description), std::move(name), &parent), populate_(std::move(build)) {
        preparse_callback([this](std::size_t) { populate(); });
    }

    void populate() {
        if (!populate_) return;
        // Cleared before the call: the command is built once, even if building it throws.
        const auto build = std::move(populate_);
        populate_ = nullptr;
        build(*this);
    }

private:
    PopulateCommand populate_;
};

}  // namespace

CLI::App* add_lazy_subcommand(CLI::App& parent, std::string name, std::string description, PopulateCommand populate) {
    return parent.add_subcommand(
        std::make_shared<LazyCommand>(std::move(description), std::move(name), parent, std::move(populate)));
}

void populate_all(CLI::App& app) {
    for (auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        if (auto* lazy = dynamic_cast<LazyCommand*>(sub)) lazy->populate();
        populate_all(*sub);
    }
}

}  // namespace abci::cli
