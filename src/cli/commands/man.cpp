// `abcictl __man TEMPLATE`: the man page, roff, from a hand-written template
// (man/abcictl.1.in: the prose — description, environment, files, exit
// status, examples) with the command tree (cli/command_tree.hpp) written into
// it, so every command and option is documented as the binary has it.
// scripts/gen-cli-files writes man/abcictl.1 with it.
//
// In the template, "@VERSION@" becomes the version, and the comment lines
// `.\" @GLOBAL_OPTIONS@` and `.\" @COMMANDS@` become the global options and
// every command with its arguments and examples; `.\" @CLI_ENVIRONMENT@` and
// `.\" @CLI_CONFIG_KEYS@` the variables and config.toml keys of the CLI's
// settings table (cli/cli_settings.hpp); `.\" @SERVE_CONFIGURATION@` and
// `.\" @SERVE_ENVIRONMENT@` the server's settings and their environment
// variables, from its key table (serve/settings.hpp).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/cli_settings.hpp"
#include "cli/command_tree.hpp"
#include "cli/commands/commands.hpp"
#include "core/error.hpp"

#ifdef ABCI_WITH_SERVE
#include "serve/settings.hpp"
#endif

namespace abci::cli {
namespace {

/// `text` safe in roff: \ and - escaped (so options copy as typed), a line
/// never starting a request, and every non-ASCII character as \[uXXXX] (groff
/// reads Latin-1 unless told otherwise).
std::string roff(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (c == '\\') out += "\\e";
            else if (c == '-') out += "\\-";
            else if ((c == '.' || c == '\'') && (out.empty() || out.back() == '\n')) out += "\\&" + std::string(1, static_cast<char>(c));
            else out += static_cast<char>(c);
            continue;
        }
        const int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
        std::uint32_t code = c & (0x3F >> extra);
        for (int k = 0; k < extra && i + 1 < text.size(); ++k) code = (code << 6) | (static_cast<unsigned char>(text[++i]) & 0x3F);
        char hex[16];
        std::snprintf(hex, sizeof hex, "\\[u%04X]", static_cast<unsigned>(code));
        out += hex;
    }
    return out;
}

std::string bold(const std::string& text) { return "\\fB" + roff(text) + "\\fR"; }
std::string italic(const std::string& text) { return "\\fI" + roff(text) + "\\fR"; }

/// "-q, --quiet" or "--role producer|verifier": names in bold, the value in italics.
std::string usage(const ArgumentSpec& arg) {
    if (arg.positional) return italic(arg.value_name);
    std::string text;
    for (const auto& name : arg.names) text += (text.empty() ? "" : ", ") + bold(name);
    if (arg.takes_value()) text += " " + italic(arg.value_name);
    return text;
}

/// The description as a sentence, with what the binary knows beyond it.
std::string sentence(const ArgumentSpec& arg) {
    std::string text = arg.description;
    if (!text.empty() && text.back() != '.') text += '.';
    if (arg.required) text += " Required.";
    std::string out = roff(text);
    if (!arg.envname.empty()) out += " Environment: " + bold(arg.envname) + ".";
    return out;
}

void write_arguments(std::ostream& out, const std::vector<ArgumentSpec>& args) {
    for (const auto& arg : args) {
        if (arg.names.back() == "--help") continue;  // said once, in OPTIONS
        out << ".TP\n" << usage(arg) << "\n" << sentence(arg) << "\n";
    }
}

void write_command(std::ostream& out, const CommandSpec& command) {
    out << ".SS \"" << roff(command.name()) << "\"\n";
    std::string synopsis = bold("abcictl " + command.name());
    for (const auto& arg : command.options) {
        if (arg.names.back() == "--help") continue;
        const std::string one = bold(arg.names.back()) + (arg.takes_value() ? " " + italic(arg.value_name) : "");
        synopsis += " " + (arg.required ? one : "[" + one + "]");
    }
    for (const auto& arg : command.positionals) synopsis += " " + (arg.required ? usage(arg) : "[" + usage(arg) + "]");
    if (!command.subcommands.empty()) synopsis += " " + italic("command");
    std::string description = command.description;
    if (!description.empty() && description.back() != '.') description += '.';
    out << synopsis << "\n.br\n" << roff(description) << "\n";
    write_arguments(out, command.positionals);
    write_arguments(out, command.options);
    if (!command.examples.empty()) {
        out << ".PP\nExamples:\n.RS 4\n";
        for (const auto& e : command.examples) out << roff(e.what) << ":\n.br\n" << bold(e.command) << "\n.br\n";
        out << ".RE\n";
    }
    for (const auto& sub : command.subcommands) write_command(out, sub);
}

#ifdef ABCI_WITH_SERVE
/// "The description. Type: T. Default: D. Environment: E."
std::string setting_text(const serve::SettingKey& key, bool with_env) {
    std::string text = roff(key.description) + " Type: " + roff(key.type) + ".";
    if (!key.fallback.empty()) text += " Default: " + roff(key.fallback) + ".";
    if (with_env && !key.env.empty()) text += " Environment: " + bold(key.env) + ".";
    if (key.secret) text += " Masked by " + bold("--print-config") + ".";
    return text;
}

void write_serve_configuration(std::ostream& out) {
    for (const auto& key : serve::setting_keys())
        if (!key.key.empty()) out << ".TP\n.B " << roff(key.key) << "\n" << setting_text(key, true) << "\n";
}

void write_serve_environment(std::ostream& out) {
    for (const auto& key : serve::setting_keys()) {
        if (key.env.empty()) continue;
        out << ".TP\n.B " << roff(key.env) << "\n" << setting_text(key, false);
        if (!key.key.empty()) out << " As " << bold(key.key) << " in the configuration file.";
        out << "\n";
    }
}
#else
void write_serve_configuration(std::ostream&) {}
void write_serve_environment(std::ostream&) {}
#endif

std::string render(const CommandSpec& root, std::istream& in) {
    std::ostringstream out;
    std::string line;
    while (std::getline(in, line)) {
        if (line == ".\\\" @GLOBAL_OPTIONS@") {
            out << ".TP\n" << bold("-h") << ", " << bold("--help") << "\n"
                << "Print the help of abcictl, or of the command it follows, and exit.\n";
            write_arguments(out, root.options);
        } else if (line == ".\\\" @COMMANDS@") {
            for (const auto& command : root.subcommands) write_command(out, command);
        } else if (line == ".\\\" @CLI_ENVIRONMENT@") {
            for (const auto& s : cli_settings()) {
                if (s.env.empty()) continue;
                out << ".TP\n.B " << roff(std::string(s.env)) << "\n" << roff(std::string(s.description));
                if (!s.flag.empty()) out << ", when " << bold(std::string(s.flag)) << " is not given";
                out << ".\n";
            }
        } else if (line == ".\\\" @CLI_CONFIG_KEYS@") {
            out << ".RS 4\n";
            for (const auto& s : cli_settings()) {
                if (s.key.empty()) continue;
                out << ".TP\n" << bold(std::string(s.key)) << " (" << roff(std::string(s.type));
                if (!s.default_value.empty()) out << ", default " << roff(std::string(s.default_value));
                out << ")\n" << roff(std::string(s.description));
                if (!s.env.empty()) out << "; " << bold(std::string(s.env)) << " wins over it";
                if (!s.flag.empty()) out << ", and " << bold(std::string(s.flag)) << " over both";
                out << ".\n";
            }
            out << ".RE\n";
        } else if (line == ".\\\" @SERVE_CONFIGURATION@") {
            write_serve_configuration(out);
        } else if (line == ".\\\" @SERVE_ENVIRONMENT@") {
            write_serve_environment(out);
        } else {
            for (auto at = line.find("@VERSION@"); at != std::string::npos; at = line.find("@VERSION@"))
                line.replace(at, 9, ABCI_VERSION);
            out << line << "\n";
        }
    }
    return out.str();
}

}  // namespace

void add_man_command(CLI::App& app, Context&) {
    add_lazy_subcommand(app, "__man", "Print the man page (roff) from its template", [&app](CLI::App& cmd) {
        auto template_file = std::make_shared<std::string>();
        cmd.add_option("TEMPLATE", *template_file, "man/abcictl.1.in")->required();
        cmd.callback([template_file, &app] {
            std::ifstream in(*template_file);
            if (!in) throw Error(ErrorKind::not_found, "cannot read the man page template " + *template_file);
            std::cout << render(describe_commands(app), in);
        });
    })->group("");
}

}  // namespace abci::cli
