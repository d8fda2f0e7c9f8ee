#include "cli/help_formatter.hpp"

#include <sstream>

#include "cli/command_tree.hpp"
#include "cli/examples.hpp"

namespace abci::cli {
namespace {

constexpr std::size_t kColumn = 26;  // where descriptions start; a longer left side puts them on the next line

bool visible_option(const CLI::Option* o) { return !o->get_group().empty(); }

std::string left_side(const ArgumentSpec& arg) {
    if (arg.positional) return arg.value_name;
    std::string text;
    for (const auto& name : arg.names) text += (text.empty() ? "" : ", ") + name;
    if (arg.takes_value()) text += " " + arg.value_name;
    return text;
}

std::string right_side(const ArgumentSpec& arg) {
    std::string text = arg.description;
    if (arg.names.back() == "--help") text = "Show this help";
    std::vector<std::string> notes;
    if (arg.required) notes.emplace_back("required");
    if (!arg.default_value.empty()) notes.push_back("default " + arg.default_value);
    if (!arg.envname.empty()) notes.push_back("env " + arg.envname);
    for (std::size_t i = 0; i < notes.size(); ++i) text += (i == 0 ? " (" : ", ") + notes[i];
    if (!notes.empty()) text += ")";
    return text;
}

void write_row(std::ostream& out, const std::string& left, const std::string& right) {
    out << "  " << left;
    if (left.size() + 2 > kColumn) out << "\n" << std::string(kColumn + 2, ' ');
    else out << std::string(kColumn - left.size(), ' ');
    out << right << "\n";
}

void write_section(std::ostream& out, const std::string& title, const std::vector<ArgumentSpec>& args) {
    if (args.empty()) return;
    out << "\n" << title << "\n";
    for (const auto& arg : args) write_row(out, left_side(arg), right_side(arg));
}

std::vector<ArgumentSpec> arguments_of(const CLI::App& app, bool positional) {
    std::vector<ArgumentSpec> args;
    const auto path = command_path(app);
    for (const auto* o : app.get_options(visible_option))
        if (o->get_positional() == positional) args.push_back(describe_argument(*o, path));
    return args;
}

std::string usage(const CLI::App& app, const std::string& full_name, bool has_commands) {
    std::string line = full_name;
    const auto path = command_path(app);
    bool optional_flags = false;
    for (const auto* o : app.get_options(visible_option)) {
        const auto arg = describe_argument(*o, path);
        if (arg.positional) continue;
        if (arg.required) line += " " + arg.names.back() + (arg.takes_value() ? " " + arg.value_name : "");
        else optional_flags = true;
    }
    if (optional_flags || app.get_parent() != nullptr) line += " [flags]";
    for (const auto* o : app.get_options(visible_option)) {
        if (!o->get_positional()) continue;
        const auto name = describe_argument(*o, path).value_name;
        line += " " + (o->get_required() ? name : "[" + name + "]");
    }
    if (has_commands) line += " COMMAND";
    return line;
}

}  // namespace

std::string HelpFormatter::make_help(const CLI::App* app, std::string, CLI::AppFormatMode) const {
    const CLI::App* root = app;
    while (root->get_parent() != nullptr) root = root->get_parent();
    std::string full_name = "abcictl";
    for (const auto& p : command_path(*app)) full_name += " " + p;
    const auto commands = app->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });

    std::ostringstream out;
    out << app->get_description() << "\n\nUSAGE\n  " << usage(*app, full_name, !commands.empty()) << "\n";
    if (!commands.empty()) {
        out << "\nCOMMANDS\n";
        for (const auto* sub : commands) write_row(out, sub->get_name(), sub->get_description());
    }
    write_section(out, "ARGUMENTS", arguments_of(*app, true));
    write_section(out, app == root ? "GLOBAL FLAGS" : "FLAGS", arguments_of(*app, false));
    // Every command takes the root's flags (CLI11 falls through to them): say so where they are used.
    if (app != root) {
        auto globals = arguments_of(*root, false);
        std::erase_if(globals, [](const ArgumentSpec& a) { return a.names.back() == "--help"; });
        write_section(out, "GLOBAL FLAGS", globals);
    }
    if (const auto& examples = examples_of(*app); !examples.empty()) {
        out << "\nEXAMPLES\n";
        for (const auto& e : examples) out << "  # " << e.what << "\n  " << e.command << "\n";
    }
    if (!commands.empty()) out << "\nRun '" << full_name << " COMMAND --help' for more about a command.\n";
    return out.str();
}

}  // namespace abci::cli
