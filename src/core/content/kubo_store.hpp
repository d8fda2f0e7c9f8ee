#pragma once
// Content on an IPFS node through the Kubo RPC API (/api/v0/…): added with
// pinning so it stays, and with the CID Kubo answers checked against ours.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/content/content_store.hpp"
#include "core/rpc/url.hpp"

namespace abci::content {

class KuboStore final : public ContentStore {
public:
    /// `url` is the RPC API's base, e.g. "http://127.0.0.1:5001" (userinfo
    /// becomes HTTP basic auth; a path is a prefix for /api/v0). `timeout`
    /// bounds connecting and each wait for data. Throws Error(invalid_input)
    /// when `url` does not parse or `timeout` is not positive. No I/O here.
    KuboStore(std::string_view url, std::chrono::milliseconds timeout);

    /// POST /api/v0/version: healthy when Kubo answers with its version.
    [[nodiscard]] HealthCheck check() noexcept override;

private:
    /// POST /api/v0/add?cid-version=1&raw-leaves=true&pin=true (also
    /// hash=sha2-256 and chunker=size-262144, so that no node configuration
    /// changes the CID). Error(internal) naming both CIDs when Kubo's differs
    /// from ours; Error(unavailable) when Kubo cannot be reached or answers
    /// with an error (its message included); Error(timeout) when it goes quiet
    /// for longer than the timeout.
    void store(const Cid& cid, eth::ByteView data) override;
    /// POST /api/v0/block/get?arg=<cid>&offline=true: only what the node
    /// already has, never a search of the network. nullopt when Kubo reports
    /// the block as not found.
    [[nodiscard]] std::optional<eth::Bytes> fetch(const Cid& cid) override;
    [[nodiscard]] std::string location(const Cid& cid) const override;

    struct Answer;
    [[nodiscard]] Answer call(const std::string& command, const std::string& content_type = {},
                              const std::string& body = {}) const;

    rpc::Url url_;
    std::string display_;  // the URL with its secrets masked, for messages
    std::string base_;     // path prefix before /api/v0, without a trailing '/'
    std::chrono::milliseconds timeout_;
};

// Reading Kubo's answers. Public so that what a node can send is fuzzed
// without a network (tests/fuzz/kubo_answer.cpp); none of them throws.
namespace kubo {
/// The Message of Kubo's error body ({"Message", "Code", "Type"}), else a
/// description naming `status`.
[[nodiscard]] std::string error_message(int status, std::string_view body);
/// The CID an add answered: its answer is one JSON object per line ({"Name",
/// "Hash", "Size"}) and the file's is the last with a Hash. Empty when none has.
[[nodiscard]] std::string added_cid(std::string_view body);
/// The Version of a version answer, or nullopt when it has none.
[[nodiscard]] std::optional<std::string> version(std::string_view body);
}  // namespace kubo

}  // namespace abci::content
