// libFuzzer target: the text check every string from outside passes
// (core/util/text.hpp) and the escaping the audit log stores. The verdict is
// compared with a second decoder written the other way round (decode any
// lead byte's pattern into a code point, then refuse overlong forms,
// surrogates and values past U+10FFFF); escaping must always give text that
// percent-decodes to the input, and what is shown on a terminal must hold no
// control character.
// fuzz-max-len: 1024

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "core/util/text.hpp"

namespace {

std::optional<std::size_t> reference_fault(std::string_view bytes) {
    for (std::size_t at = 0; at < bytes.size();) {
        const auto lead = static_cast<std::uint8_t>(bytes[at]);
        if (lead == 0) return at;
        std::size_t length = 0;
        std::uint32_t point = 0;
        if (lead < 0x80) length = 1, point = lead;
        else if ((lead & 0xE0) == 0xC0) length = 2, point = lead & 0x1F;
        else if ((lead & 0xF0) == 0xE0) length = 3, point = lead & 0x0F;
        else if ((lead & 0xF8) == 0xF0) length = 4, point = lead & 0x07;
        else return at;
        if (at + length > bytes.size()) return at;
        for (std::size_t i = 1; i < length; ++i) {
            const auto next = static_cast<std::uint8_t>(bytes[at + i]);
            if ((next & 0xC0) != 0x80) return at;
            point = (point << 6) | (next & 0x3F);
        }
        static constexpr std::uint32_t kShortest[] = {0, 0, 0x80, 0x800, 0x10000};
        if (point < kShortest[length] || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF)) return at;
        at += length;
    }
    return std::nullopt;
}

/// escape_text's inverse: every '%' it writes starts a %XX of two hex digits.
std::string percent_decode(std::string_view text) {
    std::string out;
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (text[at] != '%') {
            out += text[at];
            continue;
        }
        if (at + 3 > text.size()) std::abort();
        out += static_cast<char>(std::stoi(std::string(text.substr(at + 1, 2)), nullptr, 16));
        at += 2;
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto fault = abci::util::find_text_fault(bytes);
    const auto expected = reference_fault(bytes);
    if (fault.has_value() != expected.has_value() || (fault && fault->offset != *expected)) std::abort();
    if (fault && ((fault->kind == abci::util::TextFault::Kind::nul) != (bytes[fault->offset] == '\0'))) std::abort();
    const auto escaped = abci::util::escape_text(bytes);
    if (!abci::util::is_text(escaped) || percent_decode(escaped) != bytes) std::abort();
    if (!fault && bytes.find('%') == std::string_view::npos && escaped != bytes) std::abort();
    // Shown on a terminal: text, with no control character left in it.
    const auto shown = abci::util::display_text(bytes);
    if (!abci::util::is_text(shown)) std::abort();
    for (const char c : shown)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) std::abort();
    return 0;
}
