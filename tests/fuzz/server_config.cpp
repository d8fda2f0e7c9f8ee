// The server's TOML configuration (serve/settings load_settings), through
// its public entry point: the input is the config file, an in-memory file
// named by its /proc/self/fd path, so nothing touches the disk.
// fuzz-max-len: 4096

#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "fuzz.hpp"
#include "serve/settings.hpp"

using namespace abci;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const int fd = ::memfd_create("server_config.toml", 0);
    static const std::string path = "/proc/self/fd/" + std::to_string(fd);
    fuzz::require(fd >= 0 && ::ftruncate(fd, 0) == 0 &&
                      ::pwrite(fd, data, size, 0) == static_cast<ssize_t>(size),
                  "the input is written to the in-memory file");
    serve::FlagSettings flags;
    flags.config_file = path;
    (void)fuzz::accepts({ErrorKind::invalid_input}, [&] { (void)serve::load_settings(flags, {}); });
    return 0;
}
