#include "cli/command_tree.hpp"

#include <algorithm>
#include <cctype>

#include <CLI/CLI.hpp>

#include "cli/lazy_command.hpp"

namespace abci::cli {
namespace {

/// "TEXT:{a,b}" → {"TEXT", "{a,b}"}: CLI11's type name followed by its validators' descriptions.
std::vector<std::string> type_parts(const CLI::Option& option) {
    std::vector<std::string> parts;
    const std::string text = option.get_type_name();
    std::size_t start = 0;
    int depth = 0;  // a ':' inside {…} belongs to a set
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] == '{') ++depth;
        if (i < text.size() && text[i] == '}') --depth;
        if (i == text.size() || (text[i] == ':' && depth == 0)) {
            parts.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    return parts;
}

/// The words of the first set in a validator's description: IsMember says
/// "{a,b,c}", CheckedTransformer "value in {a->1,b->2} OR {1,2}".
std::vector<std::string> choices_of(const std::vector<std::string>& parts) {
    std::vector<std::string> words;
    for (std::size_t p = 1; p < parts.size() && words.empty(); ++p) {
        const auto open = parts[p].find('{');
        const auto close = parts[p].find('}', open);
        if (open == std::string::npos || close == std::string::npos) continue;
        std::string word;
        for (std::size_t i = open + 1; i <= close; ++i) {
            if (i == close || parts[p][i] == ',') {
                if (const auto arrow = word.find("->"); arrow != std::string::npos) word.resize(arrow);
                if (!word.empty()) words.push_back(word);
                word.clear();
            } else {
                word += parts[p][i];
            }
        }
    }
    return words;
}

bool has_part(const std::vector<std::string>& parts, const std::string& wanted) {
    return std::find(parts.begin(), parts.end(), wanted) != parts.end();
}

// Options whose values are files though nothing in CLI11 says so (they may
// name a file yet to be read from stdin, "-", so carry no ExistingFile check).
constexpr const char* kFileOptions[] = {"--metadata", "--config"};

}  // namespace

ArgumentSpec describe_argument(const CLI::Option& option, const std::vector<std::string>& command_path) {
    ArgumentSpec arg;
    arg.positional = option.get_positional();
    if (arg.positional) {
        arg.names = {option.get_name(true)};
    } else {
        for (const auto& s : option.get_snames()) arg.names.push_back("-" + s);
        for (const auto& l : option.get_lnames()) arg.names.push_back("--" + l);
    }
    arg.description = option.get_description();
    arg.envname = option.get_envname();
    arg.default_value = option.get_default_str();
    arg.required = option.get_required();
    if (option.get_expected_max() == 0) return arg;  // a flag (CLI11 expects no value)

    const auto parts = type_parts(option);
    const auto& name = arg.names.back();
    const bool chain_list_id = arg.positional && name == "ID" && !command_path.empty() && command_path.front() == "chains";
    arg.choices = choices_of(parts);
    if (!arg.choices.empty()) {
        arg.kind = ValueKind::choice;
    } else if (name == "--chain" || chain_list_id) {
        arg.kind = ValueKind::chain;
    } else if (has_part(parts, "DIR")) {
        arg.kind = ValueKind::directory;
    } else if (has_part(parts, "FILE") || (arg.positional && name == "FILE") ||
               std::find(std::begin(kFileOptions), std::end(kFileOptions), name) != std::end(kFileOptions)) {
        arg.kind = ValueKind::file;
    } else {
        arg.kind = ValueKind::text;
    }

    const std::string base = parts.empty() ? "" : parts.front();
    if (arg.kind == ValueKind::choice) {
        for (const auto& c : arg.choices) arg.value_name += (arg.value_name.empty() ? "" : "|") + c;
    } else if (arg.positional) {
        arg.value_name = name;
    } else if (arg.kind == ValueKind::file) {
        arg.value_name = "FILE";
    } else if (arg.kind == ValueKind::directory) {
        arg.value_name = "DIR";
    } else if (base == "INT" || base == "UINT" || base == "FLOAT" || base == "NUMBER") {
        arg.value_name = "N";
    } else {
        // --entity-id → ENTITY_ID: the option's own name says more than "TEXT".
        for (const char c : name.substr(name.find_first_not_of('-')))
            arg.value_name += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return arg;
}

std::vector<std::string> command_path(const CLI::App& command) {
    std::vector<std::string> path;
    for (const auto* c = &command; c->get_parent() != nullptr; c = c->get_parent()) path.insert(path.begin(), c->get_name());
    return path;
}

namespace {

CommandSpec describe(const CLI::App& app, std::vector<std::string> path) {
    CommandSpec spec;
    spec.path = std::move(path);
    spec.description = app.get_description();
    spec.examples = examples_of(app);
    for (const auto* option : app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); })) {
        auto arg = describe_argument(*option, spec.path);
        (arg.positional ? spec.positionals : spec.options).push_back(std::move(arg));
    }
    for (const auto* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
        auto sub_path = spec.path;
        sub_path.push_back(sub->get_name());
        spec.subcommands.push_back(describe(*sub, std::move(sub_path)));
    }
    return spec;
}

}  // namespace

std::string CommandSpec::name() const {
    std::string joined;
    for (const auto& p : path) joined += (joined.empty() ? "" : " ") + p;
    return joined;
}

CommandSpec describe_commands(CLI::App& app) {
    populate_all(app);
    return describe(app, {});
}

}  // namespace abci::cli
