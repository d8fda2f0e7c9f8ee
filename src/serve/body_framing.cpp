#include "serve/body_framing.hpp"

#include <algorithm>
#include <cstring>

namespace abci::serve {

namespace {

// The bytes a chunked body's framing may take beyond its data allowance:
// room for a trailer or extensions when the limit is small.
constexpr std::size_t kFramingAllowance = 4096;

bool is_token_char(char c) noexcept {
    const auto u = static_cast<unsigned char>(c);
    return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
           (u != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr);
}

bool is_control_char(char c) noexcept {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
}

bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }

bool equals_ignoring_case(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return (x >= 'A' && x <= 'Z' ? x - 'A' + 'a' : x) == (y >= 'A' && y <= 'Z' ? y - 'A' + 'a' : y);
           });
}

std::string_view trim_blanks(std::string_view value) noexcept {
    while (!value.empty() && is_blank(value.front())) value.remove_prefix(1);
    while (!value.empty() && is_blank(value.back())) value.remove_suffix(1);
    return value;
}

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// The name of header line `line` (what precedes its colon).
std::string_view field_name(std::string_view line) noexcept { return line.substr(0, line.find(':')); }

bool is_framing_field(std::string_view name) noexcept {
    return equals_ignoring_case(name, "Content-Length") || equals_ignoring_case(name, "Transfer-Encoding") || equals_ignoring_case(name, "Expect");
}

}  // namespace

BodyFraming frame_body(std::string_view head, std::size_t max_body) noexcept {
    BodyFraming out;
    const auto refuse = [&out](BodyFraming::Verdict verdict, const char* problem) {
        out.verdict = verdict;
        out.problem = problem;
        return out;
    };
    // A bare CR or LF is a line end to some parsers and not to others (to
    // cpp-httplib, a line without CRLF is no header at all): a header a proxy
    // in front sees could be one the server does not, or the reverse.
    for (std::size_t i = 0; i < head.size(); ++i) {
        const bool bare_lf = head[i] == '\n' && (i == 0 || head[i - 1] != '\r');
        const bool bare_cr = head[i] == '\r' && (i + 1 == head.size() || head[i + 1] != '\n');
        if (bare_lf || bare_cr)
            return refuse(BodyFraming::Verdict::malformed, "a line of the request head does not end in CRLF");
    }
    auto at = head.find("\r\n");
    // No request line: cpp-httplib answers 400 to it.
    if (at == 0 || at == std::string_view::npos) return out;
    std::size_t lengths = 0;
    std::size_t codings = 0;
    for (at += 2; at < head.size();) {
        const auto end = head.find("\r\n", at);
        // A head ends with an empty line: nothing is framed after it.
        if (end == std::string_view::npos || end == at) break;
        const auto line = head.substr(at, end - at);
        at = end + 2;
        const auto name = field_name(line);
        if (name.size() == line.size() || name.empty() || !std::all_of(name.begin(), name.end(), is_token_char))
            return refuse(BodyFraming::Verdict::malformed, "a header line is not a name, a colon and a value");
        const auto value = trim_blanks(line.substr(name.size() + 1));
        if (equals_ignoring_case(name, "Content-Length")) {
            if (++lengths > 1) return refuse(BodyFraming::Verdict::malformed, "Content-Length is given more than once");
            if (value.empty() || !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
                return refuse(BodyFraming::Verdict::malformed, "Content-Length is not a number of bytes");
            // Saturates just above the limit: any more digits are too large alike.
            for (const char digit : value) out.length = std::min<std::uint64_t>(out.length * 10 + (digit - '0'), max_body + 1ULL);
        } else if (equals_ignoring_case(name, "Transfer-Encoding")) {
            if (++codings > 1) return refuse(BodyFraming::Verdict::malformed, "Transfer-Encoding is given more than once");
            if (!equals_ignoring_case(value, "chunked"))
                return refuse(BodyFraming::Verdict::malformed, "the only Transfer-Encoding accepted is chunked");
        } else if (equals_ignoring_case(name, "Content-Encoding")) {
            // An empty value is no header to cpp-httplib either.
            if (!value.empty() && !equals_ignoring_case(value, "identity"))
                return refuse(BodyFraming::Verdict::unsupported_encoding,
                              "request bodies are accepted without Content-Encoding only");
        } else if (equals_ignoring_case(name, "Expect")) {
            out.expects_continue = out.expects_continue || equals_ignoring_case(value, "100-continue");
        }
    }
    if (lengths > 0 && codings > 0)
        return refuse(BodyFraming::Verdict::malformed, "a request has Content-Length or Transfer-Encoding, not both");
    if (codings > 0) {
        out.kind = BodyFraming::Kind::chunked;
    } else if (lengths > 0) {
        out.kind = BodyFraming::Kind::length;
        if (out.length > max_body)
            return refuse(BodyFraming::Verdict::too_large, "the request body is larger than the server accepts");
    }
    return out;
}

std::string plain_head(std::string_view head, std::size_t body_size) {
    std::string out;
    out.reserve(head.size() + 32);
    for (std::size_t at = 0; at < head.size();) {
        const auto end = head.find("\r\n", at);
        if (end == std::string_view::npos) {
            out.append(head.substr(at));
            break;
        }
        const auto line = head.substr(at, end - at);
        if (line.empty() && at > 0) {
            out += "Content-Length: " + std::to_string(body_size) + "\r\n\r\n";
            out.append(head.substr(end + 2));
            break;
        }
        if (at == 0 || !is_framing_field(field_name(line))) {
            out.append(line);
            out += "\r\n";
        }
        at = end + 2;
    }
    return out;
}

ChunkedDecoder::State ChunkedDecoder::feed(std::string_view bytes, std::string& body) {
    for (std::size_t at = 0; at < bytes.size() && state_ == State::incomplete;) {
        if (step_ == Step::data) {
            const auto n = std::min(remaining_, bytes.size() - at);
            body.append(bytes.substr(at, n));
            at += n;
            scanned_ += n;
            decoded_ += n;
            remaining_ -= n;
            if (remaining_ == 0) step_ = Step::data_cr;
            continue;
        }
        const char c = bytes[at++];
        ++scanned_;
        if (++framing_ > max_body_ + kFramingAllowance) return fail(State::too_large);
        if (!step(c)) return fail(state_ == State::incomplete ? State::malformed : state_);
    }
    return state_;
}

bool ChunkedDecoder::step(char c) noexcept {
    // `c` must be `wanted`, and the decoder goes on at `next`.
    const auto advance_on = [this, c](char wanted, Step next) {
        step_ = next;
        return c == wanted;
    };
    // The rest of a size or trailer line: anything but a control, up to its CR.
    const auto rest_of_line = [this, c](Step at_cr) {
        if (c == '\r') step_ = at_cr;
        return !is_control_char(c) || c == '\r';
    };
    switch (step_) {
    case Step::size_first:
    case Step::size:
        if (const int digit = hex_value(c); digit >= 0) {
            // Refused as soon as the size says the body would pass the limit.
            const auto room = max_body_ - decoded_;
            if (remaining_ > room / 16 || remaining_ * 16 + static_cast<std::size_t>(digit) > room) {
                state_ = State::too_large;
                return false;
            }
            remaining_ = remaining_ * 16 + static_cast<std::size_t>(digit);
            step_ = Step::size;
            return true;
        }
        if (step_ == Step::size_first) return false;
        if (c == ';') return advance_on(';', Step::extension);
        if (is_blank(c)) return advance_on(c, Step::size_space);
        return advance_on('\r', Step::size_lf);
    case Step::size_space: return is_blank(c) || advance_on(';', Step::extension);
    case Step::extension: return rest_of_line(Step::size_lf);
    case Step::size_lf: return advance_on('\n', remaining_ == 0 ? Step::trailer_start : Step::data);
    case Step::data_cr: return advance_on('\r', Step::data_lf);
    case Step::data_lf: return advance_on('\n', Step::size_first);
    case Step::trailer_start:
        if (c == '\r') return advance_on('\r', Step::end_lf);
        // Not a name's first byte: a folded line, or one without a name.
        return is_token_char(c) && advance_on(c, Step::trailer);
    case Step::trailer: return rest_of_line(Step::trailer_lf);
    case Step::trailer_lf: return advance_on('\n', Step::trailer_start);
    case Step::end_lf:
        if (c == '\n') state_ = State::complete;
        return c == '\n';
    case Step::data: break;  // fed in runs by feed()
    }
    return false;
}

}  // namespace abci::serve
