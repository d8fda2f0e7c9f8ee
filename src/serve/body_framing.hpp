#pragma once
// Where a request's body ends, decided before any of it is read. cpp-httplib
// 0.11.4 reads bodies itself, and badly for an open port: a Content-Length
// over its limit is read (and dropped) to the last byte, a chunked body is
// held whole whatever its size, a gzip or deflate body is inflated without
// bound, and a POST without a length is read until the client closes (issue
// 30). So the server frames each body itself (serve/limited_server.cpp): the
// head's framing headers are judged here, a chunked body is decoded and
// counted here as it arrives, and cpp-httplib only ever sees a body of known
// length already in memory. No I/O and nothing beyond the standard library,
// so a fuzzer can drive it alone (tests/fuzz/http_body.cpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace abci::serve {

/// What a request head says about the body after it.
struct BodyFraming {
    enum class Verdict {
        ok,
        malformed,             // ambiguous or broken framing (the request-smuggling shapes): 400
        too_large,             // a Content-Length over the limit: 413 before reading the body
        unsupported_encoding,  // a Content-Encoding other than identity: 415
    };
    enum class Kind { none, length, chunked };

    Verdict verdict = Verdict::ok;
    Kind kind = Kind::none;
    std::uint64_t length = 0;       // Kind::length: the Content-Length
    bool expects_continue = false;  // "Expect: 100-continue"
    const char* problem = "";       // why not ok, in words for the client
};

/// Judges `head`, a whole request head as HeadReader finds it (CRLF line
/// ends, the empty line included), against `max_body` bytes. Strict where
/// cpp-httplib is lax, so that the two can never disagree on where a body
/// ends: every line ends in CRLF, every header line is a token name and a
/// colon, Content-Length is digits and given once, Transfer-Encoding is
/// exactly "chunked", given once and never beside a Content-Length.
[[nodiscard]] BodyFraming frame_body(std::string_view head, std::size_t max_body) noexcept;

/// `head` as cpp-httplib is to parse it once its body of `body_size` bytes is
/// in memory: without Transfer-Encoding, Content-Length or Expect lines, with
/// one Content-Length of `body_size` (a chunked body's decoded size; the
/// 100 Continue is the server's to send, before it reads the body).
[[nodiscard]] std::string plain_head(std::string_view head, std::size_t body_size);

/// Decodes a chunked body fed piece by piece as it arrives, within
/// `max_body` decoded bytes. Chunk extensions and the trailer section are
/// checked and dropped; their bytes, with the size lines, may take at most
/// max_body + 4 KiB, so the bytes read for one body are bounded whatever
/// their shape.
class ChunkedDecoder {
public:
    enum class State {
        incomplete,  // no end yet: feed more
        complete,    // the body (last chunk and trailers) ends within what was fed: see scanned()
        too_large,   // more than max_body decoded bytes, or framing beyond its allowance: 413
        malformed,   // not chunked framing: 400
    };

    explicit ChunkedDecoder(std::size_t max_body) noexcept : max_body_(max_body) {}

    /// Scans `bytes`, the body's next bytes after those fed so far, appending
    /// the chunks' data to `body` (never more than max_body in all), and
    /// stops at the end of the body. Once not incomplete, the state no longer
    /// changes.
    State feed(std::string_view bytes, std::string& body);

    [[nodiscard]] State state() const noexcept { return state_; }
    /// Bytes scanned so far: once complete, the framed body's whole length.
    [[nodiscard]] std::size_t scanned() const noexcept { return scanned_; }

private:
    enum class Step {
        size_first,   // the first hex digit of a chunk size
        size,         // more hex digits, or what ends the size
        size_space,   // whitespace after the size, before an extension
        extension,    // ";" and the rest of the size line
        size_lf,      // the LF of the size line's CRLF
        data,         // `remaining_` bytes of data
        data_cr,      // the CRLF after a chunk's data
        data_lf,
        trailer_start,  // a trailer line's first byte, or the final CRLF's CR
        trailer,        // the rest of a trailer line
        trailer_lf,     // a trailer line's LF
        end_lf,         // the final LF
    };

    State fail(State why) noexcept { return state_ = why; }
    /// Takes one framing byte: false when it is not one the framing allows
    /// there (or, with state() too_large, a size past the limit).
    bool step(char c) noexcept;

    const std::size_t max_body_;
    State state_ = State::incomplete;
    Step step_ = Step::size_first;
    std::size_t scanned_ = 0;
    std::size_t decoded_ = 0;
    std::size_t framing_ = 0;    // bytes other than data
    std::size_t remaining_ = 0;  // of the current chunk's size, as read so far, then of its data
};

}  // namespace abci::serve
