// OpenID Connect (core/auth/oidc): the provider's discovery document, its
// JWKS and an ID token, all of which the provider (or whoever answers in its
// place) controls. The input is "discovery\0jwks\0token". A token with a
// newline is "header\npayload", two JSON texts that the target signs (ES256)
// with the key whose JWK the seeds' JWKS carry, so that the claim checks
// behind the signature are reached. Bad documents are unavailable, bad tokens
// unauthenticated; nothing touches the network.
// fuzz-max-len: 8192

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <string>

#include "core/auth/oidc.hpp"
#include "core/crypto/encoding.hpp"
#include "fuzz.hpp"

using namespace abci;

namespace {

// A P-256 key made for this target; its public JWK ("kid": "fuzz-es256") is
// x = xN3stA_7c3SFM1ANiuRS9OLLQ13J8msa4Ugeo2sOv2E, y = GXVmj2-4IK9EsnFxfBFPmULCGpNx0a4yABNNIs7sDj0.
constexpr const char* kSigningKey = R"(-----BEGIN EC PRIVATE KEY-----
MHcCAQEEICYj71yP3qHFroCqbdF7MnGYdWODWYgSJlMw2CULq7oIoAoGCCqGSM49
AwEHoUQDQgAExN3stA/7c3SFM1ANiuRS9OLLQ13J8msa4Ugeo2sOv2EZdWaPb7gg
r0SycXF8EU+ZQsIak3HRrjIAE00izuwOPQ==
-----END EC PRIVATE KEY-----
)";

EVP_PKEY* signing_key() {
    static EVP_PKEY* const key = [] {
        BIO* bio = BIO_new_mem_buf(kSigningKey, -1);
        EVP_PKEY* k = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
        BIO_free(bio);
        return k;
    }();
    fuzz::require(key != nullptr, "the signing key loads");
    return key;
}

// A compact JWS of `header` and `payload` (JSON texts), signed ES256 (r‖s).
std::string sign(std::string_view header, std::string_view payload) {
    const auto input = crypto::base64url_encode(eth::as_bytes(header)) + "." +
                       crypto::base64url_encode(eth::as_bytes(payload));
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    unsigned char der[80];
    std::size_t der_size = sizeof der;
    fuzz::require(EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, signing_key()) == 1 &&
                      EVP_DigestSign(ctx.get(), der, &der_size, reinterpret_cast<const unsigned char*>(input.data()),
                                     input.size()) == 1,
                  "ES256 signing works");
    const unsigned char* p = der;
    std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der_size)),
                                                             ECDSA_SIG_free);
    eth::Bytes rs(64);
    BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), rs.data(), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), rs.data() + 32, 32);
    return input + "." + crypto::base64url_encode(rs);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::text(data, size);
    const auto end1 = input.find('\0');
    const auto end2 = end1 == std::string_view::npos ? end1 : input.find('\0', end1 + 1);
    if (end2 == std::string_view::npos) return 0;
    const auto discovery = input.substr(0, end1);
    const auto jwks = input.substr(end1 + 1, end2 - end1 - 1);
    const auto token = input.substr(end2 + 1);

    auth::OidcProviderSettings settings;
    settings.issuer = "https://idp.example.org";
    settings.client_id = "abci-client";
    settings.redirect_uri = "https://abci.example.org/api/auth/idp-callback";
    auth::OidcClient client(settings);
    // Either document refused: the client would fetch it, so the token is not tried.
    if (!fuzz::accepts({ErrorKind::unavailable}, [&] { client.use_discovery(discovery); }) ||
        !fuzz::accepts({ErrorKind::unavailable}, [&] { client.use_jwks(jwks); }))
        return 0;

    const auto newline = token.find('\n');
    const auto id_token = newline == std::string_view::npos
                              ? std::string(token)
                              : sign(token.substr(0, newline), token.substr(newline + 1));
    auth::IdTokenClaims claims;
    if (fuzz::accepts({ErrorKind::unauthenticated},
                      [&] { claims = client.verify_id_token(id_token, std::string("fuzz-nonce")); }))
        fuzz::require(claims.issuer == settings.issuer && !claims.subject.empty(), "an accepted token has our issuer and a subject");
    return 0;
}
