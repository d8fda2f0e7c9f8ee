#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/util/text.hpp"

namespace abci {
namespace {

using Kind = util::TextFault::Kind;

std::optional<std::pair<Kind, std::size_t>> fault(std::string_view bytes) {
    const auto found = util::find_text_fault(bytes);
    if (!found) return std::nullopt;
    return std::make_pair(found->kind, found->offset);
}

}  // namespace

TEST_CASE("text: well-formed UTF-8 without NUL is text", "[text]") {
    for (const std::string_view ok :
         {"", "plain ascii", "caf\xc3\xa9", "\xe2\x82\xac 20", "\xf0\x9f\x8c\xb1 seedling", "\xef\xbf\xbf",
          "\xf4\x8f\xbf\xbf" /* U+10FFFF */, "\xed\x9f\xbf" /* U+D7FF */, "\xee\x80\x80" /* U+E000 */}) {
        INFO(ok);
        CHECK(util::is_text(ok));
    }
}

TEST_CASE("text: NUL, overlong forms, surrogates and bytes past U+10FFFF are not, with where", "[text]") {
    using namespace std::string_view_literals;
    CHECK(fault("X\0tail"sv) == std::make_pair(Kind::nul, std::size_t{1}));
    CHECK(fault("ab\xff") == std::make_pair(Kind::invalid_utf8, std::size_t{2}));
    CHECK(fault("\xc0\xaf") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));          // overlong '/'
    CHECK(fault("\xc1\xbf") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));          // overlong
    CHECK(fault("\xe0\x80\xaf") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));      // overlong, 3 bytes
    CHECK(fault("\xf0\x80\x80\xaf") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));  // overlong, 4 bytes
    CHECK(fault("a\xed\xa0\x80") == std::make_pair(Kind::invalid_utf8, std::size_t{1}));     // lone surrogate U+D800
    CHECK(fault("\xed\xbf\xbf") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));      // U+DFFF
    CHECK(fault("\xf4\x90\x80\x80") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));  // U+110000
    CHECK(fault("\xf5\x80\x80\x80") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));
    CHECK(fault("\xc3") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));              // cut short
    CHECK(fault("\xe2\x82") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));
    CHECK(fault("\x80") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));              // lone continuation
    CHECK(fault("\xc3\x28") == std::make_pair(Kind::invalid_utf8, std::size_t{0}));
}

TEST_CASE("text: require_text names the field and the place in a 400's details", "[text]") {
    using namespace std::string_view_literals;
    CHECK_NOTHROW(util::require_text("fine", "entityId"));
    try {
        util::require_text("X\0tail"sv, "entityId");
        FAIL("accepted a NUL");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::invalid_input);
        REQUIRE(e.details().size() == 1);
        CHECK(e.details()[0] == "entityId has a NUL character at byte 1; send UTF-8 text without NUL");
    }
    try {
        util::require_text("/abci/\xff", "the path");
        FAIL("accepted 0xFF");
    } catch (const Error& e) {
        CHECK(e.details()[0] == "the path has a byte that is not valid UTF-8 at byte 6; send UTF-8 text without NUL");
    }
}

TEST_CASE("text: escape_text keeps text and percent-encodes faults and '%', reversibly", "[text]") {
    using namespace std::string_view_literals;
    CHECK(util::escape_text("/abci/health") == "/abci/health");
    CHECK(util::escape_text("caf\xc3\xa9") == "caf\xc3\xa9");
    CHECK(util::escape_text("/abci/\xff") == "/abci/%FF");
    CHECK(util::escape_text("/abci/x\0y"sv) == "/abci/x%00y");
    CHECK(util::escape_text("100%") == "100%25");
    CHECK(util::escape_text("\xed\xa0\x80") == "%ED%A0%80");
    CHECK(util::escape_text("\xc3") == "%C3");
    for (const std::string_view hostile : {"\xff\xfe"sv, "a\0b"sv, "\xc0\xaf"sv, "\xf4\x90\x80\x80"sv, "%00"sv}) {
        CHECK(util::is_text(util::escape_text(hostile)));
    }
}

}  // namespace abci

namespace abci {

TEST_CASE("text: display_text shows what would drive a terminal as visible escapes", "[text]") {
    using namespace std::string_view_literals;
    CHECK(util::display_text("field work, caf\xc3\xa9 \xf0\x9f\x8c\xb1") == "field work, caf\xc3\xa9 \xf0\x9f\x8c\xb1");
    CHECK(util::display_text("\x1b[2J\x1b]8;;http://x\x07link") == "\\x1b[2J\\x1b]8;;http://x\\x07link");
    CHECK(util::display_text("note\nFAKE ROW\tx\r") == "note\\nFAKE ROW\\tx\\r");
    CHECK(util::display_text("a\0b\x7f"sv) == "a\\x00b\\x7f");
    CHECK(util::display_text("\xc2\x9b" "31m") == "\\x9b31m");                            // C1 CSI
    CHECK(util::display_text("admin\xe2\x80\xae" "txt.exe") == "admin\\u202etxt.exe");  // RIGHT-TO-LEFT OVERRIDE
    CHECK(util::display_text("\xe2\x81\xa6\xd8\x9c\xe2\x80\x8f") == "\\u2066\\u061c\\u200f");
    CHECK(util::display_text("\xff\xc3") == "\\xff\\xc3");
}

}  // namespace abci
