#include <CLI/CLI.hpp>
#include <iostream>

int main(int argc, char** argv) {
    CLI::App app{"abcictl: administration tool and API server for the ABCI token layer"};
    app.require_subcommand(1);
    auto* version = app.add_subcommand("version", "Print the version");
    version->callback([] { std::cout << "abcictl " << ABCI_VERSION << "\n"; });
    CLI11_PARSE(app, argc, argv);
    return 0;
}
