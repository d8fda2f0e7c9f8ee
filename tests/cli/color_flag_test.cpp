// The global --color flag takes its three documented words (it refused every
// one of them: the words were mapped to numbers before they were checked),
// and they decide whether a table's header is bold on a pipe.

#include "cli/client_test.hpp"

namespace abci::test::client {

TEST_CASE("the --color words auto, always and never are accepted, and always makes a piped table's header bold", "[cli][color]") {
    const CleanHome home;
    const auto env = home.env({{"ABCICTL_KEYSTORE_SCRYPT_N", "4096"}});
    const auto password = home.write("pw", "keystore password 1\n");
    REQUIRE(run_abcictl({"-q", "keystore", "new", "--dir", home / "keys", "--password-file", password}, {}, env).exit_code == 0);
    for (const auto& [word, bold] : {std::pair{"always", true}, std::pair{"never", false}, std::pair{"auto", false}}) {
        const auto r = run_abcictl({"--color", word, "keystore", "list", "--dir", home / "keys"}, {}, env);
        INFO(word << ": " << r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out.starts_with("\033[1mADDRESS") == bold);
    }
}

}  // namespace abci::test::client
