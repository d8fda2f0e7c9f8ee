#include "core/auth/password.hpp"

#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <array>
#include <charconv>
#include <memory>
#include <optional>
#include <semaphore>

#include <fmt/format.h>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/eth/wipe.hpp"

namespace abci::auth {
namespace {

constexpr std::size_t kSaltLen = 16;
constexpr std::size_t kKeyLen = 32;
constexpr std::string_view kPrefix = "$scrypt$";
constexpr int kMaxLog2N = 20;
constexpr std::uint64_t kMaxRTimesP = 64;
constexpr std::uint64_t kMaxMemory = std::uint64_t{256} << 20;

using DerivedKey = std::array<std::uint8_t, kKeyLen>;

std::counting_semaphore<kMaxConcurrentDerivations> derivation_slots(kMaxConcurrentDerivations);

class DerivationSlot {
public:
    DerivationSlot() { derivation_slots.acquire(); }
    ~DerivationSlot() { derivation_slots.release(); }
    DerivationSlot(const DerivationSlot&) = delete;
    DerivationSlot& operator=(const DerivationSlot&) = delete;
};

// 128·r·N bytes of scrypt's V array: what a derivation costs in memory.
std::uint64_t memory_of(const ScryptParams& params) {
    return std::uint64_t{128} * static_cast<std::uint64_t>(params.r) << params.log2_n;
}

bool within_bounds(const ScryptParams& params) {
    if (params.log2_n < 1 || params.log2_n > kMaxLog2N || params.r < 1 || params.p < 1) return false;
    if (static_cast<std::uint64_t>(params.r) * static_cast<std::uint64_t>(params.p) > kMaxRTimesP) return false;
    // OpenSSL enforces RFC 7914's N < 2^(16·r); only r = 1 can reach it here.
    return params.log2_n < 16 * params.r && memory_of(params) <= kMaxMemory;
}

void require_bounds(const ScryptParams& params) {
    if (!within_bounds(params))
        throw Error(ErrorKind::invalid_input,
                    fmt::format("scrypt parameters ln={},r={},p={} are outside the accepted bounds", params.log2_n,
                                params.r, params.p));
}

std::string format_params(const ScryptParams& params) {
    return fmt::format("ln={},r={},p={}", params.log2_n, params.r, params.p);
}

// Consumes "<name><decimal>" from the front of `text`.
bool read_param(std::string_view& text, std::string_view name, int& value) {
    if (!text.starts_with(name)) return false;
    text.remove_prefix(name.size());
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{}) return false;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    return true;
}

struct Encoded {
    ScryptParams params;
    eth::Bytes salt;
    eth::Bytes hash;
};

std::optional<ScryptParams> parse_params(std::string_view field) {
    ScryptParams params;
    std::string_view rest = field;
    if (!read_param(rest, "ln=", params.log2_n) || !read_param(rest, ",r=", params.r) ||
        !read_param(rest, ",p=", params.p) || !rest.empty())
        return std::nullopt;
    // Only the form we write (no leading zeros or signs), so one hash has one spelling.
    if (format_params(params) != field || !within_bounds(params)) return std::nullopt;
    return params;
}

std::optional<Encoded> parse(std::string_view encoded) {
    if (!encoded.starts_with(kPrefix)) return std::nullopt;
    std::string_view rest = encoded.substr(kPrefix.size());
    const std::size_t first = rest.find('$');
    const std::size_t second = first == std::string_view::npos ? first : rest.find('$', first + 1);
    if (second == std::string_view::npos) return std::nullopt;
    const auto params = parse_params(rest.substr(0, first));
    if (!params) return std::nullopt;
    Encoded out{*params, {}, {}};
    try {
        out.salt = crypto::base64_decode(rest.substr(first + 1, second - first - 1));
        out.hash = crypto::base64_decode(rest.substr(second + 1));  // a further '$' is a bad character
    } catch (const Error&) {
        return std::nullopt;
    }
    if (out.salt.size() != kSaltLen || out.hash.size() != kKeyLen) return std::nullopt;
    return out;
}

// Salt for the derivation that stands in for a verification against no account.
constexpr std::array<std::uint8_t, kSaltLen> kDummySalt{'a', 'b', 'c', 'i', 'c', 't', 'l', '-',
                                                        'n', 'o', '-', 'u', 's', 'e', 'r', '!'};

}  // namespace

namespace detail {

void scrypt(std::string_view password, eth::ByteView salt, const ScryptParams& params, std::span<std::uint8_t> out) {
    if (params.log2_n < 1 || params.log2_n > 62 || params.r < 1 || params.p < 1)
        throw Error(ErrorKind::internal, "scrypt parameters out of range");
    std::uint64_t n = std::uint64_t{1} << params.log2_n;
    auto r = static_cast<std::uint32_t>(params.r);
    auto p = static_cast<std::uint32_t>(params.p);
    // OpenSSL needs room for B (128·r·p) and V plus scratch (128·r·(N+2));
    // its default cap of 32 MiB is below OWASP's minimum cost.
    std::uint64_t maxmem = 0;
    if (__builtin_mul_overflow(std::uint64_t{128} * r, n + 2 + p, &maxmem))
        throw Error(ErrorKind::internal, "scrypt parameters out of range");

    const std::unique_ptr<EVP_KDF, decltype(&EVP_KDF_free)> kdf(EVP_KDF_fetch(nullptr, "SCRYPT", nullptr),
                                                                &EVP_KDF_free);
    if (!kdf) throw Error(ErrorKind::internal, "OpenSSL has no scrypt");
    const std::unique_ptr<EVP_KDF_CTX, decltype(&EVP_KDF_CTX_free)> ctx(EVP_KDF_CTX_new(kdf.get()),
                                                                        &EVP_KDF_CTX_free);
    if (!ctx) throw Error(ErrorKind::internal, "OpenSSL cannot create a scrypt context");

    // OpenSSL copies both into the context (and clears its copies when freed);
    // empty inputs still need a valid pointer.
    static char empty = 0;
    char* password_ptr = password.empty() ? &empty : const_cast<char*>(password.data());
    auto* salt_ptr = salt.empty() ? &empty : reinterpret_cast<char*>(const_cast<std::uint8_t*>(salt.data()));
    const std::array<OSSL_PARAM, 7> settings{
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, password_ptr, password.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt_ptr, salt.size()),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &p),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem),
        OSSL_PARAM_construct_end(),
    };
    const DerivationSlot slot;
    if (EVP_KDF_derive(ctx.get(), out.data(), out.size(), settings.data()) != 1)
        throw Error(ErrorKind::internal, "scrypt derivation failed");
}

}  // namespace detail

std::string hash_password(std::string_view password, const ScryptParams& params) {
    require_bounds(params);
    const eth::Bytes salt = crypto::random_bytes(kSaltLen);
    DerivedKey key{};
    const eth::WipeOnExit wipe(key);
    detail::scrypt(password, salt, params, key);
    return fmt::format("{}{}${}${}", kPrefix, format_params(params), crypto::base64_encode(salt),
                       crypto::base64_encode(key));
}

bool verify_password(std::string_view password, std::string_view encoded) {
    const auto parsed = parse(encoded);
    if (!parsed) return false;
    DerivedKey key{};
    const eth::WipeOnExit wipe(key);
    detail::scrypt(password, parsed->salt, parsed->params, key);
    return crypto::constant_time_equal(key, parsed->hash);
}

void spend_password_verification_time(std::string_view password, const ScryptParams& params) {
    require_bounds(params);
    DerivedKey key{};
    const eth::WipeOnExit wipe(key);
    detail::scrypt(password, kDummySalt, params, key);
}

}  // namespace abci::auth
