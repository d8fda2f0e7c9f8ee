#include "core/service/certificate_token.hpp"

#include <nlohmann/json.hpp>

#include "core/util/json_members.hpp"

namespace abci::service {

namespace {

constexpr const char* kUnreadable = "a certificate's stored token cannot be read";
constexpr const char* kIpfs = "ipfs://";

}  // namespace

CertificateToken CertificateToken::of(const MintResult& minted) {
    return {minted.token_id, minted.amount, minted.transaction_hash, minted.block_number,
            minted.cid,      minted.chain.name, minted.chain.chain_id};
}

std::string CertificateToken::serialize() const {
    return nlohmann::json{{"version", kVersion},
                          {"tokenId", token_id},
                          {"amount", amount},
                          {"transactionHash", transaction_hash},
                          {"blockNumber", block_number},
                          {"metadataUri", kIpfs + cid},
                          {"ipfsHash", cid},
                          {"blockchain", {{"name", chain_name}, {"chainId", chain_id}}}}
        .dump();
}

CertificateToken CertificateToken::parse(const std::string& text) {
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    const util::RequiredMembers token(parsed, ErrorKind::internal, kUnreadable);
    (void)token.version(kVersion);  // version 1 is the only one so far
    CertificateToken t;
    t.token_id = token.count("tokenId");
    t.amount = token.count("amount");
    t.transaction_hash = token.text("transactionHash");
    t.block_number = token.count("blockNumber");
    t.cid = token.text("ipfsHash");
    if (token.text("metadataUri") != kIpfs + t.cid) throw token.refusal("metadataUri", "is not ipfs:// and its ipfsHash");
    const util::RequiredMembers chain(token.any("blockchain"), ErrorKind::internal,
                                      std::string(kUnreadable) + ": its \"blockchain\"");
    t.chain_name = chain.text("name");
    t.chain_id = chain.count("chainId");
    return t;
}

}  // namespace abci::service
