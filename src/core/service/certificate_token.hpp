#pragma once
// The token of a minted certificate (store::Certificate::token): what the
// certificate routes show of its mint. A durable format read by later
// releases: this module is its only reader and writer.
//
// Versions (a row's "version" member; rows without one are version 1):
//   1  {"tokenId","amount","transactionHash","blockNumber","metadataUri",
//      "ipfsHash","blockchain":{"name","chainId"}}; metadataUri is
//      "ipfs://" + ipfsHash. Version 1 rows were written without "version"
//      until this module wrote it.

#include <cstdint>
#include <string>

#include "core/service/mint_result.hpp"

namespace abci::service {

struct CertificateToken {
    /// The version serialize() writes.
    static constexpr int kVersion = 1;

    std::uint64_t token_id = 0;
    std::uint64_t amount = 0;
    std::string transaction_hash;
    std::uint64_t block_number = 0;
    std::string cid;  // the metadata record's
    std::string chain_name;
    std::uint64_t chain_id = 0;

    bool operator==(const CertificateToken&) const = default;

    /// What a certificate's mint returned.
    [[nodiscard]] static CertificateToken of(const MintResult& minted);

    /// The stored text, as version kVersion writes it.
    [[nodiscard]] std::string serialize() const;
    /// Reads a stored token of any version written so far. Error(internal)
    /// naming the problem for text that is no such record, a member missing
    /// or of the wrong type, or a newer version.
    [[nodiscard]] static CertificateToken parse(const std::string& text);
};

}  // namespace abci::service
