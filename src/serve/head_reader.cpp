#include "serve/head_reader.hpp"

namespace abci::serve {

HeadReader::State HeadReader::feed(std::string_view bytes) noexcept {
    for (const char byte : bytes) {
        if (state_ != State::incomplete) break;
        if (scanned_ == max_bytes_) {
            state_ = State::too_large;
            break;
        }
        ++scanned_;
        if (byte != '\n') {
            if (line_length_++ == 0) line_starts_with_cr_ = byte == '\r';
            continue;
        }
        const bool empty_line = line_length_ == 1 && line_starts_with_cr_;
        line_length_ = 0;
        // An empty first line ends the head too: cpp-httplib answers 400 to it.
        if (empty_line) {
            state_ = State::complete;
        } else if (++lines_ > max_lines_ + 1) {
            state_ = State::too_many_lines;
        }
    }
    return state_;
}

}  // namespace abci::serve
