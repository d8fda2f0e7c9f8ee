#include "core/content/local_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "core/os/fd.hpp"
#include "core/os/private_file.hpp"

namespace abci::content {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void io_failure(const char* action, const fs::path& path, int error = errno) {
    throw Error(ErrorKind::unavailable,
                std::string("content store: cannot ") + action + " " + path.string() + ": " + std::strerror(error));
}

// The file's bytes, or nullopt when there is no such file.
std::optional<eth::Bytes> read_content(const fs::path& path) {
    // O_NOFOLLOW: a symlink planted in the directory must not make us serve another file.
    os::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd.valid()) {
        if (errno == ENOENT) return std::nullopt;
        if (errno == ELOOP) throw Error(ErrorKind::internal, "content store: " + path.string() + " is a symbolic link");
        io_failure("open", path);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) io_failure("inspect", path);
    if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::internal, "content store: " + path.string() + " is not a file");
    if (static_cast<std::uintmax_t>(st.st_size) > kMaxContentSize)
        throw Error(ErrorKind::internal, "content store: " + path.string() + " is larger than any content we store");
    eth::Bytes data(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::read(fd.get(), data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) io_failure("read", path);
        if (n == 0) break;  // shrank under us: the hash check below refuses it
        done += static_cast<std::size_t>(n);
    }
    data.resize(done);
    return data;
}

// Makes every write and rename on the file system of `directory` durable:
// one call for all the files a burst of puts wrote (fsync of each file and of
// the directory cost two disk flushes per put).
void sync_file_system(const fs::path& directory) {
    os::UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid() || ::syncfs(fd.get()) != 0) io_failure("sync", directory);
}

}  // namespace

LocalStore::LocalStore(std::filesystem::path root)
    : root_(std::move(root)),
      synced_(
          [this](std::vector<std::monostate>& puts) {
              sync_file_system(root_);
              return std::vector<bool>(puts.size(), true);
          },
          std::numeric_limits<std::size_t>::max()) {}

void LocalStore::create_root() const { os::create_private_directory(root_); }

void LocalStore::store(const Cid& cid, eth::ByteView data) {
    create_root();
    const fs::path target = path_of(cid);
    try {
        if (const auto existing = read_content(target); existing && Cid::of(*existing) == cid) return;
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::internal) throw;  // a damaged file is replaced below
    }
    // Not synced per file: sync_file_system makes a burst of puts durable at once.
    os::write_private_file(target, data, os::WriteMode::replace, os::Durability::caller_syncs);
    (void)synced_.submit({});
}

std::optional<eth::Bytes> LocalStore::fetch(const Cid& cid) { return read_content(path_of(cid)); }

HealthCheck LocalStore::check() noexcept {
    try {
        create_root();
        if (::access(root_.c_str(), W_OK | X_OK) != 0)
            return {false, "local content store " + root_.string() + ": not writable: " + std::strerror(errno)};
        return {true, "local content store " + root_.string()};
    } catch (const std::exception& e) {
        return {false, e.what()};
    }
}

}  // namespace abci::content
