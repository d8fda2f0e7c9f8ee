#include "core/auth/jose.hpp"

#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include "core/crypto/encoding.hpp"
#include "core/util/strict_json.hpp"

namespace abci::auth::jose {
namespace {

using nlohmann::json;

constexpr int kMinRsaBits = 2048;

template <auto Free>
struct Deleter {
    template <class T>
    void operator()(T* p) const noexcept {
        Free(p);
    }
};
using Pkey = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX_free>>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX_free>>;
using Bignum = std::unique_ptr<BIGNUM, Deleter<BN_free>>;
using ParamBuilder = std::unique_ptr<OSSL_PARAM_BLD, Deleter<OSSL_PARAM_BLD_free>>;
using Params = std::unique_ptr<OSSL_PARAM, Deleter<OSSL_PARAM_free>>;
using EcdsaSig = std::unique_ptr<ECDSA_SIG, Deleter<ECDSA_SIG_free>>;

[[noreturn]] void refuse(const std::string& why) {
    ERR_clear_error();  // leave no OpenSSL errors behind for unrelated code to trip over
    throw Error(ErrorKind::unauthenticated, why);
}

// A JWK that cannot be a key; caught in parse_jwk.
struct UnusableKey : Error {
    explicit UnusableKey(const std::string& why) : Error(ErrorKind::unavailable, why) {}
};

Bignum bignum(eth::ByteView bytes) {
    Bignum bn(BN_bin2bn(bytes.data(), static_cast<int>(bytes.size()), nullptr));
    if (!bn) throw Error(ErrorKind::internal, "BN_bin2bn failed");
    return bn;
}

// A public key from OSSL parameters; nullptr when OpenSSL refuses them.
Pkey public_key_from(const char* type, const OSSL_PARAM* params) {
    PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
    EVP_PKEY* raw = nullptr;
    if (!ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
        EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, const_cast<OSSL_PARAM*>(params)) != 1)
        return nullptr;
    Pkey key(raw);
    // fromdata takes the numbers as given: make OpenSSL check the key itself
    // (for EC, that the point is on the curve).
    PkeyCtx check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
    if (!check || EVP_PKEY_public_check(check.get()) != 1) return nullptr;
    return key;
}

// The base64url member `field` of a JWK, decoded; UnusableKey when it is not one.
eth::Bytes jwk_bytes(const json& jwk, const char* field) {
    const auto it = jwk.find(field);
    if (it == jwk.end() || !it->is_string()) throw UnusableKey(std::string("no \"") + field + "\"");
    try {
        return crypto::base64url_decode(it->get_ref<const std::string&>());
    } catch (const Error&) {
        throw UnusableKey(std::string("\"") + field + "\" is not base64url");
    }
}

// The public key of a JWK of type RSA or EC P-256; UnusableKey saying why
// when it is not one.
Pkey jwk_public_key(const json& jwk, const std::string& kty, const std::string& crv) {
    ParamBuilder builder(OSSL_PARAM_BLD_new());
    if (!builder) throw Error(ErrorKind::internal, "OSSL_PARAM_BLD_new failed");
    // The builder keeps pointers to these until to_param: they must outlive it.
    Bignum n, e;
    eth::Bytes point;
    const char* type = nullptr;
    if (kty == "RSA") {
        n = bignum(jwk_bytes(jwk, "n"));
        e = bignum(jwk_bytes(jwk, "e"));
        if (BN_num_bits(n.get()) < kMinRsaBits) throw UnusableKey("RSA modulus shorter than 2048 bits");
        if (OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_N, n.get()) != 1 ||
            OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_E, e.get()) != 1)
            throw Error(ErrorKind::internal, "OSSL_PARAM_BLD_push_BN failed");
        type = "RSA";
    } else if (kty == "EC" && crv == "P-256") {
        const auto x = jwk_bytes(jwk, "x");
        const auto y = jwk_bytes(jwk, "y");
        if (x.size() != 32 || y.size() != 32) throw UnusableKey("P-256 coordinates are not 32 bytes");
        point = {0x04};  // SEC 1 uncompressed point
        point.insert(point.end(), x.begin(), x.end());
        point.insert(point.end(), y.begin(), y.end());
        if (OSSL_PARAM_BLD_push_utf8_string(builder.get(), OSSL_PKEY_PARAM_GROUP_NAME, SN_X9_62_prime256v1, 0) != 1 ||
            OSSL_PARAM_BLD_push_octet_string(builder.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) != 1)
            throw Error(ErrorKind::internal, "OSSL_PARAM_BLD push failed");
        type = "EC";
    } else {
        throw UnusableKey("unsupported key type");
    }
    Params params(OSSL_PARAM_BLD_to_param(builder.get()));
    if (!params) throw Error(ErrorKind::internal, "OSSL_PARAM_BLD_to_param failed");
    auto key = public_key_from(type, params.get());
    ERR_clear_error();
    if (!key) throw UnusableKey("OpenSSL rejects the key");
    return key;
}

// ES256 signatures are r‖s (32 bytes each, RFC 7518 §3.4); OpenSSL wants DER.
eth::Bytes ecdsa_der(eth::ByteView raw) {
    if (raw.size() != 64) refuse("an ES256 signature is 64 bytes, this one " + std::to_string(raw.size()));
    auto r = bignum(raw.first(32));
    auto s = bignum(raw.subspan(32));
    EcdsaSig sig(ECDSA_SIG_new());
    if (!sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1)
        throw Error(ErrorKind::internal, "ECDSA_SIG_set0 failed");
    (void)r.release();  // owned by sig now
    (void)s.release();
    const int len = i2d_ECDSA_SIG(sig.get(), nullptr);
    if (len <= 0) throw Error(ErrorKind::internal, "i2d_ECDSA_SIG failed");
    eth::Bytes der(static_cast<std::size_t>(len));
    auto* out = der.data();
    i2d_ECDSA_SIG(sig.get(), &out);
    return der;
}

}  // namespace

const char* name(Alg alg) noexcept {
    switch (alg) {
    case Alg::hs256:
        return "HS256";
    case Alg::rs256:
        return "RS256";
    case Alg::es256:
        return "ES256";
    }
    return "?";
}

std::optional<CompactJws> split(std::string_view token) noexcept {
    const auto dot1 = token.find('.');
    const auto dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
    if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) return std::nullopt;
    return CompactJws{token.substr(0, dot1), token.substr(dot1 + 1, dot2 - dot1 - 1), token.substr(dot2 + 1),
                      token.substr(0, dot2)};
}

json decode_object(std::string_view segment, std::string_view what, std::size_t max_depth) {
    eth::Bytes raw;
    try {
        raw = crypto::base64url_decode(segment);
    } catch (const Error&) {
        refuse("its " + std::string(what) + " is not base64url");
    }
    json doc;
    try {
        doc = util::parse_strict_json(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()),
                                      max_depth, "its " + std::string(what));
    } catch (const Error& e) {
        refuse(e.what());  // the strict reader's words: where the text stops being JSON, or the member named twice
    }
    if (!doc.is_object()) refuse("its " + std::string(what) + " is not a JSON object");
    return doc;
}

std::string hs256_signature(eth::ByteView secret, std::string_view signing_input) {
    return crypto::base64url_encode(crypto::hmac_sha256(secret, eth::as_bytes(signing_input)));
}

bool hs256_valid(eth::ByteView secret, std::string_view signing_input, std::string_view signature) {
    // Comparing the canonical base64url text is comparing the bytes: the
    // decoder accepts exactly one spelling of each signature.
    return crypto::constant_time_equal(eth::as_bytes(hs256_signature(secret, signing_input)),
                                       eth::as_bytes(signature));
}

std::optional<std::string> optional_string(const json& object, const char* key,
                                           const std::function<void(const std::string&)>& on_bad) {
    const auto it = object.find(key);
    if (it == object.end()) return std::nullopt;
    if (!it->is_string()) on_bad(std::string("\"") + key + "\" is not a string");
    return it->get<std::string>();
}

std::optional<std::string> Jwk::objection(Alg a) const {
    const bool fits = a == Alg::rs256 ? kty == "RSA" : a == Alg::es256 && kty == "EC" && crv == "P-256";
    if (use && *use != "sig") return "its \"use\" is \"" + *use + "\", not \"sig\"";
    if (!fits) return "its type (" + kty + (crv.empty() ? "" : " " + crv) + ") does not fit " + name(a);
    if (alg && *alg != name(a)) return "it is for " + *alg + ", not " + name(a);
    if (!key) return unusable;
    return std::nullopt;
}

Jwk parse_jwk(const json& entry) {
    Jwk jwk;
    try {
        const auto unusable = [](const std::string& why) { throw UnusableKey(why); };
        jwk.kid = optional_string(entry, "kid", unusable);
        jwk.kty = optional_string(entry, "kty", unusable).value_or("");
        jwk.crv = optional_string(entry, "crv", unusable).value_or("");
        jwk.use = optional_string(entry, "use", unusable);
        jwk.alg = optional_string(entry, "alg", unusable);
        jwk.key = jwk_public_key(entry, jwk.kty, jwk.crv);
    } catch (const UnusableKey& e) {
        jwk.unusable = std::string("the key is unusable: ") + e.what();
    }
    return jwk;
}

bool signature_valid(EVP_PKEY* key, Alg alg, std::string_view signing_input, std::string_view signature) {
    eth::Bytes raw;
    try {
        raw = crypto::base64url_decode(signature);
    } catch (const Error&) {
        refuse("its signature is not base64url");
    }
    const auto sig = alg == Alg::es256 ? ecdsa_der(raw) : std::move(raw);
    MdCtx ctx(EVP_MD_CTX_new());
    EVP_PKEY_CTX* pctx = nullptr;  // owned by ctx
    if (!ctx || EVP_DigestVerifyInit(ctx.get(), &pctx, EVP_sha256(), nullptr, key) != 1 ||
        (alg == Alg::rs256 && EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) != 1))
        throw Error(ErrorKind::internal, "EVP_DigestVerifyInit failed");
    const bool ok = EVP_DigestVerify(ctx.get(), sig.data(), sig.size(),
                                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                                     signing_input.size()) == 1;
    ERR_clear_error();
    return ok;
}

}  // namespace abci::auth::jose
