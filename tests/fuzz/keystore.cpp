// Keystore files (core/keystore decrypt_text), which users bring from
// geth, cast and wallets. Decrypted with the empty password, that of the
// very-light-scrypt vector, so that inputs derived from it get past the MAC.
// fuzz-max-len: 4096

#include <nlohmann/json.hpp>

#include "core/keystore/keystore.hpp"
#include "fuzz.hpp"

using namespace abci;

namespace {

// The key derivation is meant to be slow: decrypt() bounds it at 1 GiB and
// 2^25 scrypt blocks, which the unit tests check. Inputs asking for more than
// a few milliseconds of it are skipped so the fuzzer spends its time parsing.
bool cheap(const nlohmann::json& doc) {
    if (!doc.is_object()) return true;
    const auto crypto = doc.contains("crypto") ? doc["crypto"] : doc.value("Crypto", nlohmann::json());
    if (!crypto.is_object() || !crypto.contains("kdfparams") || !crypto["kdfparams"].is_object()) return true;
    const auto& params = crypto["kdfparams"];
    const auto number = [&](const char* key) {
        const auto it = params.find(key);
        return it != params.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 1;
    };
    constexpr std::uint64_t kLimit = 1 << 14;
    return number("n") <= kLimit && number("r") <= kLimit && number("p") <= kLimit &&
           number("n") * number("r") * number("p") <= kLimit && number("c") <= kLimit;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = fuzz::text(data, size);
    if (!cheap(nlohmann::json::parse(text, nullptr, false))) return 0;
    (void)fuzz::accepts({ErrorKind::invalid_input, ErrorKind::unauthenticated},
                        [&] { (void)keystore::decrypt_text(text, ""); });
    return 0;
}
