// RPC URLs as the HTTP client sends them (the rest of parse_url and mask_url
// is in tests/integration/rpc_client_test.cpp, beside the client).

#include <catch2/catch.hpp>

#include "core/rpc/url.hpp"
#include "support/error_kind.hpp"

using namespace abci;

TEST_CASE("rpc: a URL with a space or a control character is refused", "[rpc][url]") {
    // Found by tests/fuzz/url.cpp: they were accepted into host and target,
    // which go into the request line and the Host header, from a configured
    // URL or from an endpoint an OpenID provider's discovery document names;
    // what reached the wire was left to the HTTP library's re-encoding.
    for (const char* bad : {"http://node.example/a b", "http://node.example/rpc\r\nX-Injected: 1",
                            "http://node.example\r\n/", "http://node\t.example/", "https://node.example/?k=\n",
                            "http://node.example/\x7f", "http://us\ner:pw@node.example/"}) {
        INFO(bad);
        CHECK(test::error_kind([&] { (void)rpc::parse_url(bad); }) == ErrorKind::invalid_input);
    }
    CHECK(rpc::parse_url("http://node.example/a%20b?q=%0A").target == "/a%20b?q=%0A");
}
