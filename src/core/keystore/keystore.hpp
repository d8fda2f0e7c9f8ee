#pragma once
// Web3 Secret Storage v3 keystores, the encrypted key files of geth, cast
// (foundry) and most wallets.
//
// Reading accepts the scrypt and pbkdf2 (hmac-sha256) key derivations with
// aes-128-ctr; the MAC is checked (in constant time) before anything is
// decrypted. Writing uses scrypt, geth's standard parameters by default, and
// geth's file layout, so that geth and `cast wallet` read what we write.
//
// Passwords are taken as views: the caller owns them and wipes them. Every
// derived key and decrypted secret made here is wiped before returning.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/eth/address.hpp"
#include "core/eth/signer.hpp"

namespace abci::keystore {

/// scrypt cost parameters. The defaults are geth's "standard" ones (about
/// 256 MiB and half a second to a second per derivation).
struct ScryptParams {
    std::uint64_t n = 262144;  // CPU/memory cost, a power of two
    std::uint32_t r = 8;       // block size
    std::uint32_t p = 1;       // parallelism
};

/// scrypt (RFC 7914) of `password` and `salt` into `out`. Throws
/// Error(invalid_input) for parameters outside what decrypt() accepts.
/// OpenSSL's scrypt is not used because it enforces RFC 7914's n < 2^(16·r),
/// which geth does not, and keystores in the wild (the Web3 Secret Storage
/// test vector itself: n=262144, r=1) break it. The caller wipes `out`.
void scrypt(std::string_view password, eth::ByteView salt, const ScryptParams& params, std::span<std::uint8_t> out);

/// Encrypts `key` under `password` into a v3 keystore: scrypt with `params`,
/// random 32-byte salt and 16-byte IV, a random UUID v4 id and the address in
/// lower case without "0x" (as geth writes it). Throws Error(invalid_input)
/// when `params` are outside what decrypt() accepts, Error(internal) when
/// OpenSSL fails.
[[nodiscard]] nlohmann::json encrypt(const eth::PrivateKey& key, std::string_view password,
                                     const ScryptParams& params = {});

/// Decrypts a v3 keystore. Throws Error(invalid_input) naming the field when
/// the document is malformed or its parameters are unsupported or absurd (a
/// cipher other than aes-128-ctr, a kdf other than scrypt/pbkdf2, dklen other
/// than 32, scrypt costs needing more than 1 GiB, …); Error(unauthenticated)
/// when the password is wrong or the file was altered (MAC mismatch);
/// Error(invalid_input) when the decrypted key is invalid or does not match
/// the file's "address" field.
[[nodiscard]] eth::PrivateKey decrypt(const nlohmann::json& keystore, std::string_view password);
/// decrypt() of JSON text; text that is not JSON throws Error(invalid_input).
/// (A separate name because a string also converts to nlohmann::json.)
[[nodiscard]] eth::PrivateKey decrypt_text(std::string_view keystore_json, std::string_view password);

/// geth's file name for a key created now: "UTC--<ISO 8601 time, ':' as '-'>--<address lower, no 0x>".
[[nodiscard]] std::string file_name(const eth::Address& address);

/// Encrypts `key` and writes it into `directory` (created with mode 0700 if
/// missing) under file_name(), with mode 0600. The file appears atomically
/// (written to a temporary file, synced, then linked into place), and an
/// existing file is never overwritten. Returns the new file's path. Throws
/// Error(conflict) if the name exists, Error(unavailable) on I/O failure, and
/// what encrypt() throws.
[[nodiscard]] std::filesystem::path write_file(const std::filesystem::path& directory, const eth::PrivateKey& key,
                                               std::string_view password, const ScryptParams& params = {});

/// Reads and decrypts a keystore file. Throws Error(not_found) when it cannot
/// be read, and what decrypt() throws.
[[nodiscard]] eth::PrivateKey read_file(const std::filesystem::path& path, std::string_view password);

/// A keystore found in a directory.
struct Entry {
    std::optional<eth::Address> address;  // from the file's "address" field; cast omits it
    std::filesystem::path path;
};

/// The v3 keystores directly inside `directory`, sorted by file name. Files
/// that are hidden, not JSON or not version-3 keystores are skipped (as geth
/// does). Throws Error(not_found) when `directory` is not a readable directory.
[[nodiscard]] std::vector<Entry> list(const std::filesystem::path& directory);

}  // namespace abci::keystore
