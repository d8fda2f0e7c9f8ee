// The command line's config file (cli/config_file apply_config_text), which
// users edit by hand: read with no profile chosen and with --profile staging.
// fuzz-max-len: 4096

#include "cli/config_file.hpp"
#include "fuzz.hpp"

using namespace abci;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    for (const char* profile : {"", "staging"}) {
        cli::GlobalOptions options;
        options.profile = profile;
        (void)fuzz::accepts({ErrorKind::invalid_input},
                            [&] { cli::apply_config_text(options, fuzz::text(data, size), "config.toml"); });
    }
    return 0;
}
