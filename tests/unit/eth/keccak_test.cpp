#include <catch2/catch.hpp>

#include "core/eth/keccak.hpp"

using namespace abci::eth;

TEST_CASE("keccak256 matches published vectors", "[eth][keccak]") {
    CHECK(to_hex(keccak256(std::string_view{})) ==
          "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    CHECK(to_hex(keccak256(std::string_view{"abc"})) ==
          "0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
    CHECK(to_hex(keccak256(std::string_view{"hello world"})) ==
          "0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad");
}

TEST_CASE("keccak256 absorbs across block boundaries", "[eth][keccak]") {
    // 135, 136 and 137 bytes straddle the 136-byte rate; incremental and one-shot must agree.
    for (std::size_t n : {135u, 136u, 137u, 272u, 1000u}) {
        std::string data(n, 'a');
        Keccak256 h;
        h.update(as_bytes(std::string_view(data).substr(0, n / 3)));
        h.update(as_bytes(std::string_view(data).substr(n / 3)));
        CHECK(h.finish() == keccak256(std::string_view(data)));
    }
}
