#include "core/os/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/os/fd.hpp"

namespace abci::os {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const char* action, const fs::path& path, int error = errno) {
    throw Error(ErrorKind::unavailable, std::string("cannot ") + action + " " + path.string() + ": " + std::strerror(error));
}

fs::path directory_of(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : fs::path("."); }

// O_CREAT with 0600 is not enough: a umask such as 0277 would leave the file read-only.
void make_private(int fd, const fs::path& path) {
    if (::fchmod(fd, 0600) != 0) fail("set the mode of", path);
}

void write_all(int fd, std::span<const std::uint8_t> content, const fs::path& path) {
    while (!content.empty()) {
        const ssize_t n = ::write(fd, content.data(), content.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("write", path);
        content = content.subspan(static_cast<std::size_t>(n));
    }
}

// Makes a new directory entry itself durable.
void sync_directory(const fs::path& directory) {
    const UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid() || ::fsync(dir.get()) != 0) fail("sync", directory);
}

// Unlinks the temporary file on every path out of the write; after link() or
// rename() the target holds the data.
class UnlinkOnExit {
public:
    explicit UnlinkOnExit(const fs::path& path) noexcept : path_(path) {}
    ~UnlinkOnExit() { ::unlink(path_.c_str()); }
    UnlinkOnExit(const UnlinkOnExit&) = delete;
    UnlinkOnExit& operator=(const UnlinkOnExit&) = delete;

private:
    const fs::path& path_;
};

// Refuses a symbolic link at `path`: whoever opens the file next would follow it.
void refuse_symlink(const fs::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) fail("use", path, ELOOP);
}

}  // namespace

bool write_private_file(const fs::path& path, std::span<const std::uint8_t> content, WriteMode mode,
                        Durability durability) {
    const fs::path directory = directory_of(path);
    const fs::path temp = directory / ("." + path.filename().string() + ".tmp-" + crypto::random_token(8));
    UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) fail("create", temp);
    {
        const UnlinkOnExit remove_temp(temp);
        make_private(fd.get(), temp);
        write_all(fd.get(), content, temp);
        if (durability == Durability::synced && ::fsync(fd.get()) != 0) fail("sync", temp);
        if (!fd.close()) fail("close", temp);
        if (mode == WriteMode::replace) {
            if (::rename(temp.c_str(), path.c_str()) != 0) fail("rename into place", path);
        } else if (::link(temp.c_str(), path.c_str()) != 0) {
            if (errno == EEXIST) return false;
            fail("create", path);
        }
    }
    if (durability == Durability::synced) sync_directory(directory);
    return true;
}

bool create_private_file(const fs::path& path) {
    const UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) {
        // O_EXCL fails with EEXIST on a symbolic link too, dangling or not.
        if (errno == EEXIST) {
            refuse_symlink(path);
            return false;
        }
        fail("create", path);
    }
    make_private(fd.get(), path);
    sync_directory(directory_of(path));
    return true;
}

void create_private_directory(const fs::path& directory) {
    // Every directory made here is the user's alone, the missing parents too
    // (XDG: created 0700): a parent left 0755 shows everyone what is inside.
    std::error_code ec;
    std::vector<fs::path> missing;
    for (auto at = directory; !at.empty() && !fs::exists(at, ec); at = at.parent_path()) {
        missing.push_back(at);
        if (at == at.parent_path()) break;
    }
    for (auto it = missing.rbegin(); it != missing.rend() && !ec; ++it)
        if (fs::create_directory(*it, ec)) fs::permissions(*it, fs::perms::owner_all, ec);
    if (ec) fail("create the directory", directory, ec.value());
    if (!fs::is_directory(directory, ec)) fail("create the directory", directory, ENOTDIR);
}

std::string read_password_file(const fs::path& path, std::string_view what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorKind::not_found, "cannot read " + std::string(what) + " " + path.string());
    std::string password((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!password.empty() && (password.back() == '\n' || password.back() == '\r')) password.pop_back();
    return password;
}

}  // namespace abci::os
