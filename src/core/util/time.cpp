#include "core/util/time.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/error.hpp"

namespace abci::util {

namespace {

using Clock = std::chrono::system_clock;

// A cursor over the text that reads the fixed-width pieces of the grammar and
// throws, naming the piece, when one is missing.
class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}

    [[nodiscard]] int digits(std::size_t count, const char* what) {
        int value = 0;
        for (std::size_t i = 0; i < count; ++i) {
            if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') fail(fmt::format("expected {}", what));
            value = value * 10 + (text_[pos_++] - '0');
        }
        return value;
    }

    void expect(char c) {
        if (!accept(c)) fail(fmt::format("expected '{}'", c));
    }

    // Consumes `c` (or its upper-case twin when `upper` is given) if it is next.
    [[nodiscard]] bool accept(char c, char upper = '\0') {
        if (pos_ < text_.size() && (text_[pos_] == c || (upper != '\0' && text_[pos_] == upper))) {
            ++pos_;
            return true;
        }
        return false;
    }

    [[nodiscard]] bool next_is_digit() const { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; }
    [[nodiscard]] bool at_end() const { return pos_ == text_.size(); }

    [[noreturn]] void fail(const std::string& reason) const {
        throw Error(ErrorKind::invalid_input, "invalid RFC 3339 date-time: " + reason,
                    {fmt::format("at offset {} of '{}'", pos_, text_.substr(0, 64))});
    }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

}  // namespace

Clock::time_point parse_rfc3339(std::string_view text) {
    using namespace std::chrono;
    Reader in(text);

    const int y = in.digits(4, "a 4-digit year");
    in.expect('-');
    const int mo = in.digits(2, "a 2-digit month");
    in.expect('-');
    const int d = in.digits(2, "a 2-digit day");
    if (!in.accept('T', 't')) in.fail("expected 'T' between date and time");
    const int h = in.digits(2, "a 2-digit hour");
    in.expect(':');
    const int mi = in.digits(2, "2-digit minutes");
    in.expect(':');
    const int s = in.digits(2, "2-digit seconds");

    nanoseconds fraction{0};
    if (in.accept('.')) {
        if (!in.next_is_digit()) in.fail("expected digits after '.'");
        std::int64_t scale = 100'000'000;
        while (in.next_is_digit()) {
            fraction += nanoseconds(in.digits(1, "a digit") * scale);
            scale /= 10;
        }
    }

    int offset_minutes = 0;
    if (!in.accept('Z', 'z')) {
        int sign = 0;
        if (in.accept('+')) sign = 1;
        else if (in.accept('-')) sign = -1;
        else in.fail("expected 'Z' or a '+hh:mm' / '-hh:mm' offset");
        const int oh = in.digits(2, "a 2-digit offset hour");
        in.expect(':');
        const int om = in.digits(2, "2-digit offset minutes");
        if (oh > 23 || om > 59) in.fail("offset out of range");
        offset_minutes = sign * (oh * 60 + om);
    }
    if (!in.at_end()) in.fail("unexpected text after the time offset");

    const year_month_day date{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
    if (!date.ok()) in.fail("no such calendar date");
    if (h > 23 || mi > 59) in.fail("hour or minute out of range");
    if (s == 60) in.fail("leap seconds are not supported");
    if (s > 59) in.fail("second out of range");

    // Whole seconds in 64 bits first: a 4-digit year can lie outside what the
    // clock's nanosecond count holds, and converting it would overflow.
    const seconds whole = sys_days(date).time_since_epoch() + hours(h) + minutes(mi) + seconds(s) -
                          minutes(offset_minutes);
    constexpr auto lowest = ceil<seconds>(Clock::time_point::min().time_since_epoch()) + seconds(1);
    constexpr auto highest = floor<seconds>(Clock::time_point::max().time_since_epoch()) - seconds(1);
    if (whole < lowest || whole > highest) in.fail("outside the representable range of instants");
    return Clock::time_point(duration_cast<Clock::duration>(whole) + duration_cast<Clock::duration>(fraction));
}

std::string format_iso8601_utc(Clock::time_point t) {
    using namespace std::chrono;
    const auto ms = floor<milliseconds>(t);
    const auto day_start = floor<days>(ms);
    const year_month_day date{day_start};
    const hh_mm_ss time{ms - day_start};
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", static_cast<int>(date.year()),
                       static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), time.hours().count(),
                       time.minutes().count(), time.seconds().count(), time.subseconds().count());
}

}  // namespace abci::util
