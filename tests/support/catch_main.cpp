#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <csignal>

#include "support/store_helpers.hpp"

int main(int argc, char* argv[]) {
    // A child that exits before reading its stdin must not kill the test run.
    std::signal(SIGPIPE, SIG_IGN);
    Catch::Session session;
    // The store conformance suite runs once per backend (tests/CMakeLists.txt).
    session.cli(session.cli() | Catch::clara::Opt(abci::store::testing::backend_under_test(), "backend")["--store-backend"](
                                    "the store backend the store suite tests (default sqlite)"));
    if (const int status = session.applyCommandLine(argc, argv)) return status;
    return session.run();
}
