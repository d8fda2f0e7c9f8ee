// `abcictl serve`: the embedded API server. The CLI's only contact with
// src/serve (DESIGN.md §2); everything else reaches a server over HTTP.

#include <CLI/CLI.hpp>
#include <sys/stat.h>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "core/error.hpp"

#ifdef ABCI_WITH_SERVE
#include <pthread.h>

#include <csignal>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/build_info.hpp"
#include "core/store/data_dir.hpp"
#include "serve/devnet.hpp"
#include "serve/server.hpp"
#include "serve/settings.hpp"
#endif

namespace abci::cli {

#ifdef ABCI_WITH_SERVE

namespace {

/// SIGINT and SIGTERM, blocked in every thread from the start (threads
/// inherit the mask: the chain clients' threads start before the server
/// runs), so only serve_until_signalled() receives them. A signal that comes
/// during setup waits for it; children (anvil) start with a clear mask.
sigset_t termination_signals() {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    return signals;
}

/// Runs the server until SIGINT or SIGTERM, then stops it gracefully: the
/// listening socket closes and in-flight requests finish before run() returns.
void serve_until_signalled(serve::Server& server, const sigset_t& signals) {
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

void run_server(const serve::FlagSettings& flags, bool print_config) {
    const auto signals = termination_signals();
    auto settings = serve::load_settings(flags, serve::abci_environment());
    if (print_config) {
        if (flags.devnet) serve::add_devnet_settings(settings);
        std::cout << serve::describe_settings(settings) << std::flush;
        return;
    }
    // What the server and its children (the devnet's anvil, which writes the
    // chain's state file itself) create is theirs alone, whatever the
    // shell's umask: state, logs, content.
    ::umask(077);
    // Held until the server and its anvil have stopped: one server per data directory.
    const auto lock = store::DataDir(settings.data_dir)
                          .lock_for_server(settings.listen_host + ":" + std::to_string(settings.listen_port));
    // A busy port is found before a devnet costs an anvil, a deployment and an admin.
    serve::check_can_listen(settings);
    // Declared before the server, so anvil stops after it (also when it throws).
    std::optional<serve::Devnet> devnet;
    if (flags.devnet) {
        devnet.emplace(settings, lock);
        devnet->add_to(settings);
        serve::bootstrap_devnet_admin(settings, std::cerr);
    }
    const auto listen_host = settings.listen_host;
    const auto metrics_host = settings.metrics.listen_host;
    const auto abci_limit = serve::describe_abci_limit(settings);
    serve::Server server(std::move(settings), kBuildCommit);
    lock.record_holder(listen_host + ":" + std::to_string(server.port()));
    if (devnet)
        std::cerr << "abcictl: devnet: anvil at " << devnet->network().rpc_urls.front() << " (chain id "
                  << devnet->network().chain_id << "), ABCIToken at " << devnet->network().contract_address
                  << (devnet->deployed() ? " (deployed now)" : " (from the previous run)") << "; config "
                  << devnet->config_file().string() << "\nabcictl: devnet: " << abci_limit
                  << "\nabcictl: devnet: metrics at http://" << metrics_host << ":" << server.metrics_port() << "/metrics"
                  << std::endl;
    serve_until_signalled(server, signals);
}

}  // namespace

void add_serve_command(CLI::App& app, Context&) {
    add_lazy_subcommand(app, "serve", "Run the ABCI API server", [](CLI::App& command) {
        set_examples(command, {
                     {"A local chain and server to try everything on", "abcictl serve --devnet"},
                     {"In production, from a configuration file", "abcictl serve --config /etc/abcictl/serve.toml"}});
        auto flags = std::make_shared<serve::FlagSettings>();
        command.add_option("--config", flags->config_file, "Server config file (TOML); env ABCI_CONFIG");
        command.add_option("--listen", flags->listen,
                           "Address to listen on, host:port (default 127.0.0.1:8080); env ABCI_LISTEN");
        command.add_option("--data-dir", flags->data_dir, "Data directory (database, secrets); env ABCI_DATA_DIR");
        command.add_flag("--devnet", flags->devnet,
                         "Also run a local anvil devnet with the contract deployed, kept in <data-dir>/devnet "
                         "(default data dir $XDG_STATE_HOME/abcictl/devnet); stopped on exit");
        command.add_flag("--strict", flags->strict,
                         "Refuse to start when a start-up check fails: a chain's node unreachable or on another chain "
                         "id, no contract at its address, the signer without the minter role or funds");
        auto print_config = std::make_shared<bool>(false);
        command.add_flag("--print-config", *print_config,
                         "Print the effective settings, each with where it came from (default, file, env, flag), "
                         "secrets masked, and exit");
        command.callback([flags, print_config] { run_server(*flags, *print_config); });
    });
}

#else

void add_serve_command(CLI::App& app, Context&) {
    add_lazy_subcommand(app, "serve", "Run the ABCI API server (not in this build)", [](CLI::App& command) {
        command.callback([] {
            throw Error(ErrorKind::unavailable, "this abcictl was built without the server (-DABCI_WITH_SERVE=OFF)");
        });
    });
}

#endif

}  // namespace abci::cli
