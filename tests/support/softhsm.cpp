#include "support/softhsm.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "core/eth/bytes.hpp"

namespace abci::test {

SoftHsm::SoftHsm(std::string label) : label_(std::move(label)) {
    if (!std::filesystem::exists(module()))
        throw std::runtime_error(module() + " is missing: run scripts/setup (Debian's softhsm2)");
    std::filesystem::create_directory(dir_.path() / "tokens");
    (void)dir_.write("softhsm2.conf", "directories.tokendir = " + token_dir() +
                                          "\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n");
    if (const char* conf = std::getenv("SOFTHSM2_CONF")) {
        had_conf_ = true;
        previous_conf_ = conf;
    }
    ::setenv("SOFTHSM2_CONF", (dir_ / "softhsm2.conf").c_str(), 1);
    const auto r = os::run_command({"softhsm2-util", "--init-token", "--free", "--label", label_, "--so-pin", so_pin(),
                                    "--pin", pin()},
                                   {}, std::chrono::seconds(60), env());
    if (r.exit_code != 0) throw std::runtime_error("softhsm2-util --init-token failed: " + r.err + r.out);
}

SoftHsm::~SoftHsm() {
    if (had_conf_)
        ::setenv("SOFTHSM2_CONF", previous_conf_.c_str(), 1);
    else
        ::unsetenv("SOFTHSM2_CONF");
}

std::string SoftHsm::module() { return "/usr/lib/softhsm/libsofthsm2.so"; }

std::string SoftHsm::pin_file() const { return dir_.write("pin", pin() + "\n"); }

std::map<std::string, std::string> SoftHsm::env() const { return {{"SOFTHSM2_CONF", dir_ / "softhsm2.conf"}}; }

std::string SoftHsm::token_dir() const { return dir_ / "tokens"; }

os::CommandResult SoftHsm::pkcs11_tool(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{"pkcs11-tool", "--module", module(), "--token-label", label_, "--login", "--pin", pin()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = os::run_command(argv, {}, std::chrono::seconds(60), env());
    INFO("pkcs11-tool stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    return r;
}

void SoftHsm::generate_with_pkcs11_tool(const std::string& label, const std::string& id_hex,
                                        const std::string& key_type) const {
    (void)pkcs11_tool({"--keypairgen", "--key-type", key_type, "--label", label, "--id", id_hex});
}

void SoftHsm::import_with_pkcs11_tool(const std::string& label, const std::string& id_hex,
                                      const std::string& secret_hex) const {
    // SEC 1 ECPrivateKey { version 1, the secret, parameters [0] secp256k1's OID }, as docs/hsm.md builds it.
    const auto der = eth::from_hex("302e0201010420" + eth::to_hex(eth::from_hex(secret_hex), false) + "a00706052b8104000a");
    const auto key = dir_.write("import-key.der", std::string(der.begin(), der.end()));
    const auto pub = dir_ / "import-pub.der";
    const auto r = os::run_command({"openssl", "ec", "-inform", "DER", "-in", key, "-pubout", "-outform", "DER", "-out", pub},
                                   {}, std::chrono::seconds(60));
    INFO("openssl stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    (void)pkcs11_tool({"--write-object", key, "--type", "privkey", "--label", label, "--id", id_hex, "--usage-sign"});
    (void)pkcs11_tool({"--write-object", pub, "--type", "pubkey", "--label", label, "--id", id_hex});
    // Only the token keeps the secret, as the recipe's shred leaves it.
    std::filesystem::remove(key);
    std::filesystem::remove(pub);
}

}  // namespace abci::test
