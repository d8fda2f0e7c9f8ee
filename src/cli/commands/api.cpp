// `abcictl api spec`: the API's OpenAPI document (docs/openapi.yaml) as a
// server serves it (GET /openapi.json), or as this binary has it built in
// (--built-in, no server asked), printed alike, so that a script can diff a
// server's contract against the binary's.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/context.hpp"
#include "cli/session.hpp"
#ifdef ABCI_WITH_SERVE
#include "serve/openapi_assets.hpp"
#endif

namespace abci::cli {
namespace {

nlohmann::json built_in_document() {
#ifdef ABCI_WITH_SERVE
    return nlohmann::json::parse(serve::openapi::json().bytes);
#else
    throw Error(ErrorKind::invalid_input,
                "this abcictl was built without the server, so without its document: ask a server, abcictl --server "
                "URL api spec");
#endif
}

void print_spec(Context& ctx, bool built_in) {
    const auto document = built_in ? built_in_document() : anonymous_client(ctx.options)->call("GET", "/openapi.json");
    // Both sources printed the same way (members sorted, two spaces): a diff shows only what differs.
    std::cout << document.dump(2) << "\n";
}

}  // namespace

void add_api_command(CLI::App& app, Context& ctx) {
    add_lazy_subcommand(app, "api", "The API's contract: its OpenAPI document", [&ctx](CLI::App& api) {
        api.require_subcommand(1);
        auto built_in = std::make_shared<bool>(false);
        auto* spec = api.add_subcommand(
            "spec", "Print the server's OpenAPI document (GET /openapi.json) as JSON; --built-in: this abcictl's own");
        spec->add_flag("--built-in", *built_in, "Print the document built into this abcictl, asking no server");
        set_examples(*spec, {{"The contract of the server you use", "abcictl api spec"},
                             {"Does the server speak this abcictl's API? (only servers should differ)",
                              "diff <(abcictl api spec --built-in) <(abcictl api spec)"}});
        spec->callback([built_in, &ctx] { print_spec(ctx, *built_in); });
    });
}

}  // namespace abci::cli
