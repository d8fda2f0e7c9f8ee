// libFuzzer target: the request-head reader the server runs on every
// connection before cpp-httplib parses anything (serve/head_reader.hpp). The
// input is read as the server reads it, in pieces whose sizes the first byte
// chooses; whatever the cut, the reader must reach the same verdict.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "serve/head_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::size_t piece = 1 + data[0] % 64;
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    using abci::serve::HeadReader;
    HeadReader whole(100, 64 * 1024);
    HeadReader in_pieces(100, 64 * 1024);
    whole.feed(bytes);
    for (std::size_t at = 0; at < bytes.size() && in_pieces.state() == HeadReader::State::incomplete; at += piece)
        in_pieces.feed(bytes.substr(at, piece));
    if (whole.state() != in_pieces.state() || whole.scanned() != in_pieces.scanned()) std::abort();
    if (whole.state() == HeadReader::State::complete &&
        (whole.scanned() < 2 || bytes.substr(whole.scanned() - 2, 2) != "\r\n"))
        std::abort();
    return 0;
}
