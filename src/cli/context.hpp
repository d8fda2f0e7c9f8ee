#pragma once
// What every command receives: the global options and the output channels.
// Data goes to stdout (table, JSON or a bare value); messages go to stderr.

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace abci::cli {

enum class ColorMode { automatic, always, never };

struct GlobalOptions {
    std::string server;   // API base URL (commands that talk to a server)
    std::string profile;  // session profile name
    bool json = false;    // machine-readable output
    bool quiet = false;   // only the essential value (e.g. a tx hash)
    ColorMode color = ColorMode::automatic;
    bool no_input = false;  // never prompt; fail instead
    bool yes = false;       // assume "yes" to confirmations
    int verbosity = 0;
};

/// A record printed as "key: value" lines, as JSON, or as its one essential value.
struct Record {
    std::vector<std::pair<std::string, std::string>> fields;
    std::string essential;  // what -q prints
};

class Context {
public:
    GlobalOptions options;
    /// The command line as typed (argv[0] first), for messages that name a command to run again.
    std::vector<std::string> argv;
    /// What the process exits with when the command returns normally (health's
    /// monitoring-plugin codes); errors thrown use exit_code_for().
    int exit_code = 0;

    /// Prints `record` honouring --json (the given JSON), -q (record.essential) or the human form.
    void print(const Record& record, const nlohmann::json& as_json) const;
    /// Prints rows under aligned headers, or `as_json` with --json; -q prints the first column.
    void print_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows,
                     const nlohmann::json& as_json) const;
    /// A progress or status message on stderr, suppressed by -q.
    void note(const std::string& message) const;
    /// Whether stdout gets ANSI colours: --color always/never, else only on a
    /// terminal and never when NO_COLOR is set (no-color.org).
    [[nodiscard]] bool color() const;
    /// `text` in bold when color(), else as is.
    [[nodiscard]] std::string bold(const std::string& text) const;
};

}  // namespace abci::cli
