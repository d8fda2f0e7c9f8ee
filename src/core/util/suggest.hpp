#pragma once
// "Did you mean …?": the likely intended word among known ones, for a
// misspelt config key, command or flag.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abci::util {

// The candidate nearest to `word` (edit distance, a transposition counts one), if near enough to be a likely typo.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace abci::util
