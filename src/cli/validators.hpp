#pragma once
// Checks of option values that refuse in plain words ("--amount must be a
// whole number of at least 1, not '0'") instead of CLI11's own messages
// ("Value 0 not in range 0.000000 to 1797693134862315708…"). Each refusal is
// a CLI::ParseError, so main reports it as any other usage error.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace CLI {
class Option;
}

namespace abci::cli {

/// Lets `option` take only a whole number from `min` to `max` (decimal digits, nothing else).
CLI::Option* whole_number(CLI::Option* option, std::uint64_t min,
                          std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

/// Lets `option` take only a number above zero (a decimal fraction allowed).
CLI::Option* positive_number(CLI::Option* option);

/// Lets `option` take only one of `choices` (exactly as written); a near miss
/// gets "did you mean". The choices are what completions and the man page offer.
CLI::Option* one_of(CLI::Option* option, std::vector<std::string> choices);

/// Lets `option` take only a PostgreSQL URL without a password
/// (service::postgresql_url_objection); the refusal never quotes the value.
/// `password_file` names where a password goes instead ("--database-password-file").
CLI::Option* postgresql_url(CLI::Option* option, const std::string& password_file);

/// Lets `option` take only an EVM address, by the server's rule
/// (service::parse_address_field), refused under the option's name: the
/// API's field name (userAddress) means nothing on the command line. A
/// `recipient` of a mint may not be the zero address either (parse_recipient_field).
CLI::Option* evm_address(CLI::Option* option, bool recipient = false);

/// "a, b or c".
[[nodiscard]] std::string or_list(const std::vector<std::string>& words);

}  // namespace abci::cli
