#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "core/content/content_store.hpp"
#include "core/content/local_store.hpp"
#include "support/cli_runner.hpp"
#include "support/error_kind.hpp"
#include "support/random.hpp"

using namespace abci;

namespace local_store_test {

std::filesystem::perms mode_of(const std::filesystem::path& path) {
    return std::filesystem::status(path).permissions() & std::filesystem::perms::mask;
}

}  // namespace local_store_test

TEST_CASE("the local store gives back what was put, under its CID", "[content][local]") {
    const test::TempDir dir;
    const auto store = content::make_content_store({.backend = "local", .data_dir = dir.path()});
    test::Random random(7);
    for (std::size_t size : {std::size_t{0}, std::size_t{5}, std::size_t{1000}, content::kMaxContentSize}) {
        const eth::Bytes data = random.bytes(size);
        const auto cid = store->put(data);
        CHECK(cid == content::Cid::of(data));
        CHECK(store->get(cid) == data);
    }
    const auto health = store->check();
    CHECK(health.healthy);
    CHECK_FALSE(health.message.empty());
}

TEST_CASE("the local store keeps one private file per CID", "[content][local]") {
    const test::TempDir dir;
    content::LocalStore store(dir.path() / "content");
    const eth::Bytes data{'{', '}'};
    const auto cid = store.put(data);
    CHECK(store.put(data) == cid);  // idempotent

    const auto file = dir.path() / "content" / cid.to_string();
    CHECK(store.path_of(cid) == file);
    CHECK(std::filesystem::file_size(file) == data.size());
    CHECK(local_store_test::mode_of(file) ==
          (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
    CHECK(local_store_test::mode_of(dir.path() / "content") == std::filesystem::perms::owner_all);
    // No temporary files left behind.
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path() / "content"),
                        std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("the local store refuses content that does not match its CID", "[content][local]") {
    const test::TempDir dir;
    content::LocalStore store(dir.path());
    const eth::Bytes data{'o', 'r', 'i', 'g', 'i', 'n', 'a', 'l'};
    const auto cid = store.put(data);
    std::ofstream(store.path_of(cid), std::ios::binary | std::ios::trunc) << "tampered";
    CHECK(test::error_kind([&] { (void)store.get(cid); }) == ErrorKind::internal);

    // Putting the content again repairs the file.
    CHECK(store.put(data) == cid);
    CHECK(store.get(cid) == data);

    // A symlink in place of the file is not followed.
    std::filesystem::remove(store.path_of(cid));
    std::filesystem::create_symlink(dir.path() / "elsewhere", store.path_of(cid));
    std::ofstream(dir.path() / "elsewhere") << "original";
    CHECK(test::error_kind([&] { (void)store.get(cid); }) == ErrorKind::internal);
    CHECK(store.put(data) == cid);  // replaces the link itself
    CHECK(std::filesystem::is_regular_file(std::filesystem::symlink_status(store.path_of(cid))));
}

TEST_CASE("the local store answers nullopt for content it does not hold", "[content][local]") {
    const test::TempDir dir;
    content::LocalStore store(dir.path() / "never-created");
    CHECK_FALSE(store.get(content::Cid::of(eth::as_bytes("absent"))).has_value());
}

TEST_CASE("the content stores refuse content over one chunk and unknown settings", "[content][local]") {
    const test::TempDir dir;
    content::LocalStore store(dir.path());
    const eth::Bytes too_large(content::kMaxContentSize + 1, 0x61);
    CHECK(test::error_kind([&] { (void)store.put(too_large); }) == ErrorKind::invalid_input);

    CHECK(test::error_kind([&] { (void)content::make_content_store({.backend = "s3", .data_dir = dir.path()}); }) ==
          ErrorKind::invalid_input);
    CHECK(test::error_kind([&] { (void)content::make_content_store({.backend = "local", .data_dir = {}}); }) ==
          ErrorKind::invalid_input);
    CHECK(test::error_kind([&] {
              (void)content::make_content_store(
                  {.backend = "kubo", .data_dir = {}, .kubo_url = "ftp://127.0.0.1:5001"});
          }) == ErrorKind::invalid_input);
    CHECK(test::error_kind([&] {
              (void)content::make_content_store({.backend = "kubo",
                                                 .data_dir = {},
                                                 .kubo_url = "http://127.0.0.1:5001",
                                                 .timeout = std::chrono::milliseconds(0)});
          }) == ErrorKind::invalid_input);
}

TEST_CASE("the local store reports unhealthy when its directory cannot be made", "[content][local]") {
    const test::TempDir dir;
    const auto blocker = dir.write("file", "not a directory");
    content::LocalStore store(std::filesystem::path(blocker) / "content");
    const auto health = store.check();
    CHECK_FALSE(health.healthy);
    CHECK_FALSE(health.message.empty());
    CHECK(test::error_kind([&] { (void)store.put(eth::as_bytes("x")); }) == ErrorKind::unavailable);
}
