#pragma once
// Content in the data directory: one file per CID, <root>/<cid>, mode 0600.

#include <filesystem>
#include <variant>

#include "core/content/content_store.hpp"
#include "core/util/combiner.hpp"

namespace abci::content {

class LocalStore final : public ContentStore {
public:
    /// Keeps files under `root` (created, mode 0700, on the first put). No I/O here.
    explicit LocalStore(std::filesystem::path root);

    /// Healthy when `root` is (or can be made) a writable directory.
    [[nodiscard]] HealthCheck check() noexcept override;

    /// Where the content named `cid` is (or would be) kept.
    [[nodiscard]] std::filesystem::path path_of(const Cid& cid) const { return root_ / cid.to_string(); }

private:
    /// Writes a temporary file, renames it to <root>/<cid> and syncs the file
    /// system, so a reader sees all of the content or none and a crash after
    /// put() returns cannot lose it. Concurrent puts share one sync (group
    /// commit). A file already there that checks out is left alone; one that
    /// does not (damaged by a crash before its sync, tampered with, a symbolic
    /// link) is replaced, and is never served meanwhile (fetch checks the hash).
    void store(const Cid& cid, eth::ByteView data) override;
    /// Reads <root>/<cid>: Error(internal) when it is not a regular file (a
    /// symbolic link is not followed) or is larger than any content,
    /// Error(unavailable) when it cannot be read.
    [[nodiscard]] std::optional<eth::Bytes> fetch(const Cid& cid) override;
    [[nodiscard]] std::string location(const Cid& cid) const override { return path_of(cid).string(); }

    void create_root() const;

    std::filesystem::path root_;
    util::Combiner<std::monostate, bool> synced_;
};

}  // namespace abci::content
