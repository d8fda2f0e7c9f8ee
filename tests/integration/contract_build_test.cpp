// The committed contract artifact must be exactly what the pinned compiler
// makes of the committed source, so anything deployed from it is reproducible
// from the repository alone; and the contract must enforce its token rules on
// a real chain (anvil), driven by cast as an independent client.

#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/anvil.hpp"
#include "support/tools.hpp"

namespace {

namespace fs = std::filesystem;

/// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "abci-contract-XXXXXX").string();
        REQUIRE(::mkdtemp(pattern.data()) != nullptr);
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    [[nodiscard]] const fs::path& path() const noexcept { return path_; }

private:
    fs::path path_;
};

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

/// `head` followed by `tail`: a command line built from fixed and per-call arguments.
std::vector<std::string> joined(std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

/// ABCIToken deployed from the committed artifact on a fresh anvil, stopped with the object.
class DeployedToken {
public:
    DeployedToken() {
        const auto artifact =
            nlohmann::json::parse(read_file(abci::test::source_path("contracts/build/ABCIToken.json")));
        const auto ctor_args =
            abci::test::cast({"abi-encode", "constructor(address,string)", admin.address, "ipfs://base/{id}"});
        const auto receipt = nlohmann::json::parse(
            abci::test::cast({"send", "--rpc-url", rpc_, "--private-key", admin.private_key, "--json", "--create",
                              artifact.at("bytecode").get<std::string>() + ctor_args.substr(2)}));
        REQUIRE(receipt.at("status") == "0x1");
        address_ = receipt.at("contractAddress").get<std::string>();
    }

    // anvil's first two dev accounts: the deployer (admin and minter) and a token holder.
    const abci::test::DevAccount& admin = abci::test::Anvil::dev_accounts()[0];
    const abci::test::DevAccount& holder = abci::test::Anvil::dev_accounts()[1];

    /// Sends a transaction signed by `key`; REQUIREs that it succeeded and returns its receipt.
    nlohmann::json send(const std::string& key, const std::vector<std::string>& call) {
        auto receipt = nlohmann::json::parse(
            abci::test::cast(joined({"send", "--rpc-url", rpc_, "--private-key", key, "--json", address_}, call)));
        REQUIRE(receipt.at("status") == "0x1");
        return receipt;
    }

    /// The decoded result of a read-only call.
    std::string call(const std::vector<std::string>& call) {
        return abci::test::cast(joined({"call", "--rpc-url", rpc_, address_}, call));
    }

    /// Simulates `call` from `from`; REQUIREs that it reverts with exactly the
    /// custom error `error_signature(error_args…)`.
    void require_revert(const std::string& from, const std::vector<std::string>& call,
                        const std::string& error_signature, const std::vector<std::string>& error_args) {
        const auto r = abci::os::run_command(
            joined({abci::test::tool("cast"), "call", "--rpc-url", rpc_, "--from", from, address_}, call));
        const auto expected = abci::test::cast(joined({"calldata", error_signature}, error_args));
        INFO(call.front() << " expected to revert with " << expected << "; cast said: " << r.out << r.err);
        REQUIRE(r.exit_code != 0);
        REQUIRE(r.err.find("\"" + expected + "\"") != std::string::npos);
    }

private:
    abci::test::Anvil anvil_;
    const std::string rpc_ = anvil_.url();
    std::string address_;
};

}  // namespace

TEST_CASE("a fresh contract build equals the committed artifact byte for byte", "[contract]") {
    TempDir out;
    auto r = abci::os::run_command({abci::test::source_path("scripts/build-contracts"), "--out", out.path().string()},
                                   {}, std::chrono::seconds(120));
    INFO("build-contracts stderr: " << r.err);
    REQUIRE(r.exit_code == 0);

    const auto fresh = read_file(out.path() / "ABCIToken.json");
    const auto committed = read_file(abci::test::source_path("contracts/build/ABCIToken.json"));
    // Report where they part instead of dumping two 40 kB strings.
    const auto [at, ignored] = std::mismatch(fresh.begin(), fresh.end(), committed.begin(), committed.end());
    const auto offset = static_cast<std::size_t>(at - fresh.begin());
    INFO("sizes " << fresh.size() << " and " << committed.size() << ", first difference at byte " << offset
                  << ": fresh '" << fresh.substr(offset, 80) << "' vs committed '" << committed.substr(offset, 80)
                  << "' (run scripts/build-contracts and commit the artifact)");
    const bool identical = fresh == committed;
    CHECK(identical);
}

TEST_CASE("ABCIToken enforces soulbound single role tokens and transferable entity tokens", "[contract]") {
    DeployedToken token;
    const auto& holder = token.holder.address;
    const auto& admin = token.admin.address;
    const auto& admin_key = token.admin.private_key;
    const auto& holder_key = token.holder.private_key;
    const auto& other = abci::test::Anvil::dev_accounts()[2].address;
    const std::string mint = "mint(address,uint256,uint256,bytes)";
    const std::string mint_many = "mintMany(address[],uint256[],uint256[],bytes[])";
    const std::string transfer = "safeTransferFrom(address,address,uint256,uint256,bytes)";
    const std::string balances = "balanceOfBatch(address[],uint256[])(uint256[])";
    const std::string cid =
        abci::test::cast({"from-utf8", "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"});

    CHECK(token.call({"version()(string)"}) == "\"1.0.0\"");
    CHECK(token.call({"hasRole(bytes32,address)(bool)", token.call({"MINTER_ROLE()(bytes32)"}), admin}) == "true");

    for (const auto* role : {"10000", "10100", "10200", "10300"}) token.send(admin_key, {mint, holder, role, "1", cid});
    CHECK(token.call({balances, "[" + holder + "," + holder + "," + holder + "," + holder + "]",
                      "[10000,10100,10200,10300]"}) == "[1, 1, 1, 1]");

    token.require_revert(admin, {mint, holder, "10000", "1", cid}, "RoleTokenAlreadyHeld(address,uint256)",
                         {holder, "10000"});
    token.require_revert(admin, {mint, other, "10000", "2", cid}, "InvalidRoleAmount(uint256)", {"2"});
    token.require_revert(admin, {mint, other, "1001", "1", cid}, "UnknownTokenId(uint256)", {"1001"});
    token.require_revert(holder, {transfer, holder, other, "10100", "1", "0x"}, "SoulboundToken(uint256)", {"10100"});
    token.require_revert(holder, {mint, holder, "1000", "1", cid}, "AccessControlUnauthorizedAccount(address,bytes32)",
                         {holder, token.call({"MINTER_ROLE()(bytes32)"})});
    token.require_revert(admin, {mint_many, "[" + other + "]", "[1000,1000]", "[1]", "[0x]"},
                         "ArrayLengthMismatch(uint256,uint256,uint256,uint256)", {"1", "2", "1", "1"});

    // Revocation burns the role token; the role can then be granted again.
    token.send(admin_key, {"revoke(address,uint256)", holder, "10000"});
    CHECK(token.call({"balanceOf(address,uint256)(uint256)", holder, "10000"}) == "0");
    token.send(admin_key, {mint, holder, "10000", "1", cid});

    // The mint's data (the metadata CID) is recorded on chain in TokenMetadata(to, id, data).
    const auto receipt = token.send(admin_key, {mint, holder, "1300", "5", cid});
    const auto& metadata_log = receipt.at("logs").at(1);
    CHECK(metadata_log.at("topics").at(0) == abci::test::cast({"sig-event", "TokenMetadata(address,uint256,bytes)"}));
    CHECK(metadata_log.at("data") == abci::test::cast({"abi-encode", "f(bytes)", cid}));
    token.send(holder_key, {transfer, holder, other, "1300", "2", "0x"});
    CHECK(token.call({balances, "[" + holder + "," + other + "]", "[1300,1300]"}) == "[3, 2]");

    token.send(admin_key, {mint_many, "[" + other + "," + other + "]", "[10300,1100]", "[1,7]", "[" + cid + ",0x]"});
    CHECK(token.call({balances, "[" + other + "," + other + "]", "[10300,1100]"}) == "[1, 7]");

    token.send(admin_key, {"setTokenURI(uint256,string)", "10300", "ipfs://certifier"});
    CHECK(token.call({"uri(uint256)(string)", "10300"}) == "\"ipfs://certifier\"");
    CHECK(token.call({"uri(uint256)(string)", "1000"}) == "\"ipfs://base/{id}\"");
}
