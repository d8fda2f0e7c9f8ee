#include "support/unprivileged.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>

namespace abci::test {
namespace {

constexpr uid_t kNobody = 65534;

bool root() { return ::geteuid() == 0; }

}  // namespace

std::vector<std::string> unprivileged(std::vector<std::string> argv) {
    if (!root()) return argv;
    std::vector<std::string> wrapped{"setpriv", "--reuid=" + std::to_string(kNobody),
                                     "--regid=" + std::to_string(kNobody), "--clear-groups", "--"};
    wrapped.insert(wrapped.end(), argv.begin(), argv.end());
    return wrapped;
}

void give_to_unprivileged(const std::filesystem::path& path) {
    if (!root()) return;
    INFO("chown nobody " << path);
    REQUIRE(::chown(path.c_str(), kNobody, kNobody) == 0);
}

void let_unprivileged_traverse(const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    if (root()) fs::permissions(path, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
}

}  // namespace abci::test
