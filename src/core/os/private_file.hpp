#pragma once
// Files only their owner may read (keystores, the JWT secret, stored content,
// SQLite databases, configs naming local endpoints): the one place that
// creates them. Every file is mode exactly 0600 whatever the umask, never
// written through a symbolic link (one at the path is replaced, or kept as
// "exists", as the mode says), and appears whole or not at all.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace abci::os {

enum class WriteMode {
    /// rename() over whatever is there: a reader sees the old content or the
    /// whole new one.
    replace,
    /// link() into place, never replacing: when the file exists (another
    /// process won a race), it is kept and the write reports false.
    create_new,
};

enum class Durability {
    /// The file and the directory entry are synced before returning.
    synced,
    /// The caller makes the write durable itself (e.g. one syncfs() for a
    /// burst of files): nothing is synced here.
    caller_syncs,
};

/// Writes `content` to `path` through a temporary file beside it (removed on
/// every path out). The parent directory must exist (create_private_directory).
/// Returns false only in create_new mode when `path` already existed.
/// Throws Error(unavailable) naming the path and the system's reason.
bool write_private_file(const std::filesystem::path& path, std::span<const std::uint8_t> content,
                        WriteMode mode = WriteMode::replace, Durability durability = Durability::synced);
inline bool write_private_file(const std::filesystem::path& path, std::string_view content,
                               WriteMode mode = WriteMode::replace, Durability durability = Durability::synced) {
    return write_private_file(
        path, std::span(reinterpret_cast<const std::uint8_t*>(content.data()), content.size()), mode, durability);
}

/// Creates `path` empty, mode 0600, unless it exists (for SQLite to open: it
/// would create it 0644 minus the umask, and gives its -wal and -shm files the
/// database's mode). Returns whether it created the file. A symbolic link at
/// `path` is refused, since SQLite would follow it. Throws Error(unavailable)
/// on failure.
bool create_private_file(const std::filesystem::path& path);

/// Creates `directory` (0700 when it creates it) and its missing parents.
/// Throws Error(unavailable) when that fails or a file is in the way.
void create_private_directory(const std::filesystem::path& directory);

/// A password file's password: its content without the line end an editor or
/// `echo` adds. Error(not_found) naming `what` and the path when it cannot be read.
[[nodiscard]] std::string read_password_file(const std::filesystem::path& path, std::string_view what);

}  // namespace abci::os
