#pragma once
// A real SoftHSM2 token for one test (Debian's softhsm2): its own token
// directory and config file in a temporary directory, no root needed. While
// the fixture lives, this process's SOFTHSM2_CONF points at it (the module
// reads it when it is initialised, i.e. when the first signer opens it), and
// env() hands it to a child (abcictl serve, abcictl signer, pkcs11-tool).

#include <map>
#include <string>
#include <vector>

#include "core/os/process.hpp"
#include "support/cli_runner.hpp"

namespace abci::test {

class SoftHsm {
public:
    /// Initialises a token labelled `label` with user PIN pin() and SO PIN so_pin().
    explicit SoftHsm(std::string label = "abci");
    ~SoftHsm();
    SoftHsm(const SoftHsm&) = delete;
    SoftHsm& operator=(const SoftHsm&) = delete;

    /// Debian's module path.
    [[nodiscard]] static std::string module();
    [[nodiscard]] const std::string& token() const noexcept { return label_; }
    [[nodiscard]] static std::string pin() { return "246810"; }
    [[nodiscard]] static std::string so_pin() { return "13579111"; }
    /// A file holding pin(), mode 0600.
    [[nodiscard]] std::string pin_file() const;
    /// {"SOFTHSM2_CONF": its config} for a child process.
    [[nodiscard]] std::map<std::string, std::string> env() const;
    /// The token's directory (removing it takes the token away).
    [[nodiscard]] std::string token_dir() const;

    /// Runs `pkcs11-tool --module module() --token-label token() --login
    /// --pin pin() args…` (OpenSC: independent of abcictl) and returns its
    /// result; fails the test when it exits non-zero.
    os::CommandResult pkcs11_tool(const std::vector<std::string>& args) const;
    /// A key pair made by pkcs11-tool: `key_type` as its --key-type (EC:secp256k1, EC:prime256v1).
    void generate_with_pkcs11_tool(const std::string& label, const std::string& id_hex,
                                   const std::string& key_type = "EC:secp256k1") const;
    /// The key pair of `secret_hex` (a 32-byte secp256k1 secret) written to the
    /// token as docs/hsm.md moves a keystore's key in: a SEC 1 DER private key
    /// and openssl's public key, each by pkcs11-tool --write-object.
    void import_with_pkcs11_tool(const std::string& label, const std::string& id_hex,
                                 const std::string& secret_hex) const;

private:
    TempDir dir_;
    std::string label_;
    std::string previous_conf_;
    bool had_conf_ = false;
};

}  // namespace abci::test
