#pragma once
// A signing key kept in a PKCS#11 token (any HSM; SoftHSM2 in the tests,
// DESIGN.md §10): the module is dlopen'ed, the token found by its label, the
// key by its label or id; the token signs raw CKM_ECDSA over the Keccak digest
// computed here, and eth::Signer::sign() normalises and verifies what it
// returns. The key never leaves the token.

#include <memory>
#include <string>

#include "core/eth/address.hpp"
#include "core/eth/signer.hpp"

namespace abci::signer {

/// Where the key is. `pin` is the token user's PIN; the signer keeps a copy (to
/// log in again after the token drops its sessions) and wipes it when
/// destroyed; the caller wipes its own.
struct Pkcs11Config {
    std::string module;  // path of the PKCS#11 module, e.g. /usr/lib/softhsm/libsofthsm2.so
    std::string token;   // token label
    std::string key;     // key label, or its CKA_ID in hex
    std::string pin;
};

/// Opens the token and finds the key, logged in once. Throws, naming what is
/// wrong: Error(not_found) for a module that cannot be loaded, a token or key
/// that is not there; Error(unauthenticated) for a wrong or locked PIN (tried
/// once: a token locks after a few wrong PINs); Error(invalid_input) for a key
/// not on secp256k1 or without the sign permission; Error(unavailable) for a
/// token that fails otherwise. The signer is safe to use from many threads: each
/// signature takes a session from a small pool. Every few seconds, off any
/// request, it checks that the token still answers (signer/watch.hpp): a token
/// gone makes it unavailable(), and one put back is logged in to again,
/// restarting the module when that is what finds it.
[[nodiscard]] std::shared_ptr<const eth::Signer> open_pkcs11_signer(const Pkcs11Config& config);

/// Generates a secp256k1 key pair on the token labelled `config.key` (private
/// half sensitive, never extractable, sign only) and returns its address.
/// Throws as open_pkcs11_signer(), and Error(conflict) when the token already
/// holds a key with that label.
[[nodiscard]] eth::Address generate_pkcs11_key(const Pkcs11Config& config);

}  // namespace abci::signer
