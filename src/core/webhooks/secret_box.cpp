#include "core/webhooks/secret_box.hpp"

#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <memory>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"

namespace abci::webhooks {
namespace {

constexpr std::string_view kVersion = "v1.";
constexpr std::size_t kNonceBytes = 12;
constexpr std::size_t kTagBytes = 16;
// The derivation's purpose: the same server secret signs tokens under another.
constexpr std::string_view kInfo = "abcictl webhook signing secrets v1";

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

[[noreturn]] void broken(const char* what) { throw Error(ErrorKind::internal, what); }

CipherContext new_context() {
    CipherContext ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
    if (!ctx) broken("AES-256-GCM: no cipher context");
    return ctx;
}

int length(std::size_t n) { return static_cast<int>(n); }

}  // namespace

SecretBox::SecretBox(eth::ByteView server_secret, KeyPlace place) : place_(place) {
    std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr),
                                                                     &EVP_PKEY_CTX_free);
    std::size_t out = key_.size();
    if (!ctx || EVP_PKEY_derive_init(ctx.get()) <= 0 || EVP_PKEY_CTX_set_hkdf_md(ctx.get(), EVP_sha256()) <= 0 ||
        EVP_PKEY_CTX_set1_hkdf_key(ctx.get(), server_secret.data(), length(server_secret.size())) <= 0 ||
        EVP_PKEY_CTX_add1_hkdf_info(ctx.get(), reinterpret_cast<const unsigned char*>(kInfo.data()),
                                    length(kInfo.size())) <= 0 ||
        EVP_PKEY_derive(ctx.get(), key_.data(), &out) <= 0 || out != key_.size())
        broken("HKDF-SHA256 failed to derive the webhook secrets' key");
}

SecretBox::~SecretBox() { eth::secure_wipe(key_.data(), key_.size()); }

std::optional<std::string> SecretBox::why_not_sealing() const {
    if (place_ == KeyPlace::apart_from_database) return std::nullopt;
    return "webhook subscriptions cannot be created or their secrets rotated on this server: without "
           "auth.jwtSecretFile the key that seals their secrets is kept in the database, so a dump of it alone "
           "could sign deliveries. Set auth.jwtSecretFile (ABCI_JWT_SECRET_FILE) to a file only the server can "
           "read, the same on every replica, and restart the server";
}

std::string SecretBox::seal(std::string_view secret, std::string_view owner) const {
    if (auto why = why_not_sealing()) throw Error(ErrorKind::unprocessable, std::move(*why));
    eth::Bytes out = crypto::random_bytes(kNonceBytes);
    out.resize(kNonceBytes + secret.size() + kTagBytes);
    auto ctx = new_context();
    int n = 0;
    if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), out.data()) != 1 ||
        EVP_EncryptUpdate(ctx.get(), nullptr, &n, reinterpret_cast<const unsigned char*>(owner.data()),
                          length(owner.size())) != 1 ||
        EVP_EncryptUpdate(ctx.get(), out.data() + kNonceBytes, &n,
                          reinterpret_cast<const unsigned char*>(secret.data()), length(secret.size())) != 1)
        broken("AES-256-GCM failed to seal a webhook secret");
    // GCM is a stream mode: the update wrote all of it, and the final step writes nothing.
    if (EVP_EncryptFinal_ex(ctx.get(), out.data() + kNonceBytes + n, &n) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, length(kTagBytes),
                            out.data() + kNonceBytes + secret.size()) != 1)
        broken("AES-256-GCM failed to seal a webhook secret");
    return std::string(kVersion) + crypto::base64_encode(out);
}

std::string SecretBox::open(std::string_view sealed, std::string_view owner) const {
    const auto refused = [] {
        return Error(ErrorKind::internal,
                     "a stored webhook secret does not open with this server's secret (auth.jwtSecretFile changed, "
                     "or the row was altered): rotate the subscription's secret");
    };
    if (!sealed.starts_with(kVersion)) throw refused();
    eth::Bytes in;
    try {
        in = crypto::base64_decode(sealed.substr(kVersion.size()));
    } catch (const Error&) {
        throw refused();
    }
    if (in.size() < kNonceBytes + kTagBytes) throw refused();
    const std::size_t text_size = in.size() - kNonceBytes - kTagBytes;
    std::string secret(text_size, '\0');
    auto ctx = new_context();
    int n = 0;
    if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), in.data()) != 1 ||
        EVP_DecryptUpdate(ctx.get(), nullptr, &n, reinterpret_cast<const unsigned char*>(owner.data()),
                          length(owner.size())) != 1 ||
        EVP_DecryptUpdate(ctx.get(), reinterpret_cast<unsigned char*>(secret.data()), &n, in.data() + kNonceBytes,
                          length(text_size)) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, length(kTagBytes), in.data() + kNonceBytes + text_size) !=
            1 ||
        EVP_DecryptFinal_ex(ctx.get(), reinterpret_cast<unsigned char*>(secret.data()) + n, &n) != 1)
        throw refused();
    return secret;
}

}  // namespace abci::webhooks
