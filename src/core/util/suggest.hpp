#pragma once
// "Did you mean …?": the nearest known word to one that is not known (a
// command, a flag, a config key), as git, gh and kubectl offer.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abci::util {

// The candidate nearest to `word` (edit distance, a transposition counts one), if near enough to be a likely typo.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace abci::util
