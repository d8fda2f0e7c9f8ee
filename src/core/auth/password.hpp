#pragma once
// Password hashing with scrypt (OpenSSL EVP_KDF) at or above OWASP's minimum
// (N = 2^17, r = 8, p = 1; 128 MiB and a few hundred milliseconds per hash).
// The encoded form is self-describing, so verification uses the parameters the
// hash was made with:  "$scrypt$ln=17,r=8,p=1$<salt b64>$<hash b64>".

#include <string>
#include <string_view>

namespace abci::auth {

struct ScryptParams {
    int log2_n = 17;
    int r = 8;
    int p = 1;
};

/// Hashes `password` with a fresh 16-byte salt. Error(internal) if OpenSSL fails.
[[nodiscard]] std::string hash_password(std::string_view password, const ScryptParams& params = {});

/// True when `password` matches `encoded`; compares in constant time. A
/// malformed `encoded` is a mismatch (false), never an exception; parameters
/// outside sane bounds (log2_n > 20, r*p > 64) are a mismatch too, so a
/// tampered row cannot make a login cost minutes.
[[nodiscard]] bool verify_password(std::string_view password, std::string_view encoded);

/// Spends the time of one verify_password against a hash made with `params`,
/// for logins naming an unknown account, so they cost what a wrong password
/// costs (the account's existence does not leak through timing).
void spend_password_verification_time(std::string_view password, const ScryptParams& params = {});

}  // namespace abci::auth
