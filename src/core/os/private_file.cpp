#include "core/os/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/os/fd.hpp"

namespace abci::os {

namespace {

[[noreturn]] void fail(const char* action, const std::filesystem::path& path) {
    throw Error(ErrorKind::unavailable, std::string("cannot ") + action + " " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

void write_private_file(const std::filesystem::path& path, std::string_view content) {
    const auto directory = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    const auto temp = directory / ("." + path.filename().string() + ".tmp-" + crypto::random_token(8));
    UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) fail("create", temp);
    try {
        if (::fchmod(fd.get(), 0600) != 0) fail("set the mode of", temp);
        for (std::size_t done = 0; done < content.size();) {
            const ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) fail("write", temp);
            done += static_cast<std::size_t>(n);
        }
        if (::fsync(fd.get()) != 0) fail("sync", temp);
        if (!fd.close()) fail("close", temp);
        if (::rename(temp.c_str(), path.c_str()) != 0) fail("rename into place", path);
    } catch (...) {
        ::unlink(temp.c_str());
        throw;
    }
    UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid() || ::fsync(dir.get()) != 0) fail("sync", directory);
}

}  // namespace abci::os
