// `abcictl keystore …`: encrypted key files in the Web3 Secret Storage format,
// interchangeable with geth's and cast's.

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/secret_input.hpp"
#include "core/error.hpp"
#include "core/keystore/keystore.hpp"
#include "core/os/xdg.hpp"

namespace abci::cli {
namespace {

namespace fs = std::filesystem;

void add_dir_option(CLI::App& command, std::string& dir) {
    command
        .add_option("--dir", dir,
                    "Keystore directory (default: $ABCICTL_KEYSTORE_DIR, else $XDG_DATA_HOME/abcictl/keystores, "
                    "else ~/.local/share/abcictl/keystores)")
        ->envname("ABCICTL_KEYSTORE_DIR")
        ->type_name("DIR");
}

// What `new`, `import` and `address` print: a key's address (-q) and its file.
void print_key(const Context& ctx, const std::string& address, const std::string& path) {
    ctx.print({{{"address", address}, {"path", path}}, address}, {{"address", address}, {"path", path}});
}

// The directory given, or the default one (see add_dir_option).
fs::path keystore_dir(const std::string& given) {
    if (!given.empty()) return given;
    if (auto dir = os::xdg_path(os::XdgBase::data, "abcictl/keystores")) return *dir;
    throw Error(ErrorKind::invalid_input, "no keystore directory: HOME is not set; pass --dir DIR");
}

// Settings shared by the subcommands that write a new keystore.
struct WriteSettings {
    std::string dir;
    SecretInput password{"password", "password", true};
    // Tests only: a lighter scrypt cost than geth's standard one (which takes
    // about a second per key). Hidden from --help; also ABCICTL_KEYSTORE_SCRYPT_N.
    std::uint64_t scrypt_n = keystore::ScryptParams{}.n;

    void add_to(CLI::App& command) {
        add_dir_option(command, dir);
        password.add_to(command);
        command.add_option("--scrypt-n", scrypt_n)->envname("ABCICTL_KEYSTORE_SCRYPT_N")->group("");
    }

    // Asks for the new keystore's password (twice at a prompt), writes `key`
    // and prints its address and path.
    void write(const Context& ctx, const eth::PrivateKey& key) const {
        const fs::path directory = keystore_dir(dir);
        const Secret secret = password.read(ctx.options.no_input, "for the new keystore", true);
        if (secret.empty())
            throw Error(ErrorKind::invalid_input, "refusing an empty password: it would leave the key unprotected");
        const fs::path path = keystore::write_file(directory, key, secret.view(), {.n = scrypt_n});
        print_key(ctx, key.address().checksummed(), path.string());
    }
};

void add_new(CLI::App& parent, Context& ctx) {
    auto settings = std::make_shared<WriteSettings>();
    auto* command = parent.add_subcommand("new", "Generate a key and save it in a new encrypted keystore");
    set_examples(*command, {
                 {"A new key in the default directory (the password is asked twice)", "abcictl keystore new"},
                 {"The password from a file, for a script", "abcictl keystore new --password-file signer.pw"}});
    settings->add_to(*command);
    command->callback([settings, &ctx] { settings->write(ctx, eth::PrivateKey::generate()); });
}

void add_import(CLI::App& parent, Context& ctx) {
    struct Settings {
        WriteSettings write;
        SecretInput private_key{"private key", "private-key", false};
    };
    auto settings = std::make_shared<Settings>();
    auto* command = parent.add_subcommand("import", "Save an existing private key (hex) in a new encrypted keystore");
    set_examples(*command, {
                 {"A key from a file (never on the command line)", "abcictl keystore import --private-key-stdin < key.hex"}});
    settings->write.add_to(*command);
    settings->private_key.add_to(*command)->excludes("--password-stdin");
    command->callback([settings, &ctx] {
        const Secret hex = settings->private_key.read(ctx.options.no_input, "to import", false);
        std::string_view text = hex.view();
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
        const eth::PrivateKey key = eth::PrivateKey::from_hex(text);

        // geth refuses a second keystore for the same account in one directory:
        // two files with one key would only confuse `list`.
        const fs::path directory = keystore_dir(settings->write.dir);
        if (fs::is_directory(directory))
            for (const auto& entry : keystore::list(directory))
                if (entry.address == key.address())
                    throw Error(ErrorKind::conflict, "a keystore for " + key.address().checksummed() +
                                                         " already exists: " + entry.path.string());
        settings->write.write(ctx, key);
    });
}

void add_list(CLI::App& parent, Context& ctx) {
    auto dir = std::make_shared<std::string>();
    auto* command = parent.add_subcommand("list", "List the keystores in a directory (-q: their paths)");
    set_examples(*command, {
                 {"The keystores of the default directory", "abcictl keystore list"},
                 {"Those of another directory", "abcictl keystore list --dir ./keys"}});
    add_dir_option(*command, *dir);
    command->callback([dir, &ctx] {
        const fs::path directory = keystore_dir(*dir);
        std::vector<keystore::Entry> entries;
        if (fs::exists(directory))
            entries = keystore::list(directory);
        else
            ctx.note("no keystore directory " + directory.string() + " yet ('abcictl keystore new' creates it)");

        // -q prints paths: every entry has one (cast's files name no address),
        // and it is what `keystore address` and `--keystore` take.
        if (ctx.options.quiet && !ctx.options.json) {
            for (const auto& entry : entries) std::cout << entry.path.string() << "\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        nlohmann::json json = nlohmann::json::array();
        for (const auto& entry : entries) {
            const std::string path = entry.path.string();
            rows.push_back({entry.address ? entry.address->checksummed() : "(unknown)", path});
            json.push_back({{"address", entry.address ? nlohmann::json(entry.address->checksummed()) : nullptr},
                            {"path", path}});
        }
        ctx.print_table({"ADDRESS", "PATH"}, rows, json);
    });
}

void add_address(CLI::App& parent, Context& ctx) {
    struct Settings {
        std::string file;
        SecretInput password{"password", "password", true};
    };
    auto settings = std::make_shared<Settings>();
    auto* command = parent.add_subcommand(
        "address", "Decrypt a keystore (proving the password and the file) and print its checksummed address");
    command->add_option("FILE", settings->file, "Keystore file")->required()->type_name("");
    set_examples(*command, {
                 {"Check a keystore's password and print its address", "abcictl keystore address signer.json"}});
    settings->password.add_to(*command);
    command->callback([settings, &ctx] {
        const Secret password = settings->password.read(ctx.options.no_input, "for keystore " + settings->file, false);
        const std::string address = [&] {
            try {
                return keystore::read_file(settings->file, password.view()).address().checksummed();
            } catch (const Error& e) {
                if (e.kind() != ErrorKind::unauthenticated) throw;
                throw Error(ErrorKind::unauthenticated,
                            "wrong password for keystore " + settings->file + " (or the file is corrupted)");
            }
        }();
        print_key(ctx, address, settings->file);
    });
}

}  // namespace

void add_keystore_command(CLI::App& app, Context& ctx) {
    const char* description = "Encrypted key files (readable by geth and cast, and theirs by us)";
    add_lazy_subcommand(app, "keystore", description, [&ctx](CLI::App& keystore) {
        keystore.require_subcommand(1);
        add_new(keystore, ctx);
        add_import(keystore, ctx);
        add_list(keystore, ctx);
        add_address(keystore, ctx);
    });
}

}  // namespace abci::cli
