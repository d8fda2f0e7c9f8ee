#include "core/util/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace abci::util {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Optimal string alignment distance, case-insensitive: insertions, deletions,
// substitutions and swaps of neighbours each cost one ("adress", "sevrer").
std::size_t distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
    // One slip in a word of up to seven letters, two in a longer one, three
    // from twelve letters (a plural of a long config key: trustedProxy):
    // further than that a suggestion is more often noise than help (cobra,
    // which gh and kubectl use, stops at two for its short command names).
    const std::size_t allowed = word.size() < 8 ? 1 : word.size() < 12 ? 2 : 3;
    std::optional<std::string> best;
    std::size_t best_distance = allowed + 1;
    for (const auto& candidate : candidates) {
        if (candidate == word) continue;  // not a typo of itself
        const std::size_t d = distance(word, candidate);
        if (d < best_distance) {
            best = candidate;
            best_distance = d;
        }
    }
    return best;
}

}  // namespace abci::util
