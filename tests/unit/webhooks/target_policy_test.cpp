#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/webhooks/target_policy.hpp"
#include "support/error_kind.hpp"

using namespace abci;

TEST_CASE("webhook targets: only https, without credentials, unless insecure targets are allowed", "[webhooks]") {
    const webhooks::TargetPolicy strict;
    const webhooks::TargetPolicy insecure{.allow_insecure = true};
    CHECK(webhooks::check_target_url("https://hooks.example.org/in?x=1", strict).target == "/in?x=1");
    CHECK(test::error_kind([&] { (void)webhooks::check_target_url("http://hooks.example.org/", strict); }) ==
          ErrorKind::invalid_input);
    CHECK(webhooks::check_target_url("http://hooks.example.org/", insecure).port == 80);
    for (const char* bad : {"ftp://hooks.example.org/", "hooks.example.org", "https://user:pw@hooks.example.org/",
                            "https:///path", ""}) {
        INFO(bad);
        CHECK(test::error_kind([&] { (void)webhooks::check_target_url(bad, insecure); }) == ErrorKind::invalid_input);
    }
}

TEST_CASE("webhook targets: loopback, private, link-local, multicast and unspecified addresses are refused",
          "[webhooks]") {
    const std::vector<std::pair<const char*, const char*>> refused = {
        {"127.0.0.1", "loopback"},       {"127.255.0.9", "loopback"},     {"10.0.0.1", "private"},
        {"172.16.0.1", "private"},       {"172.31.255.255", "private"},   {"192.168.1.1", "private"},
        {"100.64.0.1", "private"},       {"169.254.169.254", "link-local"}, {"224.0.0.1", "multicast"},
        {"0.0.0.0", "unspecified"},      {"255.255.255.255", "reserved"}, {"::1", "loopback"},
        {"::", "unspecified"},           {"fc00::1", "private"},          {"fd12:3456::1", "private"},
        {"fe80::1", "link-local"},       {"ff02::1", "multicast"},        {"::ffff:127.0.0.1", "loopback"},
        {"::ffff:169.254.169.254", "link-local"}, {"::ffff:10.1.2.3", "private"},
    };
    for (const auto& [address, kind] : refused) {
        INFO(address);
        CHECK(webhooks::refused_address_kind(address) == kind);
    }
    for (const char* address : {"8.8.8.8", "172.32.0.1", "172.15.255.255", "192.169.0.1", "100.128.0.1",
                                "2606:4700:4700::1111", "::ffff:8.8.8.8"}) {
        INFO(address);
        CHECK(webhooks::refused_address_kind(address).empty());
    }
    CHECK(test::error_kind([] { (void)webhooks::refused_address_kind("example.org"); }) == ErrorKind::invalid_input);
}

TEST_CASE("webhook targets: every address a name resolves to is checked, literals and names alike", "[webhooks]") {
    const webhooks::TargetPolicy strict;
    const webhooks::TargetPolicy open{.allow_insecure = true, .allow_private = true};
    for (const char* url : {"https://127.0.0.1/", "https://10.0.0.1/", "https://169.254.169.254/latest/meta-data",
                            "https://[::1]:8443/", "https://[::ffff:127.0.0.1]/", "https://localhost/"}) {
        INFO(url);
        const auto parsed = webhooks::check_target_url(url, strict);
        CHECK(test::error_kind([&] { (void)webhooks::resolve_target(parsed, strict); }) == ErrorKind::invalid_input);
    }
    const auto local = webhooks::resolve_target(webhooks::check_target_url("http://localhost:9/", open), open);
    CHECK(std::find(local.begin(), local.end(), "127.0.0.1") != local.end());
    CHECK(webhooks::resolve_target(webhooks::check_target_url("https://[::1]/", open), open) ==
          std::vector<std::string>{"::1"});
    CHECK(test::error_kind([&] {
              (void)webhooks::resolve_target(webhooks::check_target_url("https://no-such-host.invalid/", strict),
                                             strict);
          }) == ErrorKind::unavailable);
}
