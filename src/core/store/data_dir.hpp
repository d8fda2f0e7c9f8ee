#pragma once
// The layout of a server's data directory, shared by `serve` and the `admin`
// commands that work on it directly.

#include <filesystem>
#include <memory>

#include "core/store/store.hpp"

namespace abci::store {

class DataDir {
public:
    explicit DataDir(std::filesystem::path root) : root_(std::move(root)) {}

    [[nodiscard]] const std::filesystem::path& root() const noexcept { return root_; }
    [[nodiscard]] std::filesystem::path database() const { return root_ / "abci.db"; }
    [[nodiscard]] std::filesystem::path jwt_secret() const { return root_ / "jwt.secret"; }

    /// Creates the directory (mode 0700) when missing. Error(unavailable) when
    /// it cannot be created or is not a directory.
    void create() const;

    /// Opens the store; when `create_missing` is false a data directory
    /// without a database is Error(not_found) (a mistyped --data-dir should not
    /// silently start an empty one).
    [[nodiscard]] std::unique_ptr<Store> open_store(bool create_missing) const;

private:
    std::filesystem::path root_;
};

}  // namespace abci::store
