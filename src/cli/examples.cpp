#include "cli/examples.hpp"

#include <map>

namespace abci::cli {
namespace {

// CLI11's App has no place for data of ours; the commands live as long as
// the process, so their addresses are keys that stay valid.
std::map<const CLI::App*, std::vector<Example>>& registry() {
    static std::map<const CLI::App*, std::vector<Example>> examples;
    return examples;
}

}  // namespace

void set_examples(const CLI::App& command, std::vector<Example> examples) { registry()[&command] = std::move(examples); }

const std::vector<Example>& examples_of(const CLI::App& command) {
    static const std::vector<Example> none;
    const auto it = registry().find(&command);
    return it == registry().end() ? none : it->second;
}

}  // namespace abci::cli
