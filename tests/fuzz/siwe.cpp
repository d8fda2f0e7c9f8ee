// Sign-In with Ethereum messages (core/auth/siwe), as a login request
// carries them. A parsed message formats to text that parses to the same
// message; signed by anvil's first dev key and verified at its own issue
// time, it passes every check when it is for our domain, origin and chains
// (the input decides), and is refused only with the documented kinds.
// fuzz-max-len: 4096

#include "core/auth/siwe.hpp"
#include "core/eth/signer.hpp"
#include "fuzz.hpp"

using namespace abci;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = fuzz::text(data, size);
    auth::SiweMessage message;
    if (!fuzz::accepts({ErrorKind::invalid_input}, [&] { message = auth::parse_siwe_message(text); })) return 0;
    const auto formatted = auth::format_siwe_message(message);
    auth::SiweMessage again;
    fuzz::require(fuzz::accepts({ErrorKind::invalid_input}, [&] { again = auth::parse_siwe_message(formatted); }),
                  "a formatted message parses");
    fuzz::require(auth::format_siwe_message(again) == formatted, "format, parse, format is stable");

    static const auto key =
        eth::PrivateKey::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    const auto signature = key.sign_message(eth::as_bytes(text)).to_hex();
    const auth::SiweExpectations expect{"abci.example.org", "https://abci.example.org", {1, 31337}, message.issued_at};
    (void)fuzz::accepts({ErrorKind::invalid_input, ErrorKind::unauthenticated}, [&] {
        (void)auth::verify_siwe(text, signature, key.address().checksummed(), expect);
    });
    return 0;
}
