#pragma once
// Standard Webhooks v1 signing (standardwebhooks.com): a receiver checks with
// any of the specification's libraries that a delivery came from us, unaltered
// and recently, by three headers over exactly the bytes sent.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/eth/bytes.hpp"

namespace abci::webhooks {

/// A new signing secret: "whsec_" + base64 of 32 random bytes.
[[nodiscard]] std::string new_secret();

/// The HMAC key a secret stands for (its base64 part decoded).
/// Error(invalid_input) unless it is "whsec_" + strict base64 of 1 or more bytes.
[[nodiscard]] eth::Bytes secret_key(std::string_view secret);

/// One signature entry: "v1," + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")).
[[nodiscard]] std::string sign(std::string_view secret, std::string_view id, std::int64_t timestamp,
                               std::string_view body);

/// The three headers of one delivery attempt.
struct SignedHeaders {
    std::string id;         // webhook-id: the same on every retry of one event
    std::string timestamp;  // webhook-timestamp: unix seconds of this attempt
    std::string signature;  // webhook-signature: one v1 entry per live secret, space separated
};

/// The headers for `body` sent now as event `id`, signed with every secret in
/// `secrets` (two while a rotated-out secret is still live, newest first).
/// Error(internal) when `secrets` is empty.
[[nodiscard]] SignedHeaders sign_delivery(const std::vector<std::string>& secrets, std::string_view id,
                                          std::int64_t timestamp, std::string_view body);

}  // namespace abci::webhooks
