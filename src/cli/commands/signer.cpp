// `abcictl signer …`: the key `serve` signs with, for its operator. `keygen`
// makes a key pair inside a PKCS#11 token (it never leaves it); `address`
// prints the address of whatever signer a server's config names.

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <memory>
#include <string>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/secret_input.hpp"
#include "core/error.hpp"
#include "core/eth/wipe.hpp"
#include "core/signer/pkcs11.hpp"
#ifdef ABCI_WITH_SERVE
#include "core/service/registry.hpp"
#include "serve/settings.hpp"
#endif

namespace abci::cli {
namespace {

void print_signer_address(const Context& ctx, const std::string& address) {
    ctx.print({{{"address", address}}, address}, {{"address", address}});
}

void add_signer_keygen(CLI::App& parent, Context& ctx) {
    struct Settings {
        signer::Pkcs11Config token;
        SecretInput pin{"token user PIN", "pin", true};
        CLI::App* command = nullptr;
    };
    auto settings = std::make_shared<Settings>();
    auto* command = parent.add_subcommand(
        "keygen", "Generate a secp256k1 key pair inside a PKCS#11 token and print its address");
    settings->command = command;
    set_examples(*command, {
                 {"A key in a SoftHSM2 token (the PIN is asked without echo)",
                  "abcictl signer keygen --pkcs11-module /usr/lib/softhsm/libsofthsm2.so --token abci --label minter"},
                 {"The PIN from a file, for a script",
                  "abcictl signer keygen --pkcs11-module /usr/lib/softhsm/libsofthsm2.so --token abci --label minter "
                  "--pin-file token.pin"}});
    command->add_option("--pkcs11-module", settings->token.module, "The token's PKCS#11 module (a shared library)")
        ->required()
        ->type_name("FILE");
    command->add_option("--token", settings->token.token, "The token's label")->required()->type_name("LABEL");
    command->add_option("--label", settings->token.key, "The new key's label (signer.pkcs11Key)")
        ->required()
        ->type_name("LABEL");
    settings->pin.add_to(*command);
    command->callback([settings, &ctx] {
        // --pin-file and --pin-stdin first, then ABCI_SIGNER_PIN (as serve reads it), then a prompt.
        const bool flagged = settings->command->get_option("--pin-file")->count() > 0 ||
                             settings->command->get_option("--pin-stdin")->count() > 0;
        const char* env = std::getenv("ABCI_SIGNER_PIN");
        signer::Pkcs11Config token = settings->token;
        const eth::WipeOnExit wipe_pin(token.pin);
        if (!flagged && env != nullptr) {
            token.pin = env;
        } else {
            const Secret pin = settings->pin.read(ctx.options.no_input, "of token '" + token.token + "'", false);
            token.pin = std::string(pin.view());
        }
        print_signer_address(ctx, signer::generate_pkcs11_key(token).checksummed());
    });
}

void add_signer_address(CLI::App& parent, Context& ctx) {
    auto config = std::make_shared<std::string>();
    auto* command =
        parent.add_subcommand("address", "Open the signer a server's config names ([signer]) and print its address");
    set_examples(*command, {
                 {"The address serve signs with", "abcictl signer address --config /etc/abcictl/abcictl.toml"}});
    command->add_option("--config", *config, "The server's config file (TOML), read as `abcictl serve` reads it")
        ->envname("ABCI_CONFIG")
        ->required()
        ->type_name("FILE");
    command->callback([config, &ctx] {
#ifdef ABCI_WITH_SERVE
        auto settings = serve::load_settings({.config_file = *config}, serve::abci_environment());
        if (!settings.signer.any())
            throw Error(ErrorKind::invalid_input, "no signer in " + *config +
                                                      ": set [signer] keystore, pkcs11Module, remote or anvilKey");
        const auto signer = service::load_signer(settings.signer);
        eth::secure_wipe(settings.signer.password.data(), settings.signer.password.size());
        eth::secure_wipe(settings.signer.pkcs11_pin.data(), settings.signer.pkcs11_pin.size());
        eth::secure_wipe(settings.signer.remote_token.data(), settings.signer.remote_token.size());
        // A remote signer that cannot be reached opens (serve starts unready), but the address would be unverified.
        if (auto why = signer->unavailable()) throw Error(ErrorKind::unavailable, std::move(*why));
        print_signer_address(ctx, signer->address().checksummed());
#else
        (void)ctx;
        throw Error(ErrorKind::unavailable,
                    "this abcictl was built without the server and cannot read its config (-DABCI_WITH_SERVE=OFF)");
#endif
    });
}

}  // namespace

void add_signer_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "signer", "The key serve signs with: a PKCS#11 token's, or any configured signer's",
                        [&ctx](CLI::App& signer) {
                            signer.require_subcommand(1);
                            add_signer_keygen(signer, ctx);
                            add_signer_address(signer, ctx);
                        });
}

}  // namespace abci::cli
