// libFuzzer target: the body framing the server applies to every request
// before cpp-httplib sees it (serve/body_framing.hpp). The input's first byte
// chooses the piece size and the limit; the rest is read both as a request
// head (judged, and rewritten as cpp-httplib is given it) and as a chunked
// body (decoded as the server decodes it, in pieces). Whatever the cut, the
// decoder must reach the same verdict and data and never pass its limits,
// and a rewritten head must frame the body it names.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "serve/body_framing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    using abci::serve::BodyFraming;
    using abci::serve::ChunkedDecoder;
    const std::size_t piece = 1 + data[0] % 64;
    const std::size_t max_body = 16u << (data[0] % 8);  // 16 bytes to 2 KiB: small limits are reached
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);

    const auto framing = abci::serve::frame_body(bytes, max_body);
    if (framing.verdict == BodyFraming::Verdict::ok) {
        if (framing.kind == BodyFraming::Kind::length && framing.length > max_body) std::abort();
        const auto plain = abci::serve::plain_head(bytes, 7);
        const auto again = abci::serve::frame_body(plain, max_body);
        // The rewrite of a whole head (ending in its empty line) frames exactly the length it names.
        if (bytes.size() >= 4 && bytes.substr(bytes.size() - 4) == "\r\n\r\n" && bytes.substr(0, 2) != "\r\n" &&
            bytes.find("\r\n\r\n") == bytes.size() - 4 &&
            (again.verdict != BodyFraming::Verdict::ok || again.kind != BodyFraming::Kind::length ||
             again.length != 7 || again.expects_continue))
            std::abort();
    } else if (framing.problem[0] == '\0') {
        std::abort();
    }

    ChunkedDecoder whole(max_body);
    ChunkedDecoder in_pieces(max_body);
    std::string whole_body;
    std::string pieces_body;
    whole.feed(bytes, whole_body);
    for (std::size_t at = 0; at < bytes.size() && in_pieces.state() == ChunkedDecoder::State::incomplete; at += piece)
        in_pieces.feed(bytes.substr(at, piece), pieces_body);
    if (whole.state() != in_pieces.state() || whole.scanned() != in_pieces.scanned()) std::abort();
    if (whole_body != pieces_body) std::abort();
    if (whole_body.size() > max_body || pieces_body.size() > max_body) std::abort();
    if (whole.scanned() > bytes.size() || whole.scanned() > 2 * max_body + 4096 + 1) std::abort();
    if (whole.state() == ChunkedDecoder::State::complete && bytes.substr(whole.scanned() - 2, 2) != "\r\n") std::abort();
    return 0;
}
