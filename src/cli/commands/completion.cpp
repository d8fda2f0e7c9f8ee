// `abcictl completion bash|zsh|fish`: a completion script generated from the
// command tree at run time (cli/command_tree.hpp), so every command and option
// completes without being listed here. Each script holds the tree as data and
// a small walker in the shell's own language: it follows the words typed so
// far down the subcommands (skipping option values), then offers the
// subcommands, the options of the command and of its parents (abcictl accepts
// a parent's options after its subcommands), or the values of the option
// before the cursor. Chain ids come from `abcictl __complete-chains`, which
// reads the chain cache and never the network.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/api_client.hpp"
#include "cli/command_tree.hpp"
#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/session.hpp"
#include "cli/state_db.hpp"
#include "cli/validators.hpp"

namespace abci::cli {
namespace {

void flatten(const CommandSpec& command, std::vector<const CommandSpec*>& out) {
    out.push_back(&command);
    for (const auto& sub : command.subcommands) flatten(sub, out);
}

std::vector<const CommandSpec*> all_commands(const CommandSpec& root) {
    std::vector<const CommandSpec*> commands;
    flatten(root, commands);
    return commands;
}

std::string join_names(const std::vector<CommandSpec>& commands, const std::string& separator) {
    std::string joined;
    for (const auto& c : commands) joined += (joined.empty() ? "" : separator) + c.path.back();
    return joined;
}

/// A command in the scripts: its words from "abcictl" on (bash refuses an empty key).
std::string key_of(const CommandSpec& command) { return command.path.empty() ? "abcictl" : "abcictl " + command.name(); }

/// What the scripts store for an argument: "-" for a flag, else its value kind.
std::string kind_word(const ArgumentSpec& arg) {
    switch (arg.kind) {
        case ValueKind::none: return "-";
        case ValueKind::text: return "text";
        case ValueKind::file: return "file";
        case ValueKind::directory: return "directory";
        case ValueKind::chain: return "chain";
        case ValueKind::choice: {
            std::string words = "choice:";
            for (std::size_t i = 0; i < arg.choices.size(); ++i) words += (i ? " " : "") + arg.choices[i];
            return words;
        }
    }
    return "text";
}

/// The scripts' keys: "<command> <option>" for every name of every option,
/// "<command> #<n>" for the n-th positional argument.
template <typename Visit>
void for_each_argument_key(const CommandSpec& command, Visit visit) {
    for (const auto& option : command.options)
        for (const auto& name : option.names) visit(key_of(command) + " " + name, option);
    for (std::size_t i = 0; i < command.positionals.size(); ++i)
        visit(key_of(command) + " #" + std::to_string(i), command.positionals[i]);
}

std::string bash_quote(const std::string& text) {
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '\\' || c == '"' || c == '$' || c == '`') quoted += '\\';
        quoted += c;
    }
    return quoted + "\"";
}

// Single quotes in zsh: a ' ends the quote, is escaped, and the quote resumes.
std::string zsh_quote(const std::string& text) {
    std::string quoted = "'";
    for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// Single quotes in fish: \ and ' are escaped with a backslash.
std::string fish_quote(const std::string& text) {
    std::string quoted = "'";
    for (const char c : text) {
        if (c == '\\' || c == '\'') quoted += '\\';
        quoted += c;
    }
    return quoted + "'";
}

/// The tables the bash and zsh scripts share, each entry written by
/// `entry(key, value)`: the subcommands of each command, and what each
/// argument's value completes to.
template <typename Entry>
void write_tables(std::ostream& s, const CommandSpec& root, const char* commands_open, const char* args_open, Entry entry) {
    s << "# The subcommands of each command.\n" << commands_open << "\n";
    for (const auto* c : all_commands(root))
        if (!c->subcommands.empty()) entry(key_of(*c), join_names(c->subcommands, " "));
    s << ")\n\n"
      << "# <command> <option>, and <command> #<n> for its n-th positional argument:\n"
      << "# - for a flag, else what the value completes to: choice:WORDS, file,\n"
      << "# directory, chain (ids from the chain cache) or text (nothing).\n"
      << args_open << "\n";
    for (const auto* c : all_commands(root))
        for_each_argument_key(*c, [&](const std::string& key, const ArgumentSpec& arg) { entry(key, kind_word(arg)); });
    s << ")\n";
}

constexpr const char* kGeneratedBy = " from abcictl's command tree: do not edit.\n";

std::string bash_script(const CommandSpec& root) {
    std::ostringstream s;
    s << "# bash completion for abcictl\n"
      << "# Generated by `abcictl completion bash`" << kGeneratedBy
      << "# Use: source <(abcictl completion bash), or install it as\n"
      << "# share/bash-completion/completions/abcictl.\n\n";
    write_tables(s, root, "declare -gA _abcictl_commands=(", "declare -gA _abcictl_args=(",
                 [&](const std::string& key, const std::string& value) {
                     s << "    [" << bash_quote(key) << "]=" << bash_quote(value) << "\n";
                 });
    s << R"BASH(
# The entry of option $2 of command $1 or of its parents (their options may
# follow a subcommand) in REPLY; status 1 when there is none.
_abcictl_arg() {
    local cmd=$1
    while :; do
        REPLY=${_abcictl_args["$cmd $2"]-}
        [[ -n $REPLY ]] && return 0
        [[ $cmd == *" "* ]] || return 1
        cmd=${cmd% *}
    done
}

_abcictl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev cmd=abcictl word key p kind="" opts="" i npos=0
    local -a server=()
    COMPREPLY=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [[ $word == -?* ]]; then
            if [[ $word != *=* ]] && _abcictl_arg "$cmd" "$word" && [[ $REPLY != - ]]; then
                [[ ${COMP_WORDS[i + 1]-} == = ]] && i=$((i + 1))
                [[ $word == --server || $word == --profile ]] && server+=("$word" "${COMP_WORDS[i + 1]-}")
                i=$((i + 1))
            fi
        elif [[ " ${_abcictl_commands[$cmd]-} " == *" $word "* ]]; then
            cmd="$cmd $word"
            npos=0
        elif [[ $word != = ]]; then
            npos=$((npos + 1))
        fi
    done

    prev=${COMP_WORDS[COMP_CWORD - 1]-}
    if [[ $cur == = ]]; then
        cur=""
    elif [[ $prev == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]-}
    fi
    if [[ $prev == -?* ]] && _abcictl_arg "$cmd" "$prev" && [[ $REPLY != - ]]; then
        kind=$REPLY
    elif [[ $cur == -* ]]; then
        p=$cmd
        while :; do
            for key in "${!_abcictl_args[@]}"; do
                [[ $key == "$p -"* ]] && opts+=" ${key#"$p "}"
            done
            [[ $p == *" "* ]] || break
            p=${p% *}
        done
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
        return 0
    else
        kind=${_abcictl_args["$cmd #$npos"]-}
        mapfile -t COMPREPLY < <(compgen -W "${_abcictl_commands[$cmd]-}" -- "$cur")
    fi
    case $kind in
        choice:*) mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -W "${kind#choice:}" -- "$cur") ;;
        file)
            compopt -o filenames 2>/dev/null
            mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
            ;;
        directory)
            compopt -o filenames 2>/dev/null
            mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$cur")
            ;;
        chain)
            mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -W \
                "$("${COMP_WORDS[0]}" "${server[@]}" __complete-chains 2>/dev/null)" -- "$cur")
            ;;
    esac
    return 0
}

complete -F _abcictl abcictl
)BASH";
    return s.str();
}

std::string zsh_script(const CommandSpec& root) {
    std::ostringstream s;
    s << "#compdef abcictl\n"
      << "# zsh completion for abcictl\n"
      << "# Generated by `abcictl completion zsh`" << kGeneratedBy
      << "# Use: install it as _abcictl in a directory of $fpath (e.g.\n"
      << "# share/zsh/site-functions), or source <(abcictl completion zsh) after compinit.\n\n"
      << "typeset -gA _abcictl_commands _abcictl_args _abcictl_descriptions\n\n";
    write_tables(s, root, "_abcictl_commands=(", "_abcictl_args=(", [&](const std::string& key, const std::string& value) {
        s << "    " << zsh_quote(key) << " " << zsh_quote(value) << "\n";
    });
    s << "\n"
      << "# What each command and option is for, by <command> and by <command> <option>.\n"
      << "_abcictl_descriptions=(\n";
    for (const auto* c : all_commands(root)) {
        if (!c->path.empty()) s << "    " << zsh_quote(key_of(*c)) << " " << zsh_quote(c->description) << "\n";
        for (const auto& option : c->options)
            for (const auto& name : option.names)
                s << "    " << zsh_quote(key_of(*c) + " " + name) << " " << zsh_quote(option.description) << "\n";
    }
    s << ")\n" << R"ZSH(
# The entry of option $2 of command $1 or of its parents (their options may
# follow a subcommand) in REPLY; status 1 when there is none.
_abcictl_arg() {
    local cmd=$1 key
    while true; do
        key="$cmd $2"
        REPLY=${_abcictl_args[$key]-}
        [[ -n $REPLY ]] && return 0
        [[ $cmd == *' '* ]] || return 1
        cmd=${cmd% *}
    done
}

_abcictl() {
    local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmd=abcictl word key p kind=''
    local -i i npos=0
    local -a server opts subs
    for (( i = 2; i < CURRENT; i++ )); do
        word=${words[i]}
        if [[ $word == -?* ]]; then
            if [[ $word != *=* ]] && _abcictl_arg "$cmd" "$word" && [[ $REPLY != - ]]; then
                [[ $word == (--server|--profile) ]] && server+=("$word" "${words[i+1]}")
                i+=1
            fi
        elif [[ " ${_abcictl_commands[$cmd]-} " == *" $word "* ]]; then
            cmd="$cmd $word"
            npos=0
        else
            npos+=1
        fi
    done

    if [[ $cur == -*=* ]]; then
        prev=${cur%%=*}
        compset -P '*='
        cur=${cur#*=}
    fi
    if [[ $prev == -?* ]] && _abcictl_arg "$cmd" "$prev" && [[ $REPLY != - ]]; then
        kind=$REPLY
    elif [[ $cur == -* ]]; then
        p=$cmd
        while true; do
            for key in "${(@k)_abcictl_args}"; do
                [[ $key == "$p -"* ]] && opts+=("${key#"$p "}:${_abcictl_descriptions[$key]-}")
            done
            [[ $p == *' '* ]] || break
            p=${p% *}
        done
        _describe -t options option opts
        return
    else
        key="$cmd #$npos"
        kind=${_abcictl_args[$key]-}
        for word in ${=_abcictl_commands[$cmd]-}; do
            key="$cmd $word"
            subs+=("$word:${_abcictl_descriptions[$key]-}")
        done
        (( $#subs )) && _describe -t commands command subs
    fi
    case $kind in
        choice:*) compadd -- ${=kind#choice:} ;;
        file) _files ;;
        directory) _files -/ ;;
        chain) compadd -- ${(f)"$(${words[1]} "${server[@]}" __complete-chains 2>/dev/null)"} ;;
    esac
}

if [[ ${zsh_eval_context[-1]-} == loadautofunc ]]; then
    _abcictl "$@"
else
    compdef _abcictl abcictl
fi
)ZSH";
    return s.str();
}

std::string fish_script(const CommandSpec& root) {
    std::ostringstream s;
    s << "# fish completion for abcictl\n"
      << "# Generated by `abcictl completion fish`" << kGeneratedBy
      << "# Use: install it as share/fish/vendor_completions.d/abcictl.fish (or\n"
      << "# ~/.config/fish/completions/abcictl.fish), or: abcictl completion fish | source\n\n"
      << "# Every '<command> <option>' whose option takes a value.\n"
      << "set -g __abcictl_valued";
    for (const auto* c : all_commands(root))
        for (const auto& option : c->options)
            if (option.takes_value())
                for (const auto& name : option.names) s << " \\\n    " << fish_quote(key_of(*c) + " " + name);
    s << "\n\n# The subcommands of command $argv[1].\nfunction __abcictl_subcommands\n    switch $argv[1]\n";
    for (const auto* c : all_commands(root))
        if (!c->subcommands.empty())
            s << "        case " << fish_quote(key_of(*c)) << "\n            printf '%s\\n' "
              << join_names(c->subcommands, " ") << "\n";
    s << "    end\nend\n" << R"FISH(
# Whether option $argv[2] of command $argv[1] or of its parents (their
# options may follow a subcommand) takes a value.
function __abcictl_takes_value --argument-names cmd option
    while true
        contains -- "$cmd $option" $__abcictl_valued; and return 0
        string match -q -- '* *' $cmd; or return 1
        set cmd (string replace -r ' [^ ]*$' '' -- $cmd)
    end
end

# Follows the words typed so far down the subcommands: the command reached in
# __abcictl_cmd, the --server/--profile given in __abcictl_server.
function __abcictl_walk
    set -g __abcictl_cmd abcictl
    set -g __abcictl_server
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l value_of ''
    for word in $tokens
        if test -n "$value_of"
            contains -- $value_of --server --profile; and set -a __abcictl_server $value_of $word
            set value_of ''
        else if string match -q -- '-?*' $word
            if not string match -q -- '*=*' $word; and __abcictl_takes_value "$__abcictl_cmd" $word
                set value_of $word
            end
        else if contains -- $word (__abcictl_subcommands "$__abcictl_cmd")
            set __abcictl_cmd "$__abcictl_cmd $word"
        end
    end
end

# The command line has reached command $argv[1].
function __abcictl_at
    __abcictl_walk
    test "$__abcictl_cmd" = "$argv[1]"
end

# The command line has reached command $argv[1] or one of its subcommands.
function __abcictl_under
    __abcictl_walk
    test "$__abcictl_cmd" = "$argv[1]"; or string match -q -- "$argv[1] *" "$__abcictl_cmd"
end

# The chain ids in the cache of the server the command line names.
function __abcictl_chains
    __abcictl_walk
    set -l tokens (commandline -opc)
    $tokens[1] $__abcictl_server __complete-chains 2>/dev/null
end

complete -c abcictl -f
)FISH";
    // What a value completes to, as `complete` arguments.
    auto value_arguments = [](const ArgumentSpec& arg) -> std::string {
        switch (arg.kind) {
            case ValueKind::none: return "";
            case ValueKind::text: return " -x";
            case ValueKind::file: return " -r -F";
            case ValueKind::directory: return " -x -a '(__fish_complete_directories (commandline -ct))'";
            case ValueKind::chain: return " -x -a '(__abcictl_chains)'";
            case ValueKind::choice: return " -x -a " + fish_quote(kind_word(arg).substr(std::string("choice:").size()));
        }
        return "";
    };
    for (const auto* c : all_commands(root)) {
        s << "\n# " << key_of(*c) << "\n";
        const std::string at = fish_quote("__abcictl_at " + fish_quote(key_of(*c)));
        for (const auto& sub : c->subcommands)
            s << "complete -c abcictl -n " << at << " -a " << sub.path.back() << " -d " << fish_quote(sub.description) << "\n";
        for (const auto& positional : c->positionals)
            s << "complete -c abcictl -n " << at << value_arguments(positional) << " -d "
              << fish_quote(positional.description) << "\n";
        for (const auto& option : c->options) {
            s << "complete -c abcictl -n " << fish_quote("__abcictl_under " + fish_quote(key_of(*c)));
            for (const auto& name : option.names)
                s << (name.size() == 2 ? " -s " + name.substr(1) : " -l " + name.substr(2));
            s << value_arguments(option) << " -d " << fish_quote(option.description) << "\n";
        }
    }
    return s.str();
}

/// The ids of the chains cached for the server the options name; nothing
/// when there is no state.db (it is not created) or no cache for that server.
std::vector<std::string> cached_chain_ids(GlobalOptions& options) {
    apply_config_file(options);
    const auto path = StateDb::existing_path();
    if (!path) return {};
    StateDb state(*path);
    const auto cached = state.cached_chains(ApiClient(options.server).base_url());
    if (!cached) return {};
    const auto answer = nlohmann::json::parse(cached->answer);
    std::vector<std::string> ids;
    for (const auto& chain : answer.at("data"))
        if (chain.contains("id") && chain["id"].is_string()) ids.push_back(chain["id"].get<std::string>());
    return ids;
}

}  // namespace

void add_completion_command(CLI::App& app, Context& ctx) {
    const char* description = "Print the shell completion script for bash, zsh or fish";
    add_lazy_subcommand(app, "completion", description, [&app](CLI::App& cmd) {
        set_examples(cmd, {
                     {"Completions in the current bash", "source <(abcictl completion bash)"},
                     {"Installed for zsh", "abcictl completion zsh > ~/.zfunc/_abcictl"}});
        auto shell = std::make_shared<std::string>();
        one_of(cmd.add_option("SHELL", *shell, "The shell to complete in")->required(), {"bash", "zsh", "fish"});
        cmd.callback([shell, &app] {
            const auto root = describe_commands(app);
            std::cout << (*shell == "bash"  ? bash_script(root)
                          : *shell == "zsh" ? zsh_script(root)
                                            : fish_script(root));
        });
    });

    // For the scripts: cached chain ids, one a line. Silent and exit 0 on any
    // failure, since whatever it printed would land in the user's prompt.
    const char* chains_description = "Chain ids from the chain cache (for completion scripts)";
    add_lazy_subcommand(app, "__complete-chains", chains_description, [&ctx](CLI::App& cmd) {
        cmd.callback([&ctx] {
            try {
                for (const auto& id : cached_chain_ids(ctx.options)) std::cout << id << "\n";
            } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): see above
            }
        });
    })->group("");
}

}  // namespace abci::cli
