// Issue 14, item 2 for the environment: `abcictl serve` refuses an ABCI_*
// variable that nothing in abcictl reads (a typo such as ABCI_DATA_DRI would
// otherwise start an empty server in the default directory), with the nearest
// known name, exit 2 and nothing created; other commands are not concerned.

#include <filesystem>

#include "cli/client_test.hpp"

namespace abci::test::client {

TEST_CASE("serve refuses an unknown ABCI_ environment variable with the nearest known one", "[serve-cli][env]") {
    const CleanHome home;
    const std::vector<std::string> serve{"serve", "--listen", "127.0.0.1:0", "--print-config"};
    const auto data = home / "data";

    const auto typo = run_abcictl(serve, {}, home.env({{"ABCI_DATA_DRI", data}}));
    CHECK(one_line_failure(typo, 2) ==
          "abcictl: environment variable ABCI_DATA_DRI: is not a setting of abcictl serve; did you mean ABCI_DATA_DIR?");
    CHECK_FALSE(std::filesystem::exists(data));
    // Nothing near: where the names are, and the client's own prefix (ABCI_TOKEN for ABCICTL_TOKEN).
    CHECK(one_line_failure(run_abcictl(serve, {}, home.env({{"ABCI_TOKEN", "abci_x"}})), 2) ==
          "abcictl: environment variable ABCI_TOKEN: is not a setting of abcictl serve (see ENVIRONMENT in man "
          "abcictl; the client commands read ABCICTL_* variables)");

    // Known ones are read, and those of the project's own test tools let through.
    const auto known = run_abcictl(serve, {}, home.env({{"ABCI_DATA_DIR", data}, {"ABCI_CHAOS_SEED", "7"}}));
    INFO(known.err);
    CHECK(known.exit_code == 0);
    CHECK(known.out.find("dataDir = \"" + data + "\"  # env ABCI_DATA_DIR") != std::string::npos);
    // Only serve refuses.
    CHECK(run_abcictl({"version"}, {}, home.env({{"ABCI_DATA_DRI", data}})).exit_code == 0);
}

}  // namespace abci::test::client
