#pragma once
// Content storage: where the metadata JSON of minted tokens lives, addressed
// by its CID. A store is chosen by configuration (make_content_store) and is
// safe to use from many threads at once.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/content/cid.hpp"
#include "core/eth/bytes.hpp"

namespace abci::content {

/// The largest content a store takes: one IPFS chunk (Kubo's default chunker,
/// size-262144). Up to this size Kubo's CIDv1 with raw leaves is the raw CID
/// of the bytes; beyond it Kubo builds a dag-pb tree with another CID.
inline constexpr std::size_t kMaxContentSize = 256 * 1024;

/// The outcome of a store's health check, for GET /abci/health.
struct HealthCheck {
    bool healthy = false;
    std::string message;  // what was checked and, when unhealthy, what failed
};

class ContentStore {
public:
    virtual ~ContentStore() = default;

    /// Stores `data` and returns its raw CID (Cid::of(data)). Idempotent:
    /// storing the same bytes again returns the same CID and keeps one copy.
    /// When it returns, the content is durable. Throws Error(invalid_input)
    /// when `data` is larger than kMaxContentSize, Error(unavailable) when the
    /// storage cannot be written or reached, Error(timeout) when it answers
    /// too slowly, Error(internal) when the storage names the content with
    /// another CID than ours.
    [[nodiscard]] Cid put(eth::ByteView data);

    /// The content named by `cid`, checked against it; nullopt when the store
    /// does not hold it. Throws Error(internal) when what the storage returns
    /// does not hash to `cid` (it is never handed out), Error(unavailable) or
    /// Error(timeout) as put() does.
    [[nodiscard]] std::optional<eth::Bytes> get(const Cid& cid);

    /// Whether the store can currently be used; never throws.
    [[nodiscard]] virtual HealthCheck check() noexcept = 0;

protected:
    /// Keeps `data`, whose CID is `cid` and whose size is within bounds; the
    /// guarantees and errors of put().
    virtual void store(const Cid& cid, eth::ByteView data) = 0;
    /// The bytes kept under `cid`, unchecked (get() checks them); nullopt when none are.
    [[nodiscard]] virtual std::optional<eth::Bytes> fetch(const Cid& cid) = 0;
    /// Where the content named `cid` is kept, for error messages (a path, a URL).
    [[nodiscard]] virtual std::string location(const Cid& cid) const = 0;
};

struct ContentSettings {
    std::string backend = "local";                   // "local" or "kubo"
    std::filesystem::path data_dir;                  // local: files go to <data_dir>/content/<cid>
    std::string kubo_url = "http://127.0.0.1:5001";  // kubo: the RPC API's origin
    std::chrono::milliseconds timeout{5000};         // kubo: per request, connect and answer
};

/// The store `settings` select. Throws Error(invalid_input) for an unknown
/// backend, a kubo URL that does not parse or a non-positive timeout; no I/O
/// happens until the store is used.
[[nodiscard]] std::unique_ptr<ContentStore> make_content_store(const ContentSettings& settings);

}  // namespace abci::content
