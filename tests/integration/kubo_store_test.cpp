#include <catch2/catch.hpp>

#include <chrono>

#include "core/content/content_store.hpp"
#include "core/content/kubo_store.hpp"
#include "core/os/process.hpp"
#include "support/error_kind.hpp"
#include "support/random.hpp"
#include "support/tools.hpp"

using namespace abci;
using namespace std::chrono_literals;

namespace kubo_store_test {

// tests/support/js/kubo_standin.mjs on a free loopback port: a stand-in for
// Kubo's RPC API (no Kubo binary can be installed here), stopped on destruction.
class KuboStandIn {
public:
    explicit KuboStandIn(std::vector<std::string> options = {})
        : port_(os::free_loopback_port()), process_(argv(port_, std::move(options))) {
        REQUIRE(os::wait_for_port(port_, 10s));
    }

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    void stop() { (void)process_.stop(); }

private:
    static std::vector<std::string> argv(std::uint16_t port, std::vector<std::string> options) {
        std::vector<std::string> out{"node", test::source_path("tests/support/js/kubo_standin.mjs"), "--port",
                                     std::to_string(port)};
        out.insert(out.end(), options.begin(), options.end());
        return out;
    }

    std::uint16_t port_;
    os::Process process_;
};

}  // namespace kubo_store_test

TEST_CASE("the kubo store adds content and gets it back under our CID", "[kubo]") {
    kubo_store_test::KuboStandIn kubo;
    const auto store =
        content::make_content_store({.backend = "kubo", .data_dir = {}, .kubo_url = kubo.url(), .timeout = 5s});
    test::Random random(5001);
    for (std::size_t size : {std::size_t{0}, std::size_t{2}, std::size_t{3000}, content::kMaxContentSize}) {
        INFO(size << " bytes");
        const eth::Bytes data = random.bytes(size);
        const auto cid = store->put(data);
        CHECK(cid == content::Cid::of(data));
        CHECK(store->put(data) == cid);
        CHECK(store->get(cid) == data);
    }
    CHECK_FALSE(store->get(content::Cid::of(eth::as_bytes("never added"))).has_value());
    const auto health = store->check();
    CHECK(health.healthy);
    CHECK_THAT(health.message, Catch::Contains("0.0.0-standin"));
}

TEST_CASE("the kubo store refuses a CID that differs from ours", "[kubo]") {
    kubo_store_test::KuboStandIn kubo({"--lie"});
    content::KuboStore store(kubo.url(), 5s);
    const auto data = eth::as_bytes(R"({"name":"certificate"})");
    try {
        (void)store.put(data);
        FAIL("a wrong CID was accepted");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::internal);
        // Both CIDs are named, so an operator can see what went wrong.
        CHECK_THAT(e.what(), Catch::Contains(content::Cid::of(data).to_string()));
        CHECK_THAT(e.what(), Catch::Contains("bafkrei"));
    }
}

TEST_CASE("the kubo store refuses a block that does not match its CID", "[kubo]") {
    kubo_store_test::KuboStandIn kubo({"--corrupt"});
    content::KuboStore store(kubo.url(), 5s);
    const auto cid = store.put(eth::as_bytes("metadata"));
    CHECK(test::error_kind([&] { (void)store.get(cid); }) == ErrorKind::internal);
}

TEST_CASE("the kubo store passes Kubo's error message on", "[kubo]") {
    kubo_store_test::KuboStandIn kubo({"--fail", "failed to write block: no space left on device"});
    content::KuboStore store(kubo.url(), 5s);
    try {
        (void)store.put(eth::as_bytes("x"));
        FAIL("a Kubo error was not reported");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::unavailable);
        CHECK_THAT(e.what(), Catch::Contains("no space left on device"));
    }
}

TEST_CASE("the kubo store fails quickly when Kubo is down or silent", "[kubo]") {
    kubo_store_test::KuboStandIn kubo;
    content::KuboStore store(kubo.url(), 2s);
    kubo.stop();
    const auto started = std::chrono::steady_clock::now();
    CHECK(test::error_kind([&] { (void)store.put(eth::as_bytes("x")); }) == ErrorKind::unavailable);
    CHECK(test::error_kind([&] { (void)store.get(content::Cid::of(eth::as_bytes("x"))); }) == ErrorKind::unavailable);
    const auto health = store.check();
    CHECK_FALSE(health.healthy);
    CHECK(std::chrono::steady_clock::now() - started < 1s);

    kubo_store_test::KuboStandIn silent({"--hang"});
    content::KuboStore slow(silent.url(), 300ms);
    const auto asked = std::chrono::steady_clock::now();
    CHECK(test::error_kind([&] { (void)slow.put(eth::as_bytes("x")); }) == ErrorKind::timeout);
    const auto waited = std::chrono::steady_clock::now() - asked;
    CHECK(waited >= 300ms);
    CHECK(waited < 2s);
}
