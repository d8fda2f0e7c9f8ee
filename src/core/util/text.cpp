#include "core/util/text.hpp"

#include <cstdint>

#include "core/error.hpp"

namespace abci::util {

namespace {

/// Length of the well-formed UTF-8 sequence at `bytes[at]`, or 0 when none
/// starts there (Unicode 15, table 3-7).
std::size_t sequence_length(std::string_view bytes, std::size_t at) noexcept {
    const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(bytes[at + i]); };
    const auto left = bytes.size() - at;
    const auto lead = byte(0);
    const auto continuation = [&](std::size_t i, std::uint8_t low = 0x80, std::uint8_t high = 0xBF) {
        return i < left && byte(i) >= low && byte(i) <= high;
    };
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
    if (lead >= 0xE0 && lead <= 0xEF) {
        // E0 would be overlong below A0; ED would encode a surrogate from A0 on.
        const std::uint8_t low = lead == 0xE0 ? 0xA0 : 0x80;
        const std::uint8_t high = lead == 0xED ? 0x9F : 0xBF;
        return continuation(1, low, high) && continuation(2) ? 3 : 0;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        // F0 would be overlong below 90; F4 would pass U+10FFFF from 90 on.
        const std::uint8_t low = lead == 0xF0 ? 0x90 : 0x80;
        const std::uint8_t high = lead == 0xF4 ? 0x8F : 0xBF;
        return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
    }
    return 0;
}

/// The code point of the well-formed sequence of `length` bytes at `bytes[at]`.
std::uint32_t code_point(std::string_view bytes, std::size_t at, std::size_t length) noexcept {
    static constexpr std::uint8_t kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    std::uint32_t point = static_cast<std::uint8_t>(bytes[at]) & kLeadMask[length];
    for (std::size_t i = 1; i < length; ++i) point = (point << 6) | (static_cast<std::uint8_t>(bytes[at + i]) & 0x3F);
    return point;
}

bool drives_a_terminal(std::uint32_t point) noexcept {
    return point < 0x20 || (point >= 0x7F && point <= 0x9F) || point == 0x061C || point == 0x200E || point == 0x200F ||
           (point >= 0x202A && point <= 0x202E) || (point >= 0x2066 && point <= 0x2069);
}

constexpr char kLowerHex[] = "0123456789abcdef";

}  // namespace

std::optional<TextFault> find_text_fault(std::string_view bytes) noexcept {
    for (std::size_t at = 0; at < bytes.size();) {
        if (bytes[at] == '\0') return TextFault{TextFault::Kind::nul, at};
        const auto length = sequence_length(bytes, at);
        if (length == 0) return TextFault{TextFault::Kind::invalid_utf8, at};
        at += length;
    }
    return std::nullopt;
}

void require_text(std::string_view bytes, std::string_view field) {
    const auto fault = find_text_fault(bytes);
    if (!fault) return;
    const auto what = fault->kind == TextFault::Kind::nul ? std::string("a NUL character")
                                                          : "a byte that is not valid UTF-8";
    throw Error(ErrorKind::invalid_input, "invalid request",
                {std::string(field) + " has " + what + " at byte " + std::to_string(fault->offset) +
                 "; send UTF-8 text without NUL"});
}

std::string escape_text(std::string_view bytes) {
    static constexpr char kUpperHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(bytes.size());
    const auto escape = [&](char c) {
        const auto b = static_cast<std::uint8_t>(c);
        out += '%';
        out += kUpperHex[b >> 4];
        out += kUpperHex[b & 0x0F];
    };
    for (std::size_t at = 0; at < bytes.size();) {
        const auto length = bytes[at] == '\0' ? 0 : sequence_length(bytes, at);
        if (length == 0 || bytes[at] == '%') {
            escape(bytes[at]);
            ++at;
        } else {
            out.append(bytes.substr(at, length));
            at += length;
        }
    }
    return out;
}

std::string display_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    const auto hex = [&](std::uint32_t value, int digits) {
        for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += kLowerHex[(value >> shift) & 0x0F];
    };
    for (std::size_t at = 0; at < text.size();) {
        const auto length = sequence_length(text, at);
        if (length == 0) {
            out += "\\x";
            hex(static_cast<std::uint8_t>(text[at]), 2);
            ++at;
            continue;
        }
        const auto point = code_point(text, at, length);
        if (!drives_a_terminal(point)) {
            out.append(text.substr(at, length));
        } else if (point == '\n') {
            out += "\\n";
        } else if (point == '\t') {
            out += "\\t";
        } else if (point == '\r') {
            out += "\\r";
        } else if (point < 0x100) {
            out += "\\x";
            hex(point, 2);
        } else {
            out += "\\u";
            hex(point, 4);
        }
        at += length;
    }
    return out;
}

}  // namespace abci::util
