#include "core/store/data_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "core/error.hpp"
#include "core/os/private_file.hpp"
#include "core/os/xdg.hpp"

namespace abci::store {

void DataDir::create() const { os::create_private_directory(root_); }

std::filesystem::path default_data_dir() {
    return os::xdg_path(os::XdgBase::data, "abcictl").value_or("abcictl-data");
}

std::filesystem::path devnet_data_dir() {
    return os::xdg_path(os::XdgBase::state, "abcictl/devnet").value_or("abcictl-devnet");
}

DataDirLock DataDir::lock_for_server(const std::string& listen) const {
    create();
    const auto path = lock_file();
    os::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!fd.valid())
        throw Error(ErrorKind::unavailable, "cannot open " + path.string() + ": " + std::strerror(errno));
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK)
            throw Error(ErrorKind::unavailable, "cannot lock " + path.string() + ": " + std::strerror(errno));
        std::ifstream in(path);
        std::string pid = "?", address = "?";
        for (std::string key, value; in >> key >> value;) {
            if (key == "pid") pid = value;
            if (key == "listen") address = value;
        }
        throw Error(ErrorKind::invalid_input,
                    "the data directory " + root_.string() + " is in use by another abcictl serve (pid " + pid +
                        ", listening on " + address + "): stop it first, or give this one another --data-dir");
    }
    DataDirLock lock(std::move(fd));
    lock.record_holder(listen);
    return lock;
}

void DataDirLock::record_holder(const std::string& listen) const {
    const std::string holder = "pid " + std::to_string(::getpid()) + "\nlisten " + listen + "\n";
    if (::ftruncate(fd_.get(), 0) != 0 ||
        ::pwrite(fd_.get(), holder.data(), holder.size(), 0) != static_cast<ssize_t>(holder.size()))
        throw Error(ErrorKind::unavailable, std::string("cannot write the data directory's serve.lock: ") + std::strerror(errno));
}

void DataDir::mark_moved(const StoreMove& move) const {
    os::write_private_file(moved_file(),
                           "url " + move.url + "\npassword_file " + move.password_file + "\nat " + move.at + "\n");
}

std::optional<StoreMove> DataDir::moved() const {
    std::ifstream in(moved_file());
    if (!in) return std::nullopt;
    StoreMove move;
    // A value is the rest of its line: a password file's path may hold spaces.
    for (std::string line; std::getline(in, line);) {
        const auto space = line.find(' ');
        const auto key = line.substr(0, space);
        const auto value = space == std::string::npos ? std::string() : line.substr(space + 1);
        if (key == "url") move.url = value;
        if (key == "password_file") move.password_file = value;
        if (key == "at") move.at = value;
    }
    return move;
}

std::unique_ptr<Store> DataDir::open_store(bool create_missing) const {
    if (const auto move = moved())
        throw Error(ErrorKind::invalid_input,
                    "the store in " + root_.string() + " was moved to " + move->url + " at " + move->at +
                        " (abcictl admin store copy); its SQLite database is stale: give the server that database "
                        "([database] url in its config, or ABCI_DATABASE_URL=" + move->url + ")");
    if (create_missing)
        create();
    else if (!std::filesystem::exists(database()))
        throw Error(ErrorKind::not_found, "no abcictl database in " + root_.string() +
                                              " (check --data-dir or ABCI_DATA_DIR; a server's database on PostgreSQL is reached with "
                                              "--config or --database-url; `abcictl serve` creates it)");
    return open_sqlite_store(database().string());
}

}  // namespace abci::store
