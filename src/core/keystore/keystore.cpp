#include "core/keystore/keystore.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <chrono>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/wipe.hpp"
#include "core/os/private_file.hpp"
#include "core/util/json_members.hpp"

namespace abci::keystore {

namespace {

using json = nlohmann::json;
using DerivedKey = std::array<std::uint8_t, 32>;

constexpr std::size_t kDkLen = 32;
constexpr std::size_t kIvLen = 16;
constexpr std::size_t kSaltLen = 32;
// Bounds that keep a hostile or corrupted file from exhausting memory or CPU:
// 1 GiB of scrypt memory (geth's standard needs 256 MiB), and 16 times geth's
// standard work for scrypt or pbkdf2.
constexpr std::uint64_t kMaxScryptMemory = std::uint64_t{1} << 30;
constexpr std::uint64_t kMaxScryptWork = std::uint64_t{1} << 25;  // n * r * p
constexpr std::uint64_t kMaxPbkdf2Iterations = 16 * 262144;
constexpr std::size_t kMaxSaltLen = 1024;
constexpr std::uintmax_t kMaxFileSize = 64 * 1024;

[[noreturn]] void malformed(const std::string& what) {
    throw Error(ErrorKind::invalid_input, "keystore: " + what);
}

// The members of the key file's object at `path` ("" for the file's own, "crypto.kdfparams" …).
util::RequiredMembers members_of(const json& object, const std::string& path) {
    return util::RequiredMembers(object, ErrorKind::invalid_input, path.empty() ? "keystore" : "keystore: " + path);
}

util::RequiredMembers object_member(const util::RequiredMembers& parent, const char* key, const std::string& path) {
    return members_of(parent.any(key), path + key);
}

std::uint64_t positive_member(const util::RequiredMembers& object, const char* key) {
    const auto value = object.count(key);
    if (value == 0) throw object.refusal(key, "is not a positive integer");
    return value;
}

eth::Bytes hex_member(const util::RequiredMembers& object, const char* key, const std::string& path) {
    return eth::from_hex(object.text(key), "keystore: " + path + key);
}

void check_scrypt(const ScryptParams& p) {
    if (p.n < 2 || (p.n & (p.n - 1)) != 0) malformed("scrypt n must be a power of two greater than 1");
    if (p.r == 0 || p.p == 0) malformed("scrypt r and p must be positive");
    // scrypt holds n + p blocks of 128·r bytes. Compared by division so that
    // absurd values cannot overflow the checks.
    const std::uint64_t max_blocks = kMaxScryptMemory / 128 / p.r;
    if (p.n > max_blocks || p.p > max_blocks - p.n) malformed("scrypt n, r and p need more than 1 GiB of memory");
    if (p.n * p.r > kMaxScryptWork / p.p) malformed("scrypt n, r and p ask for too much work");
}

// Everything decrypt() needs, validated.
struct Parsed {
    bool scrypt = true;
    ScryptParams scrypt_params;
    std::uint64_t pbkdf2_iterations = 0;
    eth::Bytes salt;
    eth::Bytes iv;
    eth::Bytes ciphertext;
    eth::Hash32 mac{};
    std::optional<eth::Address> address;
};

bool is_uuid(std::string_view s) {
    if (s.size() != 36) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
    }
    return true;
}

Parsed parse(const json& json_doc) {
    const auto doc = members_of(json_doc, "");
    if (const auto& version = doc.any("version"); !version.is_number_integer() || version.get<std::int64_t>() != 3)
        malformed("version must be 3 (only Web3 Secret Storage v3 is supported)");
    if (doc.has("id") && !is_uuid(doc.text("id"))) malformed("id is not a UUID");

    Parsed out;
    if (doc.has("address")) out.address = eth::Address(eth::from_hex_fixed<20>(doc.text("address"), "keystore: address"));
    // geth wrote "Crypto" in old versions and still reads both spellings.
    const auto crypto = object_member(doc, doc.has("crypto") ? "crypto" : "Crypto", "");

    if (crypto.text("cipher") != "aes-128-ctr") malformed("crypto.cipher must be aes-128-ctr");
    out.iv = hex_member(object_member(crypto, "cipherparams", "crypto."), "iv", "crypto.cipherparams.");
    if (out.iv.size() != kIvLen) malformed("crypto.cipherparams.iv must be 16 bytes");
    out.ciphertext = hex_member(crypto, "ciphertext", "crypto.");
    // geth once stored keys without their leading zero bytes, so shorter ones are valid.
    if (out.ciphertext.empty() || out.ciphertext.size() > 32) malformed("crypto.ciphertext must be 1 to 32 bytes");
    out.mac = eth::from_hex_fixed<32>(crypto.text("mac"), "keystore: crypto.mac");

    const std::string kdf = crypto.text("kdf");
    const auto params = object_member(crypto, "kdfparams", "crypto.");
    if (positive_member(params, "dklen") != kDkLen) malformed("crypto.kdfparams.dklen must be 32");
    out.salt = hex_member(params, "salt", "crypto.kdfparams.");
    if (out.salt.empty() || out.salt.size() > kMaxSaltLen) malformed("crypto.kdfparams.salt has an unusable length");
    if (kdf == "scrypt") {
        const std::uint64_t r = positive_member(params, "r");
        const std::uint64_t p = positive_member(params, "p");
        if (r > UINT32_MAX || p > UINT32_MAX) malformed("scrypt r or p is too large");
        out.scrypt_params = {positive_member(params, "n"), static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(p)};
        check_scrypt(out.scrypt_params);
    } else if (kdf == "pbkdf2") {
        out.scrypt = false;
        if (params.text("prf") != "hmac-sha256") malformed("crypto.kdfparams.prf must be hmac-sha256");
        out.pbkdf2_iterations = positive_member(params, "c");
        if (out.pbkdf2_iterations > kMaxPbkdf2Iterations) malformed("pbkdf2 iteration count is too large");
    } else {
        malformed("crypto.kdf must be scrypt or pbkdf2");
    }
    return out;
}

void pbkdf2_sha256(std::string_view password, eth::ByteView salt, std::uint64_t iterations,
                   std::span<std::uint8_t> out) {
    if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), salt.data(),
                          static_cast<int>(salt.size()), static_cast<int>(iterations), EVP_sha256(),
                          static_cast<int>(out.size()), out.data()) != 1)
        throw Error(ErrorKind::internal, "pbkdf2 key derivation failed");
}

// scrypt's mixing function (RFC 7914 §3): the Salsa20/8 core applied to a 64-byte block in place.
void salsa20_8(std::uint32_t b[16]) noexcept {
    std::uint32_t x[16];
    std::copy(b, b + 16, x);
    auto quarter = [&x](int a, int bb, int c, int d) {
        x[bb] ^= std::rotl(x[a] + x[d], 7);
        x[c] ^= std::rotl(x[bb] + x[a], 9);
        x[d] ^= std::rotl(x[c] + x[bb], 13);
        x[a] ^= std::rotl(x[d] + x[c], 18);
    };
    for (int round = 0; round < 8; round += 2) {
        quarter(0, 4, 8, 12), quarter(5, 9, 13, 1), quarter(10, 14, 2, 6), quarter(15, 3, 7, 11);  // columns
        quarter(0, 1, 2, 3), quarter(5, 6, 7, 4), quarter(10, 11, 8, 9), quarter(15, 12, 13, 14);  // rows
    }
    for (int i = 0; i < 16; ++i) b[i] += x[i];
}

// scryptBlockMix (RFC 7914 §4) of the 2r 64-byte blocks in `in` into `out`.
void block_mix(const std::uint32_t* in, std::uint32_t* out, std::uint32_t r) noexcept {
    std::uint32_t x[16];
    std::copy(in + (2 * r - 1) * 16, in + 2 * r * 16, x);
    for (std::uint32_t i = 0; i < 2 * r; ++i) {
        for (int k = 0; k < 16; ++k) x[k] ^= in[i * 16 + k];
        salsa20_8(x);
        // Even blocks go to the first half of the output, odd ones to the second.
        std::copy(x, x + 16, out + ((i % 2) * r + i / 2) * 16);
    }
}

// scryptROMix (RFC 7914 §5) of one 128·r-byte block, as little-endian words, in place.
void ro_mix(std::uint32_t* block, const ScryptParams& p, std::vector<std::uint32_t>& v, std::vector<std::uint32_t>& y) {
    const std::size_t words = 32 * std::size_t{p.r};
    for (std::uint64_t i = 0; i < p.n; ++i) {
        std::copy(block, block + words, v.data() + i * words);
        block_mix(v.data() + i * words, block, p.r);
    }
    for (std::uint64_t i = 0; i < p.n; ++i) {
        const std::uint32_t* last = block + words - 16;  // Integerify: the last 64-byte block
        const std::uint64_t j = ((std::uint64_t{last[1]} << 32) | last[0]) & (p.n - 1);
        for (std::size_t k = 0; k < words; ++k) y[k] = block[k] ^ v[j * words + k];
        block_mix(y.data(), block, p.r);
    }
}

DerivedKey derive_pbkdf2(std::string_view password, eth::ByteView salt, std::uint64_t iterations) {
    DerivedKey dk{};
    pbkdf2_sha256(password, salt, iterations, dk);
    return dk;
}

DerivedKey derive_scrypt(std::string_view password, eth::ByteView salt, const ScryptParams& p) {
    DerivedKey dk{};
    scrypt(password, salt, p, dk);
    return dk;
}

// keccak256(derivedKey[16..32] ‖ ciphertext), the v3 MAC.
eth::Hash32 mac_of(const DerivedKey& dk, eth::ByteView ciphertext) {
    eth::Keccak256 h;
    h.update(eth::ByteView(dk).subspan(16));
    h.update(ciphertext);
    return h.finish();
}

// AES-128-CTR with derivedKey[0..16]; CTR mode encrypts and decrypts alike.
eth::Bytes aes128_ctr(const DerivedKey& dk, eth::ByteView iv, eth::ByteView input) {
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
    eth::Bytes out(input.size());
    int len = 0;
    int tail = 0;
    if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_128_ctr(), nullptr, dk.data(), iv.data()) != 1 ||
        EVP_EncryptUpdate(ctx.get(), out.data(), &len, input.data(), static_cast<int>(input.size())) != 1 ||
        EVP_EncryptFinal_ex(ctx.get(), out.data() + len, &tail) != 1 ||
        static_cast<std::size_t>(len + tail) != input.size()) {
        eth::secure_wipe(out.data(), out.size());
        throw Error(ErrorKind::internal, "aes-128-ctr failed");
    }
    return out;
}

void random_bytes(std::uint8_t* out, std::size_t n) {
    if (RAND_bytes(out, static_cast<int>(n)) != 1)
        throw Error(ErrorKind::internal, "the system random number generator failed");
}

std::string uuid_v4() {
    std::array<std::uint8_t, 16> b{};
    random_bytes(b.data(), b.size());
    b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
    b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
    const std::string h = eth::to_hex(b, false);
    return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
}

std::string read_small_file(const std::filesystem::path& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw Error(ErrorKind::not_found, "keystore file " + path.string() + " cannot be read: " + ec.message());
    if (size > kMaxFileSize) malformed(path.string() + " is too large to be a keystore");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) throw Error(ErrorKind::not_found, "keystore file " + path.string() + " cannot be read");
    return text.str();
}

}  // namespace

void scrypt(std::string_view password, eth::ByteView salt, const ScryptParams& params, std::span<std::uint8_t> out) {
    check_scrypt(params);
    const std::size_t block_bytes = 128 * std::size_t{params.r};
    eth::Bytes b(block_bytes * params.p);
    std::vector<std::uint32_t> words(b.size() / 4);
    std::vector<std::uint32_t> v(words.size() / params.p * params.n);
    std::vector<std::uint32_t> y(block_bytes / 4);
    // Every buffer here is derived from the password.
    const eth::WipeOnExit wipe_b(b);
    const eth::WipeOnExit wipe_words(words);
    const eth::WipeOnExit wipe_v(v);
    const eth::WipeOnExit wipe_y(y);

    pbkdf2_sha256(password, salt, 1, b);
    for (std::size_t i = 0; i < words.size(); ++i)
        words[i] = std::uint32_t{b[4 * i]} | std::uint32_t{b[4 * i + 1]} << 8 | std::uint32_t{b[4 * i + 2]} << 16 |
                   std::uint32_t{b[4 * i + 3]} << 24;
    for (std::uint32_t i = 0; i < params.p; ++i) ro_mix(words.data() + i * block_bytes / 4, params, v, y);
    for (std::size_t i = 0; i < words.size(); ++i)
        for (int k = 0; k < 4; ++k) b[4 * i + k] = static_cast<std::uint8_t>(words[i] >> (8 * k));
    pbkdf2_sha256(password, b, 1, out);
}

nlohmann::json encrypt(const eth::PrivateKey& key, std::string_view password, const ScryptParams& params) {
    check_scrypt(params);
    std::array<std::uint8_t, kSaltLen> salt{};
    std::array<std::uint8_t, kIvLen> iv{};
    random_bytes(salt.data(), salt.size());
    random_bytes(iv.data(), iv.size());

    DerivedKey dk = derive_scrypt(password, salt, params);
    const eth::WipeOnExit wipe_dk(dk);
    const eth::Bytes ciphertext = aes128_ctr(dk, iv, key.secret_bytes());

    std::string address = key.address().lower();
    return json{
        {"address", address.substr(2)},
        {"crypto",
         {{"cipher", "aes-128-ctr"},
          {"ciphertext", eth::to_hex(ciphertext, false)},
          {"cipherparams", {{"iv", eth::to_hex(iv, false)}}},
          {"kdf", "scrypt"},
          {"kdfparams",
           {{"dklen", kDkLen}, {"n", params.n}, {"p", params.p}, {"r", params.r}, {"salt", eth::to_hex(salt, false)}}},
          {"mac", eth::to_hex(mac_of(dk, ciphertext), false)}}},
        {"id", uuid_v4()},
        {"version", 3},
    };
}

eth::PrivateKey decrypt(const nlohmann::json& keystore, std::string_view password) {
    const Parsed ks = parse(keystore);
    DerivedKey dk = ks.scrypt ? derive_scrypt(password, ks.salt, ks.scrypt_params)
                              : derive_pbkdf2(password, ks.salt, ks.pbkdf2_iterations);
    const eth::WipeOnExit wipe_dk(dk);
    const eth::Hash32 mac = mac_of(dk, ks.ciphertext);
    if (CRYPTO_memcmp(mac.data(), ks.mac.data(), mac.size()) != 0)
        throw Error(ErrorKind::unauthenticated, "wrong password, or the keystore is corrupted (MAC mismatch)");

    eth::Bytes plain = aes128_ctr(dk, ks.iv, ks.ciphertext);
    const eth::WipeOnExit wipe_plain(plain);
    std::array<std::uint8_t, 32> secret{};
    const eth::WipeOnExit wipe_secret(secret);
    std::copy(plain.begin(), plain.end(), secret.end() - static_cast<std::ptrdiff_t>(plain.size()));
    eth::PrivateKey key = eth::PrivateKey::from_bytes(secret);
    if (ks.address && *ks.address != key.address())
        malformed("the decrypted key belongs to " + key.address().checksummed() + ", not to the file's address " +
                  ks.address->checksummed());
    return key;
}

eth::PrivateKey decrypt_text(std::string_view keystore_json, std::string_view password) {
    json doc = json::parse(keystore_json, nullptr, false);
    if (doc.is_discarded()) malformed("not valid JSON");
    return decrypt(doc, password);
}

std::string file_name(const eth::Address& address) {
    const auto now = std::chrono::system_clock::now();
    const std::time_t secs = std::chrono::system_clock::to_time_t(now);
    const auto nanos =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count() % 1'000'000'000;
    std::tm utc{};
    gmtime_r(&secs, &utc);
    return fmt::format("UTC--{:04}-{:02}-{:02}T{:02}-{:02}-{:02}.{:09}Z--{}", utc.tm_year + 1900, utc.tm_mon + 1,
                       utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, nanos, address.lower().substr(2));
}

std::filesystem::path write_file(const std::filesystem::path& directory, const eth::PrivateKey& key,
                                 std::string_view password, const ScryptParams& params) {
    const std::string text = encrypt(key, password, params).dump();

    os::create_private_directory(directory);
    const std::filesystem::path target = directory / file_name(key.address());
    if (!os::write_private_file(target, text, os::WriteMode::create_new))
        throw Error(ErrorKind::conflict, "keystore: " + target.string() + " already exists");
    return target;
}

eth::PrivateKey read_file(const std::filesystem::path& path, std::string_view password) {
    return decrypt_text(read_small_file(path), password);
}

std::vector<Entry> list(const std::filesystem::path& directory) {
    std::error_code ec;
    std::filesystem::directory_iterator it(directory, ec);
    if (ec) throw Error(ErrorKind::not_found, "keystore directory " + directory.string() + " cannot be read: " + ec.message());
    std::vector<Entry> entries;
    for (const auto& file : it) {
        const std::string name = file.path().filename().string();
        if (name.starts_with(".") || !file.is_regular_file(ec) || file.file_size(ec) > kMaxFileSize) continue;
        try {
            const json doc = json::parse(read_small_file(file.path()), nullptr, false);
            entries.push_back({parse(doc).address, file.path()});
        } catch (const Error&) {
            // Not a keystore we can use: skipped, as geth does.
        }
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.path.filename() < b.path.filename(); });
    return entries;
}

}  // namespace abci::keystore
