#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "core/os/private_file.hpp"
#include "support/cli_runner.hpp"
#include "support/error_kind.hpp"
#include "support/scoped_umask.hpp"

using namespace abci;

namespace private_file_test {

namespace fs = std::filesystem;

unsigned mode_of(const fs::path& path) {
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// The directory holds exactly `names` (no temporary file left behind).
std::vector<std::string> entries(const fs::path& directory) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace private_file_test

using private_file_test::entries;
using private_file_test::mode_of;

TEST_CASE("private files and directories are 0600 and 0700 whatever the umask", "[os][private_file]") {
    const mode_t mask = GENERATE(mode_t{0277}, mode_t{0022}, mode_t{0});
    const test::TempDir dir;
    const test::ScopedUmask umask(mask);
    const auto sub = dir.path() / "a" / "b";
    os::create_private_directory(sub);
    CHECK(mode_of(sub) == 0700);
    for (const auto mode : {os::WriteMode::replace, os::WriteMode::create_new}) {
        const auto path = sub / (mode == os::WriteMode::replace ? "replaced" : "created");
        CHECK(os::write_private_file(path, std::string_view("secret"), mode));
        CHECK(mode_of(path) == 0600);
        CHECK(private_file_test::read(path) == "secret");
    }
    CHECK(os::create_private_file(sub / "empty.db"));
    CHECK(mode_of(sub / "empty.db") == 0600);
    CHECK(std::filesystem::file_size(sub / "empty.db") == 0);
    CHECK(entries(sub) == std::vector<std::string>{"created", "empty.db", "replaced"});
}

TEST_CASE("a private file replaces the old one but create-new keeps it", "[os][private_file]") {
    const test::TempDir dir;
    const auto path = dir.path() / "file";
    CHECK(os::write_private_file(path, std::string_view("first")));
    CHECK(os::write_private_file(path, std::string_view("second")));
    CHECK(private_file_test::read(path) == "second");
    CHECK_FALSE(os::write_private_file(path, std::string_view("third"), os::WriteMode::create_new));
    CHECK(private_file_test::read(path) == "second");
    // An existing database file is left as it is, mode and content.
    std::filesystem::permissions(path, std::filesystem::perms::owner_read);
    CHECK_FALSE(os::create_private_file(path));
    CHECK(mode_of(path) == 0400);
    CHECK(private_file_test::read(path) == "second");
    CHECK(entries(dir.path()) == std::vector<std::string>{"file"});
}

TEST_CASE("a private file is never written through a symbolic link", "[os][private_file]") {
    const test::TempDir dir;
    const auto elsewhere = dir.path() / "elsewhere";
    { std::ofstream(elsewhere) << "theirs"; }
    for (const auto& [name, target] : {std::pair{"link", elsewhere}, std::pair{"dangling", dir.path() / "nothing"}}) {
        const auto path = dir.path() / name;
        std::filesystem::create_symlink(target, path);
        // Kept as "exists" by create-new; refused for SQLite, which would follow it.
        CHECK_FALSE(os::write_private_file(path, std::string_view("ours"), os::WriteMode::create_new));
        CHECK(test::error_kind([&] { os::create_private_file(path); }) == ErrorKind::unavailable);
        CHECK(std::filesystem::is_symlink(path));
        // Replaced, the link itself goes.
        CHECK(os::write_private_file(path, std::string_view("ours")));
        CHECK_FALSE(std::filesystem::is_symlink(path));
        CHECK(mode_of(path) == 0600);
        CHECK(private_file_test::read(path) == "ours");
    }
    CHECK(private_file_test::read(elsewhere) == "theirs");
    CHECK_FALSE(std::filesystem::exists(dir.path() / "nothing"));
    CHECK(entries(dir.path()) == std::vector<std::string>{"dangling", "elsewhere", "link"});
}

TEST_CASE("a private file that cannot be written fails typed and leaves nothing behind", "[os][private_file]") {
    const test::TempDir dir;
    CHECK(test::error_kind([&] { os::write_private_file(dir.path() / "missing" / "f", std::string_view("x")); }) ==
          ErrorKind::unavailable);
    CHECK(test::error_kind([&] { os::create_private_file(dir.path() / "missing" / "f"); }) ==
          ErrorKind::unavailable);
    { std::ofstream(dir.path() / "plain") << "x"; }
    CHECK(test::error_kind([&] { os::create_private_directory(dir.path() / "plain"); }) == ErrorKind::unavailable);
    CHECK(test::error_kind([&] { os::create_private_directory(dir.path() / "plain" / "sub"); }) ==
          ErrorKind::unavailable);
    // The rename fails (a directory is in the way): the temporary file is removed.
    std::filesystem::create_directory(dir.path() / "taken");
    { std::ofstream(dir.path() / "taken" / "inside") << "x"; }
    CHECK(test::error_kind([&] { os::write_private_file(dir.path() / "taken", std::string_view("x")); }) ==
          ErrorKind::unavailable);
    CHECK(entries(dir.path()) == std::vector<std::string>{"plain", "taken"});
}

TEST_CASE("of writers racing to create a private file, exactly one wins and its file is kept",
          "[os][private_file]") {
    const test::TempDir dir;
    const auto path = dir.path() / "secret";
    constexpr int kWriters = 8;
    std::vector<int> won(kWriters, 0);
    std::atomic<int> ready{0};
    std::vector<std::thread> writers;
    for (int i = 0; i < kWriters; ++i) {
        writers.emplace_back([&, i] {
            ready.fetch_add(1);
            while (ready.load() < kWriters) std::this_thread::yield();
            const std::string content(4096, static_cast<char>('a' + i));
            won[i] = os::write_private_file(path, std::string_view(content), os::WriteMode::create_new,
                                            os::Durability::caller_syncs);
        });
    }
    for (auto& writer : writers) writer.join();
    REQUIRE(std::count(won.begin(), won.end(), 1) == 1);
    const int winner = static_cast<int>(std::find(won.begin(), won.end(), 1) - won.begin());
    CHECK(private_file_test::read(path) == std::string(4096, static_cast<char>('a' + winner)));
    CHECK(entries(dir.path()) == std::vector<std::string>{"secret"});
}

TEST_CASE("a reader of a replaced private file sees the old content or the new, never a mix",
          "[os][private_file]") {
    const test::TempDir dir;
    const auto path = dir.path() / "config";
    const std::string old_content(64 * 1024, 'o');
    const std::string new_content(64 * 1024, 'n');
    os::write_private_file(path, std::string_view(old_content));
    std::atomic<bool> done{false};
    std::atomic<int> reads{0};
    std::vector<std::string> torn;
    std::thread reader([&] {
        while (!done.load()) {
            const std::string seen = private_file_test::read(path);
            if (seen != old_content && seen != new_content) torn.push_back(seen);
            reads.fetch_add(1);
        }
    });
    for (int i = 0; i < 200; ++i)
        os::write_private_file(path, std::string_view(i % 2 ? old_content : new_content), os::WriteMode::replace,
                               os::Durability::caller_syncs);
    // The reader overlapped the writes at least once before the check means anything.
    while (reads.load() < 2) std::this_thread::yield();
    done = true;
    reader.join();
    CHECK(torn.empty());
    CHECK(entries(dir.path()) == std::vector<std::string>{"config"});
}
