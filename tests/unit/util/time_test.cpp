#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/os/process.hpp"
#include "core/util/time.hpp"
#include "support/error_kind.hpp"
#include "support/random.hpp"
#include "support/tools.hpp"

using namespace abci;
using abci::util::format_iso8601_utc;
using abci::util::parse_rfc3339;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using TimePoint = std::chrono::system_clock::time_point;

TEST_CASE("RFC 3339 examples parse to their instants", "[time]") {
    // RFC 3339 §5.8's examples (the leap second one is rejected below).
    CHECK(parse_rfc3339("1985-04-12T23:20:50.52Z") == TimePoint(milliseconds(482196050520)));
    CHECK(parse_rfc3339("1996-12-19T16:39:57-08:00") == TimePoint(seconds(851042397)));
    CHECK(parse_rfc3339("1937-01-01T12:00:27.87+00:20") == TimePoint(milliseconds(-1041337172130)));
    CHECK(parse_rfc3339("1970-01-01T00:00:00Z") == TimePoint{});
    CHECK(parse_rfc3339("1970-01-01t00:00:00z") == TimePoint{});
    CHECK(parse_rfc3339("2024-02-29T00:00:00.123456789+00:00") ==
          TimePoint(seconds(1709164800)) + nanoseconds(123456789));
    // Digits past nanoseconds are truncated, not rounded.
    CHECK(parse_rfc3339("1970-01-01T00:00:00.0000000019Z") == TimePoint(nanoseconds(1)));
}

TEST_CASE("malformed RFC 3339 date-times are invalid input", "[time]") {
    const char* bad[] = {
        "",
        "2026-11-22",
        "2026-11-22T10:00:00",         // no offset
        "2026-11-22 10:00:00Z",        // space instead of T
        "2026-11-22T10:00Z",           // no seconds
        "26-11-22T10:00:00Z",          // 2-digit year
        "2026-1-22T10:00:00Z",         // 1-digit month
        "2026-13-01T10:00:00Z",        // month 13
        "2026-00-01T10:00:00Z",        // month 0
        "2026-11-00T10:00:00Z",        // day 0
        "2026-11-31T10:00:00Z",        // November has 30 days
        "2026-02-29T10:00:00Z",        // not a leap year
        "2100-02-29T10:00:00Z",        // century, not a leap year
        "2026-11-22T24:00:00Z",        // hour 24
        "2026-11-22T10:60:00Z",        // minute 60
        "2026-11-22T10:00:61Z",        // second 61
        "1990-12-31T23:59:60Z",        // leap second
        "2026-11-22T10:00:00.Z",       // empty fraction
        "2026-11-22T10:00:00+0100",    // offset without colon
        "2026-11-22T10:00:00+01",      // offset without minutes
        "2026-11-22T10:00:00+24:00",   // offset hour 24
        "2026-11-22T10:00:00+01:60",   // offset minute 60
        "2026-11-22T10:00:00Z ",       // trailing space
        " 2026-11-22T10:00:00Z",       // leading space
        "2026-11-22T10:00:00ZZ",       // trailing junk
        "+2026-11-22T10:00:00Z",       // signed year
        "2026-11-22T10:00:00,5Z",      // comma fraction (ISO 8601, not RFC 3339)
        "9999-12-31T23:59:59Z",        // beyond system_clock's range
        "1000-01-01T00:00:00Z",        // before it
        "2026-11-22T10:00:00\nZ",
    };
    for (const char* text : bad) {
        INFO(text);
        CHECK(test::error_kind([&] { (void)parse_rfc3339(text); }) == ErrorKind::invalid_input);
    }
}

TEST_CASE("ISO 8601 UTC formatting has milliseconds and Z", "[time]") {
    CHECK(format_iso8601_utc(TimePoint{}) == "1970-01-01T00:00:00.000Z");
    CHECK(format_iso8601_utc(TimePoint(milliseconds(482196050520))) == "1985-04-12T23:20:50.520Z");
    CHECK(format_iso8601_utc(TimePoint(nanoseconds(1'999'999))) == "1970-01-01T00:00:00.001Z");
    CHECK(format_iso8601_utc(TimePoint(nanoseconds(-1))) == "1969-12-31T23:59:59.999Z");
    CHECK(format_iso8601_utc(parse_rfc3339("2026-11-22T11:00:00+01:00")) == "2026-11-22T10:00:00.000Z");
}

TEST_CASE("formatting and parsing agree with JavaScript's Date", "[time]") {
    // 40 random instants across the clock's range, each formatted by us and by
    // Date.toISOString(), and written with a random offset and fraction for
    // both parsers. Date keeps milliseconds, so fractions have at most 3 digits.
    test::Random rnd(20261122);
    constexpr std::int64_t kSpanMs = 9'000'000'000'000;  // about ±285 years around 1970
    std::vector<std::int64_t> instants;
    std::vector<std::string> texts;
    for (int i = 0; i < 40; ++i) {
        const auto ms = static_cast<std::int64_t>(rnd.below(2 * kSpanMs)) - kSpanMs;
        instants.push_back(ms);
        const int offset = static_cast<int>(rnd.below(24 * 60)) * (rnd.below(2) ? 1 : -1);
        const auto local = milliseconds(ms) + std::chrono::minutes(offset);
        std::string text = format_iso8601_utc(TimePoint(local));
        text.pop_back();  // the "Z": replaced by the offset below
        text.resize(text.size() - rnd.below(4));  // drop 0-2 fraction digits, or the whole fraction with its dot
        if (text.back() == '.') text.pop_back();
        text += fmt::format("{}{:02}:{:02}", offset < 0 ? '-' : '+', std::abs(offset) / 60, std::abs(offset) % 60);
        texts.push_back(text);
    }
    const nlohmann::json request{{"format", instants}, {"parse", texts}};
    const auto r = os::run_command({"node", test::source_path("tests/support/js/iso_dates.mjs")}, request.dump());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto answer = nlohmann::json::parse(r.out);
    for (std::size_t i = 0; i < instants.size(); ++i) {
        INFO(instants[i] << " " << texts[i]);
        CHECK(format_iso8601_utc(TimePoint(milliseconds(instants[i]))) == answer["formatted"][i].get<std::string>());
        REQUIRE(answer["parsed"][i].is_number());
        CHECK(std::chrono::floor<milliseconds>(parse_rfc3339(texts[i])).time_since_epoch().count() ==
              answer["parsed"][i].get<std::int64_t>());
    }
}
