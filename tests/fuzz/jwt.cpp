// Access tokens (core/auth/jwt) as a request's Authorization header carries
// them. The input is a token as is, or "header\npayload": two JSON texts
// that the target signs with the codec's own secret, so that the claim checks
// behind the signature are reached as well (a holder of the secret, or a
// buggy issuer, could send them). Refusal is always unauthenticated.
// fuzz-max-len: 4096

#include <chrono>
#include <string>

#include "core/auth/jwt.hpp"
#include "core/crypto/encoding.hpp"
#include "fuzz.hpp"

using namespace abci;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string secret = "an HS256 test secret of 32 bytes";
    static const auth::JwtCodec codec(eth::as_bytes(secret), auth::JwtSettings{});
    // The unit tests' time: their tokens are valid then.
    const auth::TimePoint now{std::chrono::seconds(1'760'000'000)};

    const auto input = fuzz::text(data, size);
    std::string token(input);
    if (const auto newline = input.find('\n'); newline != std::string_view::npos) {
        const auto signing_input = crypto::base64url_encode(eth::as_bytes(input.substr(0, newline))) + "." +
                                   crypto::base64url_encode(eth::as_bytes(input.substr(newline + 1)));
        const auto mac = crypto::hmac_sha256(eth::as_bytes(secret), eth::as_bytes(signing_input));
        token = signing_input + "." + crypto::base64url_encode(mac);
    }
    (void)fuzz::accepts({ErrorKind::unauthenticated}, [&] { (void)codec.verify(token, now); });
    return 0;
}
