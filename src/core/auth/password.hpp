#pragma once
// Password hashing with scrypt (OpenSSL EVP_KDF) at or above OWASP's minimum
// (N = 2^17, r = 8, p = 1; 128 MiB and a few hundred milliseconds per hash).
// The encoded form is self-describing, so verification uses the parameters the
// hash was made with:  "$scrypt$ln=17,r=8,p=1$<salt b64>$<hash b64>", where
// b64 is standard padded base64 of a 16-byte salt and a 32-byte hash.
//
// Each derivation holds 128·r·N bytes (128 MiB at the default cost), so at
// most kMaxConcurrentDerivations of them run at once in the process; further
// callers of hash, verify and spend wait for a slot. A burst of logins then
// costs bounded memory and queues instead of exhausting the machine.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/eth/bytes.hpp"

namespace abci::auth {

struct ScryptParams {
    int log2_n = 17;
    int r = 8;
    int p = 1;
};

inline constexpr int kMaxConcurrentDerivations = 4;

/// Hashes `password` with a fresh 16-byte salt. Error(invalid_input) for
/// parameters outside the bounds verify_password accepts; Error(internal) if OpenSSL fails.
[[nodiscard]] std::string hash_password(std::string_view password, const ScryptParams& params = {});

/// True when `password` matches `encoded`; compares in constant time. A
/// malformed `encoded` is a mismatch (false), never an exception; parameters
/// outside sane bounds (log2_n > 20, r*p > 64, or more than 256 MiB of
/// memory) are a mismatch too, so a tampered row cannot make a login cost
/// minutes or gigabytes.
[[nodiscard]] bool verify_password(std::string_view password, std::string_view encoded);

/// Spends the time of one verify_password against a hash made with `params`,
/// for logins naming an unknown account, so they cost what a wrong password
/// costs (the account's existence does not leak through timing).
/// Error(invalid_input) for parameters hash_password would refuse.
void spend_password_verification_time(std::string_view password, const ScryptParams& params = {});

namespace detail {
/// Raw scrypt (RFC 7914) of `password` and `salt` into `out`, with only
/// OpenSSL's own limits on the parameters (so published vectors can be
/// checked); counts against kMaxConcurrentDerivations. Error(internal) if
/// OpenSSL fails or refuses the parameters.
void scrypt(std::string_view password, eth::ByteView salt, const ScryptParams& params, std::span<std::uint8_t> out);
}  // namespace detail

}  // namespace abci::auth
