#include "core/store/data_dir.hpp"

#include <system_error>

#include "core/error.hpp"

namespace abci::store {

void DataDir::create() const {
    std::error_code ec;
    if (std::filesystem::create_directories(root_, ec))
        std::filesystem::permissions(root_, std::filesystem::perms::owner_all, ec);
    if (ec || !std::filesystem::is_directory(root_))
        throw Error(ErrorKind::unavailable, "cannot create the data directory " + root_.string() +
                                                (ec ? ": " + ec.message() : ": a file is in the way"));
}

std::unique_ptr<Store> DataDir::open_store(bool create_missing) const {
    if (create_missing)
        create();
    else if (!std::filesystem::exists(database()))
        throw Error(ErrorKind::not_found, "no abcictl database in " + root_.string() +
                                              " (check --data-dir or ABCI_DATA_DIR; `abcictl serve` creates it)");
    return open_sqlite_store(database().string());
}

}  // namespace abci::store
