// Off the happy path on the command line (issue 14): a mistyped command or
// flag is named with the nearest real one, and a refused value is said in
// plain words, each with the usage exit code (health: UNKNOWN) and a pointer
// to the help of the command reached. Nothing here needs a server: every one
// of these is refused before anything is sent.

#include <catch2/catch.hpp>

#include "cli/exit_code.hpp"
#include "support/cli_runner.hpp"

using namespace abci;

namespace {

/// The one message line abcictl printed on stderr (before its usage hint).
std::string first_line(const std::string& err) { return err.substr(0, err.find('\n')); }

void check_refusal(const std::vector<std::string>& args, const std::string& message, const std::string& help_of,
                   int exit_code = cli::kExitUsage) {
    const test::CleanHome home;
    const auto r = test::run_abcictl(args, {}, home.env());
    INFO(r.err);
    CHECK(r.exit_code == exit_code);
    CHECK(r.out.empty());
    CHECK(first_line(r.err) == "abcictl: " + message);
    // Refusals of the parser point at the help; later ones (a bad --server) need none.
    if (!help_of.empty()) CHECK(r.err.find("Run '" + help_of + " --help' for usage.") != std::string::npos);
}

}  // namespace

TEST_CASE("a mistyped command is named with the nearest one", "[cli][usage]") {
    check_refusal({"mint-rol"}, "unknown command 'mint-rol' for 'abcictl'. Did you mean 'mint-role'?", "abcictl");
    check_refusal({"helth"}, "unknown command 'helth' for 'abcictl'. Did you mean 'health'?", "abcictl");
    check_refusal({"chains", "lst"}, "unknown command 'lst' for 'abcictl chains'. Did you mean 'list'?",
                  "abcictl chains");
    check_refusal({"admin", "user", "set-rol"},
                  "unknown command 'set-rol' for 'abcictl admin user'. Did you mean 'set-role'?", "abcictl admin user");
    // Nothing near: no suggestion, still what is wrong.
    check_refusal({"deploy"}, "unknown command 'deploy' for 'abcictl'", "abcictl");
    // Hidden commands are never offered.
    check_refusal({"__mam"}, "unknown command '__mam' for 'abcictl'", "abcictl");
}

TEST_CASE("a mistyped flag is named before any missing one", "[cli][usage]") {
    // CLI11 alone said "--address is required", hiding the typo.
    check_refusal({"balance", "--adress", "0x1", "--chain", "31337"},
                  "unknown flag --adress for 'abcictl balance'. Did you mean --address?", "abcictl balance");
    check_refusal({"balance", "--adress=0x1"}, "unknown flag --adress for 'abcictl balance'. Did you mean --address?",
                  "abcictl balance");
    // Global flags count as the command's own, after the command too.
    check_refusal({"balance", "--jsn"}, "unknown flag --jsn for 'abcictl balance'. Did you mean --json?",
                  "abcictl balance");
    check_refusal({"--sever", "http://x", "whoami"}, "unknown flag --sever for 'abcictl'. Did you mean --server?",
                  "abcictl");
    check_refusal({"whoami", "-x"}, "unknown flag -x for 'abcictl whoami'", "abcictl whoami");
    // health's bad arguments are UNKNOWN to a monitoring system, never CRITICAL.
    check_refusal({"health", "--warn-latncy", "5"},
                  "unknown flag --warn-latncy for 'abcictl health'. Did you mean --warn-latency?", "abcictl health",
                  cli::kExitHealthUnknown);
}

TEST_CASE("a command that needs a subcommand says which", "[cli][usage]") {
    check_refusal({"chains"}, "'abcictl chains' needs a command: list or status", "abcictl chains");
    check_refusal({}, "'abcictl' needs a command", "abcictl");
}

TEST_CASE("refused values are said in plain words", "[cli][usage]") {
    check_refusal({"mint-entity", "--amount", "0"}, "--amount must be a whole number of at least 1, not '0'",
                  "abcictl mint-entity");
    check_refusal({"mint-entity", "--amount", "2x"}, "--amount must be a whole number of at least 1, not '2x'",
                  "abcictl mint-entity");
    check_refusal({"admin", "audit", "--limit", "0"}, "--limit must be a whole number from 1 to 1000000, not '0'",
                  "abcictl admin audit");
    check_refusal({"admin", "journal", "list", "--limit", "-5"},
                  "--limit must be a whole number from 1 to 1000000, not '-5'", "abcictl admin journal list");
    check_refusal({"mint-role", "--timeout", "99999999999999999999999"},
                  "--timeout must be a whole number from 1 to 86400, not '99999999999999999999999'", "abcictl mint-role");
    check_refusal({"admin", "contract", "deploy", "--chain-id", "x"},
                  "--chain-id must be a whole number of at least 1, not 'x'", "abcictl admin contract deploy");
    check_refusal({"--color", "blue", "version"}, "--color must be auto, always or never, not 'blue'", "abcictl version");
    check_refusal({"mint-role", "--role", "producr"},
                  "--role must be producer, verifier, valuator or certifier, not 'producr'. Did you mean 'producer'?",
                  "abcictl mint-role");
    check_refusal({"admin", "apikey", "create", "--name", "n", "--scope", "abci:read,abci:mnt-entity"},
                  "--scope must be abci:read, abci:health or abci:mint-entity, not 'abci:mnt-entity'. "
                  "Did you mean 'abci:mint-entity'?",
                  "abcictl admin apikey create");
    check_refusal({"admin", "user", "add", "--email", "a@b.c", "--role", "amdin"},
                  "--role must be farmer, verifier, admin or developer, not 'amdin'. Did you mean 'admin'?",
                  "abcictl admin user add");
    check_refusal({"health", "--timeout", "0"}, "--timeout must be a number above 0, not '0'", "abcictl health",
                  cli::kExitHealthUnknown);
    check_refusal({"completion", "tcsh"}, "SHELL must be bash, zsh or fish, not 'tcsh'", "abcictl completion");
    check_refusal({"admin", "journal", "list", "--status", "minedd"},
                  "--status must be pending, mined, reverted, replaced, dropped, refused or abandoned, not 'minedd'. "
                  "Did you mean 'mined'?",
                  "abcictl admin journal list");
    // Past what the option's type holds is out of range too, not CLI11's "Could not convert".
    check_refusal({"health", "--warn-latency", "99999999999999999999"},
                  "--warn-latency must be a whole number from 1 to 3600000, not '99999999999999999999'", "abcictl health",
                  cli::kExitHealthUnknown);
}

TEST_CASE("a server given without its scheme is shown as typed, with an example", "[cli][usage]") {
    check_refusal({"--server", "127.0.0.1:8080", "whoami"},
                  "--server must be a URL such as http://127.0.0.1:8080, not '127.0.0.1:8080'", "");
    // Only credentials are hidden; the rest is the user's own input.
    check_refusal({"--server", "ftp://alice:s3cret@abci.example.org/Prod", "whoami"},
                  "--server must be a URL such as http://127.0.0.1:8080, not 'ftp://****@abci.example.org/Prod'", "");
    const test::CleanHome home;
    const auto r = test::run_abcictl({"whoami"}, {}, home.env({{"ABCICTL_SERVER", "https://bob:pw@h:99999"}}));
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(r.err.find("not 'https://****@h:99999'") != std::string::npos);
    CHECK(r.err.find("pw") == std::string::npos);
}

TEST_CASE("help for a mistyped command is the unknown-command error, and `abcictl help` is --help", "[cli][usage]") {
    // Not the top level's help with exit 0, as if the command existed.
    check_refusal({"mnt-role", "--help"}, "unknown command 'mnt-role' for 'abcictl'. Did you mean 'mint-role'?",
                  "abcictl");
    check_refusal({"chains", "stauts", "-h"}, "unknown command 'stauts' for 'abcictl chains'. Did you mean 'status'?",
                  "abcictl chains");
    check_refusal({"help", "mnt-role"}, "unknown command 'mnt-role' for 'abcictl'. Did you mean 'mint-role'?",
                  "abcictl");

    const test::CleanHome home;
    const auto same_as = [&](const std::vector<std::string>& help, const std::vector<std::string>& flag) {
        const auto asked = test::run_abcictl(help, {}, home.env());
        const auto flagged = test::run_abcictl(flag, {}, home.env());
        INFO(asked.err);
        CHECK(asked.exit_code == 0);
        CHECK(flagged.exit_code == 0);
        CHECK(!asked.out.empty());
        CHECK(asked.out == flagged.out);
    };
    same_as({"help"}, {"--help"});
    same_as({"help", "mint-role"}, {"mint-role", "--help"});
    same_as({"help", "chains", "status"}, {"chains", "status", "--help"});
}

TEST_CASE("a bad --address is refused under its own name, never the API's field name", "[cli][usage]") {
    const std::string rule = "--address must be an EVM address: 42 characters starting with 0x";
    check_refusal({"balance", "--address", "0x1234", "--chain", "devnet"}, rule, "abcictl balance");
    check_refusal({"mint-role", "--address", "0x1234", "--role", "producer", "--chain", "devnet"}, rule,
                  "abcictl mint-role");
    check_refusal({"mint-entity", "--address", "alice", "--chain", "devnet", "--type", "report", "--entity-id", "r1"},
                  rule, "abcictl mint-entity");
    check_refusal({"tokens", "metadata", "producer", "--chain", "devnet", "--address", "0x12"}, rule,
                  "abcictl tokens metadata");
    // A mixed-case address whose checksum is wrong: the server's words, still under --address.
    const test::CleanHome home;
    const auto r = test::run_abcictl(
        {"balance", "--address", "0x70997970c51812dc3A010C7d01b50e0d17dc79C8", "--chain", "devnet"}, {}, home.env());
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(r.err.rfind("abcictl: --address: ", 0) == 0);
    CHECK(r.err.find("userAddress") == std::string::npos);
}
