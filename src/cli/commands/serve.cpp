// `abcictl serve`: the embedded API server. The CLI's only contact with
// src/serve (DESIGN.md §2); everything else reaches a server over HTTP.

#include <CLI/CLI.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "core/error.hpp"

#ifdef ABCI_WITH_SERVE
#include <pthread.h>

#include <csignal>
#include <thread>

#include "serve/server.hpp"
#include "serve/settings.hpp"
#endif

namespace abci::cli {

#ifdef ABCI_WITH_SERVE

namespace {

/// Runs the server until SIGINT or SIGTERM, then stops it gracefully: the
/// listening socket closes and in-flight requests finish before run() returns.
void serve_until_signalled(serve::Server& server) {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    // Blocked before any worker thread starts, so every thread inherits the
    // mask and only the waiter below receives these signals.
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::thread waiter([&server, signals] {
        int received = 0;
        sigwait(&signals, &received);
        server.stop();
    });
    server.run();
    // run() also returns when listening fails; wake the waiter so it can end.
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
}

}  // namespace

void add_serve_command(CLI::App& app, Context& ctx) {
    auto flags = std::make_shared<serve::FlagSettings>();
    auto* command = app.add_subcommand("serve", "Run the ABCI API server");
    command->add_option("--config", flags->config_file, "Server config file (TOML); env ABCI_CONFIG");
    command->add_option("--listen", flags->listen, "Address to listen on, host:port (default 127.0.0.1:8080); env ABCI_LISTEN");
    command->add_option("--data-dir", flags->data_dir, "Data directory (database, secrets); env ABCI_DATA_DIR");
    command->callback([flags, &ctx] {
        (void)ctx;
        serve::Server server(serve::load_settings(*flags, serve::abci_environment()));
        serve_until_signalled(server);
    });
}

#else

void add_serve_command(CLI::App& app, Context&) {
    app.add_subcommand("serve", "Run the ABCI API server (not in this build)")->callback([] {
        throw Error(ErrorKind::unavailable, "this abcictl was built without the server (-DABCI_WITH_SERVE=OFF)");
    });
}

#endif

}  // namespace abci::cli
