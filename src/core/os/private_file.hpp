#pragma once
// Small files only their owner may read (configs naming local endpoints,
// secrets), written so that a reader never sees a half-written one.

#include <filesystem>
#include <string_view>

namespace abci::os {

/// Replaces `path` atomically with `content`, mode 0600 whatever the umask:
/// written to a temporary file beside it, synced, renamed over it, and the
/// directory synced. The parent directory must exist. Throws
/// Error(unavailable) naming the path and the system's reason on failure
/// (the temporary file is removed).
void write_private_file(const std::filesystem::path& path, std::string_view content);

}  // namespace abci::os
