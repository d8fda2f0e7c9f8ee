// Where a request head ends, and when it is refused, however the bytes are cut.

#include <catch2/catch.hpp>

#include <string>

#include "serve/head_reader.hpp"

// Everything in a namespace of its own: the suite is built as one translation unit.
namespace head_reader_test {

using abci::serve::HeadReader;
using State = HeadReader::State;

/// Feeds `bytes` in pieces of `piece` bytes; the state at the end and the bytes scanned.
std::pair<State, std::size_t> scan_in_pieces(const std::string& bytes, std::size_t piece, std::size_t max_lines = 3,
                                   std::size_t max_bytes = 200) {
    HeadReader reader(max_lines, max_bytes);
    for (std::size_t at = 0; at < bytes.size() && reader.state() == State::incomplete; at += piece)
        reader.feed(std::string_view(bytes).substr(at, piece));
    return {reader.state(), reader.scanned()};
}

TEST_CASE("a head ends at its first CRLF empty line, whatever the pieces", "[unit][serve][head]") {
    const std::string head = "GET / HTTP/1.1\r\nHost: a\r\nX: \n\r\n";
    for (const std::size_t piece : {1, 2, 5, 1000}) {
        INFO("pieces of " << piece);
        CHECK(scan_in_pieces(head + "body", piece) == std::pair{State::complete, head.size()});
        CHECK(scan_in_pieces(head.substr(0, head.size() - 1), piece).first == State::incomplete);
    }
    // A bare LF line is a line, not the end (cpp-httplib's parser agrees).
    CHECK(scan_in_pieces("GET / HTTP/1.1\r\n\n\n", 1).first == State::incomplete);
}

TEST_CASE("more header lines or bytes than allowed are refused", "[unit][serve][head]") {
    // Three header lines are allowed; the request line and the empty line do not count.
    CHECK(scan_in_pieces("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", 1).first == State::complete);
    CHECK(scan_in_pieces("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", 1).first == State::too_many_lines);
    CHECK(scan_in_pieces("GET / HTTP/1.1\r\nA: " + std::string(300, 'a') + "\r\n\r\n", 7).first == State::too_large);
    // Exactly the byte cap is still a head.
    const std::string exact = "GET / HTTP/1.1\r\n\r\n";
    CHECK(scan_in_pieces(exact, 3, 3, exact.size()).first == State::complete);
    CHECK(scan_in_pieces(exact, 3, 3, exact.size() - 1).first == State::too_large);
    // Once refused, more bytes change nothing.
    HeadReader reader(0, 100);
    CHECK(reader.feed("GET / HTTP/1.1\r\nA: 1\r\n") == State::too_many_lines);
    CHECK(reader.feed("\r\n") == State::too_many_lines);
    reader.reset();
    CHECK(reader.feed("GET / HTTP/1.1\r\n\r\n") == State::complete);
}

}  // namespace head_reader_test
