// Where a request body ends, judged from its head before any of it is read,
// and a chunked body decoded within the limit however its bytes are cut.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "serve/body_framing.hpp"

// Everything in a namespace of its own: the suite is built as one translation unit.
namespace body_framing_test {

using abci::serve::BodyFraming;
using abci::serve::ChunkedDecoder;
using abci::serve::frame_body;
using abci::serve::plain_head;
using Verdict = BodyFraming::Verdict;
using Kind = BodyFraming::Kind;
using State = ChunkedDecoder::State;

std::string head_with(const std::vector<std::string>& lines) {
    std::string head = "POST /api/x HTTP/1.1\r\nHost: a\r\n";
    for (const auto& line : lines) head += line + "\r\n";
    return head + "\r\n";
}

struct Decoded {
    State state;
    std::size_t scanned;
    std::string body;
};

Decoded decode_in_pieces(const std::string& bytes, std::size_t piece, std::size_t max_body = 100) {
    ChunkedDecoder decoder(max_body);
    std::string body;
    for (std::size_t at = 0; at < bytes.size() && decoder.state() == State::incomplete; at += piece)
        decoder.feed(std::string_view(bytes).substr(at, piece), body);
    return {decoder.state(), decoder.scanned(), body};
}

TEST_CASE("body framing: length, chunked or none, from the head alone", "[unit][serve][body]") {
    const auto none = frame_body(head_with({}), 100);
    CHECK(none.verdict == Verdict::ok);
    CHECK(none.kind == Kind::none);

    const auto length = frame_body(head_with({"content-length:  42 "}), 100);
    CHECK(length.verdict == Verdict::ok);
    CHECK(length.kind == Kind::length);
    CHECK(length.length == 42);

    const auto chunked = frame_body(head_with({"Transfer-Encoding: Chunked", "Expect: 100-continue"}), 100);
    CHECK(chunked.verdict == Verdict::ok);
    CHECK(chunked.kind == Kind::chunked);
    CHECK(chunked.expects_continue);

    for (const auto* identity : {"Content-Encoding: identity", "Content-Encoding:"}) {
        INFO(identity);
        CHECK(frame_body(head_with({identity, "Content-Length: 2"}), 100).verdict == Verdict::ok);
    }
}

TEST_CASE("body framing: over the limit from the Content-Length alone, however many digits", "[unit][serve][body]") {
    CHECK(frame_body(head_with({"Content-Length: 100"}), 100).verdict == Verdict::ok);
    for (const auto* length : {"101", "100000000", "99999999999999999999999999999999999999"}) {
        INFO(length);
        const auto framing = frame_body(head_with({std::string("Content-Length: ") + length}), 100);
        CHECK(framing.verdict == Verdict::too_large);
        CHECK(std::string(framing.problem).find("larger") != std::string::npos);
    }
}

TEST_CASE("body framing: a compressed body is refused before it is read", "[unit][serve][body]") {
    for (const auto* coding : {"gzip", "deflate", "br", "x-gzip", "gzip, identity", "%67zip", "identity, gzip"}) {
        INFO(coding);
        CHECK(frame_body(head_with({std::string("Content-Encoding: ") + coding}), 100).verdict ==
              Verdict::unsupported_encoding);
    }
}

TEST_CASE("body framing: the request-smuggling shapes are malformed", "[unit][serve][body]") {
    const std::vector<std::vector<std::string>> shapes = {
        {"Content-Length: 5", "Transfer-Encoding: chunked"},
        {"Transfer-Encoding: chunked", "Content-Length: 5"},
        {"Content-Length: 5", "Content-Length: 6"},
        {"Content-Length: 5", "Content-Length: 5"},
        {"Content-Length: 5, 5"},
        {"Content-Length: +5"},
        {"Content-Length: -1"},
        {"Content-Length: 0x5"},
        {"Content-Length: %35"},
        {"Content-Length:"},
        {"Transfer-Encoding: chunked", "Transfer-Encoding: chunked"},
        {"Transfer-Encoding: chunked, identity"},
        {"Transfer-Encoding: identity"},
        {"Transfer-Encoding: xchunked"},
        {"Transfer-Encoding: %63hunked"},
        {"Transfer-Encoding : chunked"},
        {"Transfer-Encoding\t: chunked"},
        {" Transfer-Encoding: chunked"},
        {"X: y", " Transfer-Encoding: chunked"},
        {"Transfer-Encoding chunked"},
        {": chunked"},
    };
    for (const auto& shape : shapes) {
        std::string text;
        for (const auto& line : shape) text += "[" + line + "]";
        INFO(text);
        const auto framing = frame_body(head_with(shape), 100);
        CHECK(framing.verdict == Verdict::malformed);
        CHECK(std::string(framing.problem).size() > 10);
    }
    // A line end other than CRLF, anywhere: a header to one parser is none to another.
    for (const std::string head :
         {"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\n\r\n",
          "POST / HTTP/1.1\r\nHost: a\nTransfer-Encoding: chunked\r\n\r\n",
          "POST / HTTP/1.1\r\nX: a\rTransfer-Encoding: chunked\r\n\r\n", "POST / HTTP/1.1\n\r\n"}) {
        INFO(head);
        CHECK(frame_body(head, 100).verdict == Verdict::malformed);
    }
}

TEST_CASE("body framing: bytes that are not a whole head end the reading, framed as nothing", "[unit][serve][body]") {
    // The fuzzer's find: a last line without CRLF sent the reading back to the start, for ever.
    for (const std::string partial : {"XA: b\r\nC: d", "POST / HTTP/1.1\r\nContent-Length: 5", "G\r\n"}) {
        INFO(partial);
        const auto framing = frame_body(partial, 100);
        CHECK(framing.verdict == Verdict::ok);
        CHECK(framing.kind == Kind::none);
    }
}

TEST_CASE("body framing: the head cpp-httplib parses names the decoded length and nothing else", "[unit][serve][body]") {
    const auto head = head_with({"Transfer-Encoding: chunked", "X-Kept: 1", "expect: 100-continue"});
    const auto plain = plain_head(head, 12);
    CHECK(plain == "POST /api/x HTTP/1.1\r\nHost: a\r\nX-Kept: 1\r\nContent-Length: 12\r\n\r\n");
    const auto again = frame_body(plain, 100);
    CHECK(again.verdict == Verdict::ok);
    CHECK(again.kind == Kind::length);
    CHECK(again.length == 12);
    CHECK(!again.expects_continue);
}

TEST_CASE("chunked decoder: data, extensions and trailers, whatever the pieces", "[unit][serve][body]") {
    const std::string body = "5\r\nhello\r\n6;name=\"v\"\r\n world\r\n1 ; x\r\n!\r\n0\r\nX-Trailer: t\r\n\r\n";
    for (const std::size_t piece : {1, 2, 7, 1000}) {
        INFO("pieces of " << piece);
        const auto decoded = decode_in_pieces(body + "GET / HTTP/1.1\r\n", piece);
        CHECK(decoded.state == State::complete);
        CHECK(decoded.scanned == body.size());
        CHECK(decoded.body == "hello world!");
        CHECK(decode_in_pieces(body.substr(0, body.size() - 1), piece).state == State::incomplete);
    }
    CHECK(decode_in_pieces("0\r\n\r\n", 1).body.empty());
    CHECK(decode_in_pieces("000A\r\n0123456789\r\n0\r\n\r\n", 3).body == "0123456789");
}

TEST_CASE("chunked decoder: refused the moment a size passes the limit", "[unit][serve][body]") {
    // 100 bytes fit; a size line saying 101 is refused before any data arrives.
    CHECK(decode_in_pieces("64\r\n" + std::string(100, 'a') + "\r\n0\r\n\r\n", 5).state == State::complete);
    const auto over = decode_in_pieces("65\r\n", 1);
    CHECK(over.state == State::too_large);
    CHECK(over.scanned == 2);
    CHECK(decode_in_pieces("32\r\n" + std::string(50, 'a') + "\r\n33\r\n", 4).state == State::too_large);
    CHECK(decode_in_pieces("ffffffffffffffffffffffffffff\r\n", 1).state == State::too_large);
    // Framing is bounded too: endless leading zeros or extensions, or a trailer without end.
    CHECK(decode_in_pieces(std::string(10000, '0'), 64).state == State::too_large);
    CHECK(decode_in_pieces("1;" + std::string(10000, 'x'), 64).state == State::too_large);
    CHECK(decode_in_pieces("0\r\n" + std::string(10000, 'x'), 64).state == State::too_large);
}

TEST_CASE("chunked decoder: malformed framing is refused", "[unit][serve][body]") {
    for (const std::string bad : {"\r\n", "x\r\n", "-1\r\n", "0x5\r\nhello\r\n", " 5\r\nhello\r\n", "5\nhello\r\n",
                                  "5\r\nhelloX\r\n", "5\r\nhello\n0\r\n\r\n", "5 x\r\nhello\r\n", "5;\x01\r\n",
                                  "0\r\n\n", "0\r\n X: folded\r\n\r\n", "0\r\nX: t\n\r\n", "0\r\n\r\r"}) {
        INFO(bad);
        CHECK(decode_in_pieces(bad, 1).state == State::malformed);
    }
}

}  // namespace body_framing_test
