#pragma once
// What counts as text when it comes from outside (request bodies' strings,
// path segments, query values, keys sent in headers): well-formed UTF-8
// (Unicode's table 3-7: no overlong forms, no surrogates, nothing past
// U+10FFFF) without NUL. SQLite stores any bytes, PostgreSQL refuses invalid
// UTF-8 and cuts text at a NUL without a word; checking once at the edge makes
// both backends see the same text, and a lookup never matches a shorter key.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace abci::util {

struct TextFault {
    enum class Kind { nul, invalid_utf8 };
    Kind kind;
    std::size_t offset;  // of the first byte at fault
};

/// The first place where `bytes` stop being text; nothing when all of it is.
[[nodiscard]] std::optional<TextFault> find_text_fault(std::string_view bytes) noexcept;

[[nodiscard]] inline bool is_text(std::string_view bytes) noexcept { return !find_text_fault(bytes).has_value(); }

/// Error(invalid_input) naming `field` and where it stops being text, unless `bytes` is text.
void require_text(std::string_view bytes, std::string_view field);

/// `bytes` as text that any backend stores and any reader shows: text stays as
/// it is, except that '%' and every byte of a fault (NUL, each byte of an
/// invalid sequence) become %XX, so the original bytes can be recovered
/// (percent-decoding) and a clean input without '%' is unchanged. For what is
/// recorded rather than acted on (the audit log's raw path).
[[nodiscard]] std::string escape_text(std::string_view bytes);

/// `text` as a terminal shows it without being driven by it: line breaks,
/// tabs and every other control character (C0, DEL, C1), the invisible
/// bidirectional controls (U+061C, U+200E/F, U+202A-E, U+2066-9: "Trojan
/// Source") and each byte of an invalid sequence become visible escapes
/// (\n, \t, \x1b, \u202e, \xff). What a user stored can then neither
/// move the cursor, recolour or clear the screen, open a link, nor forge a
/// line of a listing, however it is printed.
[[nodiscard]] std::string display_text(std::string_view text);

}  // namespace abci::util
