#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <csignal>

int main(int argc, char* argv[]) {
    // A child that exits before reading its stdin must not kill the test run.
    std::signal(SIGPIPE, SIG_IGN);
    return Catch::Session().run(argc, argv);
}
