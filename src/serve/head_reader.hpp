#pragma once
// Finds where an HTTP/1.1 request head (request line, header lines, empty
// line) ends in bytes arriving piece by piece, and refuses a head with more
// header lines or bytes than allowed before it is parsed. The server reads a
// whole head under one deadline with it (serve/limited_server.cpp); parsing
// stays cpp-httplib's. No I/O and no dependency beyond the standard library,
// so a fuzzer can drive it alone (tests/fuzz/http_head.cpp).

#include <cstddef>
#include <string_view>

namespace abci::serve {

class HeadReader {
public:
    enum class State {
        incomplete,      // no end of head yet: feed more
        complete,        // the head ends within what was fed (see scanned())
        too_many_lines,  // more than max_header_lines header lines: 431
        too_large,       // more than max_head_bytes bytes without an end: 431
    };

    /// The request line and the empty line do not count as header lines.
    HeadReader(std::size_t max_header_lines, std::size_t max_head_bytes) noexcept
        : max_lines_(max_header_lines), max_bytes_(max_head_bytes) {}

    /// Scans `bytes`, the next bytes of the head after those fed so far, and
    /// stops at the end of the head. A head ends at the first line that is
    /// exactly CRLF, as cpp-httplib's parser has it (bare-LF lines are lines,
    /// never the end). Once not incomplete, the state no longer changes.
    State feed(std::string_view bytes) noexcept;

    [[nodiscard]] State state() const noexcept { return state_; }
    /// Bytes scanned so far: once complete, the head's length, empty line included.
    [[nodiscard]] std::size_t scanned() const noexcept { return scanned_; }
    /// For the next request on the connection.
    void reset() noexcept { *this = HeadReader(max_lines_, max_bytes_); }

private:
    std::size_t max_lines_;
    std::size_t max_bytes_;
    State state_ = State::incomplete;
    std::size_t scanned_ = 0;
    std::size_t lines_ = 0;          // lines ended so far, the request line included
    std::size_t line_length_ = 0;    // bytes of the current line so far
    bool line_starts_with_cr_ = false;
};

}  // namespace abci::serve
