// `abcictl keystore …` through the real binary, with the real cast as the
// other side of every interop check. Passwords reach every process we start
// through files, stdin or the environment, never through argv.
//
// scrypt at geth's standard cost takes about a second per operation, so most
// cases use the ABCICTL_KEYSTORE_SCRYPT_N test knob; one case keeps the
// standard cost.

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_runner.hpp"
#include "support/tools.hpp"

namespace abci::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const Env kLightScrypt{{"ABCICTL_KEYSTORE_SCRYPT_N", "4096"}};

// anvil's first and second dev accounts (published test keys).
constexpr const char* kAnvilKey0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
constexpr const char* kAnvilAddress0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
constexpr const char* kAnvilKey1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
constexpr const char* kAnvilAddress1 = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
}

// Runs abcictl and requires success; returns stdout.
std::string ok(const std::vector<std::string>& args, std::string_view input = {}, const Env& env = {}) {
    const auto r = run_abcictl(args, input, env);
    INFO("abcictl stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    return r.out;
}

// cast with its password in the environment (CAST_PASSWORD and friends).
std::string cast_with_env(const std::vector<std::string>& args, const Env& env) {
    std::vector<std::string> argv{tool("cast")};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = os::run_command(argv, {}, std::chrono::seconds(60), env);
    INFO("cast stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    return trimmed(r.out);
}

// The address cast reads from a keystore file with the password in a file.
std::string cast_address(const std::string& keystore, const std::string& password_file) {
    return cast({"wallet", "address", "--keystore", keystore, "--password-file", password_file});
}

unsigned mode_of(const std::string& path) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

json read_json(const std::string& path) {
    std::ifstream in(path);
    return json::parse(in);
}

std::size_t line_count(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST_CASE("keystore new writes a file that cast decrypts to the same address", "[cli][keystore]") {
    const CleanHome home;
    const std::string password = home.write("pw", "correct horse battery staple\n");
    const std::string dir = home / "keys";

    const json made = json::parse(ok({"--json", "keystore", "new", "--dir", dir, "--password-file", password}, {},
                                     home.env(kLightScrypt)));
    const std::string address = made.at("address");
    const std::string file = made.at("path");
    CHECK(fs::path(file).parent_path() == dir);
    CHECK(fs::path(file).filename().string().starts_with("UTC--"));
    CHECK(mode_of(file) == 0600);
    CHECK(mode_of(dir) == 0700);
    const json doc = read_json(file);
    CHECK(doc.at("version") == 3);
    CHECK(doc.at("crypto").at("kdfparams").at("n") == 4096);

    // cast strips the file's newline too: both sides read the same password.
    CHECK(cast_address(file, password) == address);
    CHECK(trimmed(ok({"-q", "keystore", "address", file, "--password-stdin"}, "correct horse battery staple\n",
                     home.env())) == address);
}

TEST_CASE("keystore new at geth's standard scrypt cost, password from stdin", "[cli][keystore]") {
    const CleanHome home;
    const std::string out =
        ok({"keystore", "new", "--dir", home / "keys", "--password-stdin"}, "s3cret-standard\n", home.env());
    // Human form: "key: value" lines.
    std::istringstream lines(out);
    std::string address_line, path_line;
    std::getline(lines, address_line);
    std::getline(lines, path_line);
    REQUIRE(address_line.starts_with("address: 0x"));
    REQUIRE(path_line.starts_with("path:"));
    const std::string address = address_line.substr(address_line.find("0x"));
    const std::string file = path_line.substr(path_line.find('/'));
    CHECK(read_json(file).at("crypto").at("kdfparams").at("n") == 262144);
    CHECK(cast_address(file, home.write("pw", "s3cret-standard")) == address);
}

TEST_CASE("keystore list and address read cast's keystores", "[cli][keystore]") {
    const CleanHome home;
    const std::string dir = home / "keys";
    const std::string password = home.write("pw", "cast-pw");
    fs::create_directories(dir);
    home.write("keys/notes.txt", "not a keystore");

    const std::string created = cast_with_env({"wallet", "new", dir}, {{"CAST_PASSWORD", "cast-pw"}});
    const std::string cast_new_address = created.substr(created.rfind("0x"));
    cast_with_env({"wallet", "import", "imported", "--private-key", kAnvilKey1, "--keystore-dir", dir},
                  {{"CAST_UNSAFE_PASSWORD", "cast-pw"}});
    const json ours =
        json::parse(ok({"--json", "keystore", "new", "--dir", dir, "--password-file", password}, {}, home.env(kLightScrypt)));

    const json listed = json::parse(ok({"--json", "keystore", "list", "--dir", dir}, {}, home.env()));
    REQUIRE(listed.size() == 3);  // notes.txt is skipped
    std::vector<std::string> cast_files;
    for (const auto& entry : listed) {
        if (entry.at("path") == ours.at("path")) {
            CHECK(entry.at("address") == ours.at("address"));
        } else {
            CHECK(entry.at("address").is_null());  // cast writes no address field
            cast_files.push_back(entry.at("path"));
        }
    }
    REQUIRE(cast_files.size() == 2);

    const std::string table = ok({"keystore", "list", "--dir", dir}, {}, home.env());
    CHECK(table.starts_with("ADDRESS"));
    CHECK(line_count(table) == 4);
    CHECK(table.find("(unknown)") != std::string::npos);
    const std::string paths = ok({"-q", "keystore", "list", "--dir", dir}, {}, home.env());
    CHECK(line_count(paths) == 3);
    CHECK(paths.find(cast_files.front() + "\n") != std::string::npos);

    std::vector<std::string> decrypted;
    for (const auto& file : cast_files)
        decrypted.push_back(trimmed(ok({"-q", "keystore", "address", file, "--password-file", password}, {}, home.env())));
    CHECK_THAT(decrypted, Catch::Matchers::UnorderedEquals(std::vector<std::string>{cast_new_address, kAnvilAddress1}));
}

TEST_CASE("keystore import takes a private key from stdin", "[cli][keystore]") {
    const CleanHome home;
    const std::string dir = home / "keys";
    const std::string password = home.write("pw", "import-pw");
    const std::vector<std::string> import{"-q", "keystore", "import", "--dir", dir, "--password-file", password,
                                          "--private-key-stdin"};

    CHECK(trimmed(ok(import, std::string(kAnvilKey0) + "\n", home.env(kLightScrypt))) == kAnvilAddress0);
    const auto files = json::parse(ok({"--json", "keystore", "list", "--dir", dir}, {}, home.env()));
    REQUIRE(files.size() == 1);
    CHECK(files[0].at("address") == kAnvilAddress0);
    CHECK(cast_address(files[0].at("path"), password) == kAnvilAddress0);

    SECTION("the same account twice is refused") {
        const auto again = run_abcictl(import, kAnvilKey0, home.env(kLightScrypt));
        CHECK(again.exit_code == 1);
        CHECK(again.err.find("already exists") != std::string::npos);
    }
    SECTION("a malformed key is invalid input, and is not echoed") {
        const auto bad = run_abcictl(import, "0xnot-a-key-secret", home.env(kLightScrypt));
        CHECK(bad.exit_code == 2);
        CHECK(bad.err.find("not-a-key-secret") == std::string::npos);
    }
    SECTION("the key and the password cannot both come from stdin") {
        const auto both = run_abcictl({"keystore", "import", "--dir", dir, "--password-stdin", "--private-key-stdin"},
                                      kAnvilKey0, home.env(kLightScrypt));
        CHECK(both.exit_code == 2);
    }
}

TEST_CASE("keystore default directory: ABCICTL_KEYSTORE_DIR, XDG_DATA_HOME, ~/.local/share", "[cli][keystore]") {
    const CleanHome home;
    const std::string password = home.write("pw", "pw");
    auto new_in = [&](const Env& env) {
        return fs::path(json::parse(ok({"--json", "keystore", "new", "--password-file", password}, {},
                                       home.env(env)))
                            .at("path")
                            .get<std::string>())
            .parent_path();
    };

    // Before any key exists, list says so on stderr and prints nothing.
    const auto empty = run_abcictl({"--json", "keystore", "list"}, {}, home.env());
    CHECK(empty.exit_code == 0);
    CHECK(json::parse(empty.out) == json::array());

    Env env = kLightScrypt;
    const fs::path fallback = home.path() / ".local/share/abcictl/keystores";
    CHECK(new_in(env) == fallback);
    CHECK(mode_of(fallback.string()) == 0700);
    env["XDG_DATA_HOME"] = home / "xdg";
    CHECK(new_in(env) == home.path() / "xdg/abcictl/keystores");
    env["ABCICTL_KEYSTORE_DIR"] = home / "chosen";
    CHECK(new_in(env) == home.path() / "chosen");
    CHECK(line_count(ok({"-q", "keystore", "list"}, {}, home.env(env))) == 1);
}

TEST_CASE("keystore errors: one line on stderr and the documented exit code", "[cli][keystore]") {
    const CleanHome home;
    const std::string dir = home / "keys";
    const std::string password = home.write("pw", "right\n");
    const std::string file =
        json::parse(ok({"--json", "keystore", "new", "--dir", dir, "--password-file", password}, {},
                       home.env(kLightScrypt)))
            .at("path");

    SECTION("wrong password: exit 4") {
        const auto r = run_abcictl({"keystore", "address", file, "--password-stdin"}, "wrong\n", home.env());
        CHECK(r.exit_code == 4);
        CHECK(r.out.empty());
        CHECK(line_count(r.err) == 1);
        CHECK(r.err.find("wrong password for keystore " + file) != std::string::npos);
    }
    SECTION("only ONE trailing newline is stripped from a password file") {
        const auto r = run_abcictl({"keystore", "address", file, "--password-file", home.write("pw2", "right\n\n")},
                                   {}, home.env());
        CHECK(r.exit_code == 4);
    }
    SECTION("no password source with --no-input: exit 2, naming the flags") {
        const auto r = run_abcictl({"--no-input", "keystore", "address", file}, {}, home.env());
        CHECK(r.exit_code == 2);
        CHECK(line_count(r.err) == 1);
        CHECK(r.err.find("--password-file") != std::string::npos);
    }
    SECTION("no password source and no terminal: exit 2") {
        const auto r = run_abcictl({"keystore", "new", "--dir", dir}, {}, home.env(kLightScrypt));
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("--password-stdin") != std::string::npos);
    }
    SECTION("passwords are never taken from the command line") {
        const auto r = run_abcictl({"keystore", "new", "--dir", dir, "--password", "right"}, {}, home.env(kLightScrypt));
        CHECK(r.exit_code == 2);
    }
    SECTION("an empty password is refused for a new keystore") {
        const auto r = run_abcictl({"keystore", "new", "--dir", dir, "--password-stdin"}, "\n", home.env(kLightScrypt));
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("empty password") != std::string::npos);
    }
    SECTION("a password file others can read works, with a warning") {
        const std::string shared = home.write("shared-pw", "right", fs::perms::owner_read | fs::perms::others_read);
        const auto r = run_abcictl({"-q", "keystore", "address", file, "--password-file", shared}, {}, home.env());
        CHECK(r.exit_code == 0);
        CHECK(r.err.find("warning") != std::string::npos);
    }
    SECTION("a missing keystore file: exit 1") {
        const auto r = run_abcictl({"keystore", "address", home / "nope", "--password-file", password}, {}, home.env());
        CHECK(r.exit_code == 1);
        CHECK(line_count(r.err) == 1);
    }
}

TEST_CASE("keystore prompts on the terminal with echo off, and restores it on Ctrl-C", "[cli][keystore]") {
    const CleanHome home;
    const std::string dir = home / "keys";

    const auto created = run_abcictl_on_terminal({"keystore", "new", "--dir", dir}, {"typed-pw", "typed-pw"},
                                                 home.env(kLightScrypt));
    INFO(created.transcript);
    REQUIRE(created.exit_code == 0);
    CHECK(created.prompts == 2);  // asked twice: the password is being chosen
    CHECK_FALSE(created.echoed_at_prompt);
    CHECK(created.echo_after);
    CHECK(created.transcript.find("typed-pw") == std::string::npos);
    const auto listed = json::parse(ok({"--json", "keystore", "list", "--dir", dir}, {}, home.env()));
    REQUIRE(listed.size() == 1);
    const std::string file = listed[0].at("path");
    CHECK(cast_address(file, home.write("pw", "typed-pw")) == listed[0].at("address"));

    const auto mismatch = run_abcictl_on_terminal({"keystore", "new", "--dir", dir}, {"one", "two"},
                                                  home.env(kLightScrypt));
    CHECK(mismatch.exit_code == 2);

    const auto interrupted = run_abcictl_on_terminal({"keystore", "address", file}, {}, home.env(), true);
    CHECK(interrupted.exit_code == 128 + SIGINT);
    CHECK(interrupted.prompts == 1);
    CHECK_FALSE(interrupted.echoed_at_prompt);
    CHECK(interrupted.echo_after);
}

}  // namespace
}  // namespace abci::test
