#pragma once
// JSON-RPC 2.0 client for EVM nodes over HTTP(S): per-call deadlines, batch
// calls, retry with backoff, and failover across several endpoint URLs.
//
// Failure model. A JSON-RPC error object is an *answer* (the node looked at
// the request and refused it: revert, nonce too low, bad params) and is never
// retried; it surfaces as RpcError. Everything else — cannot connect, reset,
// timeout, HTTP 429/5xx, a body that is not JSON-RPC — is a *failure* of that
// endpoint: the call is retried, moving on to the next URL, with exponential
// backoff and jitter once every URL has been tried in a round. When the
// retries or the call's deadline run out the call throws Error(timeout) if
// the last failure was a timeout, Error(unavailable) otherwise, naming the
// endpoints with their secrets masked.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace abci::rpc {

class RpcMetrics;

/// The node answered a request with a JSON-RPC error object.
/// kind() is chain_rejected; what() reads "<method>: <node's message> (JSON-RPC error <code>)".
/// No endpoint answered a call: every attempt failed to connect, timed out
/// or got a broken answer (details(): each attempt). Nothing the node said.
class Unreachable : public Error {
public:
    using Error::Error;
};

class RpcError : public Error {
public:
    /// `data` is the error object's "data" member (null when absent).
    RpcError(std::string_view method, std::int64_t code, std::string message, const nlohmann::json& data);

    /// The JSON-RPC error code, e.g. 3 for a revert with data, -32000 for most node refusals.
    [[nodiscard]] std::int64_t code() const noexcept { return code_; }
    /// The node's own message, e.g. "execution reverted: not minter" or "nonce too low".
    [[nodiscard]] const std::string& rpc_message() const noexcept { return rpc_message_; }
    /// Revert data as 0x-hex when the node sent it (as "data", or nested in
    /// "data.data" as some providers do); empty otherwise. Any other "data"
    /// is kept, serialised, in details().
    [[nodiscard]] const std::optional<std::string>& data() const noexcept { return data_; }

private:
    std::int64_t code_;
    std::string rpc_message_;
    std::optional<std::string> data_;
};

/// One request of a batch. Null params are sent as [].
struct Request {
    std::string method;
    nlohmann::json params = nlohmann::json::array();
};

/// The answer to one request of a batch: its result, or the node's error for it.
class Outcome {
public:
    explicit Outcome(nlohmann::json result) : value_(std::move(result)) {}
    explicit Outcome(RpcError error) : value_(std::move(error)) {}

    [[nodiscard]] bool ok() const noexcept { return value_.index() == 0; }
    /// The result; throws this item's RpcError when the node answered it with an error.
    [[nodiscard]] const nlohmann::json& value() const;
    /// This item's error, or nullptr when it succeeded.
    [[nodiscard]] const RpcError* error() const noexcept { return std::get_if<RpcError>(&value_); }

private:
    std::variant<nlohmann::json, RpcError> value_;
};

// Reading a node's answers, each already parsed as JSON. Public so that what
// a node can send is fuzzed without a network (tests/fuzz/rpc_response.cpp).

/// What is wrong with `answer` as the answer to the call with id `id`, or
/// nothing. Something wrong is a failure of the endpoint, not its answer.
[[nodiscard]] std::optional<std::string> check_call_answer(const nlohmann::json& answer, std::uint64_t id);
/// Likewise for the answer to a batch of `count` requests numbered from `first`.
[[nodiscard]] std::optional<std::string> check_batch_answer(const nlohmann::json& answer, std::uint64_t first,
                                                            std::uint64_t count);
/// The "result" of an answer that check_call_answer() passed; RpcError when
/// the node answered `method` with an error.
[[nodiscard]] nlohmann::json call_result(nlohmann::json answer, std::string_view method);
/// One Outcome per request, in request order, of an answer that
/// check_batch_answer() passed for `requests` numbered from `first`; RpcError
/// when the node refused the whole batch (named `label`).
[[nodiscard]] std::vector<Outcome> batch_outcomes(nlohmann::json answer, std::uint64_t first,
                                                  const std::vector<Request>& requests, std::string_view label);

/// Per-call settings.
struct CallOptions {
    /// Deadline for the whole call, retries and backoff included; defaults to Options::call_timeout.
    std::optional<std::chrono::milliseconds> timeout{};
    /// Whether sending the request twice is harmless. When false, the call is
    /// retried only where the request provably was not acted on: the connection
    /// (or TLS handshake) failed, or the server refused it with HTTP 429 or
    /// another 4xx. A lost response, a timeout or a 5xx (a proxy may have
    /// forwarded it) then fails the call at once instead.
    /// Reads are idempotent. So is eth_sendRawTransaction: the same signed
    /// bytes are the same transaction (same hash, same nonce), so a resend is
    /// either accepted once or refused as already known / nonce too low — the
    /// caller must treat those answers as "maybe sent" and check the hash.
    /// eth_sendTransaction (the node signs and picks the nonce) is NOT: a
    /// resend can mint twice; pass false for it.
    bool idempotent = true;
};

/// Client-wide settings.
struct Options {
    std::chrono::milliseconds call_timeout{30'000};     // default deadline of a call, all attempts together
    std::chrono::milliseconds attempt_timeout{10'000};  // one HTTP exchange (send, then each wait for bytes)
    std::chrono::milliseconds connect_timeout{3'000};   // TCP connect + TLS handshake
    unsigned retries = 3;                               // further attempts after the first, across all URLs
    std::chrono::milliseconds backoff_base{100};        // first backoff; doubles per round, with jitter
    std::chrono::milliseconds backoff_max{2'000};
    std::chrono::milliseconds retry_after_max{5'000};   // cap on a server's Retry-After
    std::size_t idle_connections = 16;                  // keep-alive connections kept per URL (more may be open)
    std::string ca_file;                                // PEM CA bundle; empty: the system store
    std::shared_ptr<RpcMetrics> metrics;                // where each exchange is counted; none: not counted
};

/// A JSON-RPC client for one chain, over one or more equivalent endpoint URLs.
/// Thread-safe: any number of threads may call one Client at once; each call
/// takes its own keep-alive connection from a per-URL pool (no lock is held
/// across network I/O). HTTPS verifies the server's certificate and host name
/// against `Options::ca_file`, else /etc/ssl/certs/ca-certificates.crt, else
/// OpenSSL's default paths.
class Client {
public:
    /// `urls`: http:// or https:// endpoints, in order of preference. Throws
    /// Error(invalid_input) when the list is empty or a URL is malformed.
    explicit Client(const std::vector<std::string>& urls, Options options = {});
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    /// Calls `method` with `params` (an array or object; null means []) and
    /// returns its "result". Throws RpcError when the node answers with an
    /// error, Error(timeout|unavailable) when no endpoint answered (see above).
    [[nodiscard]] nlohmann::json call(std::string_view method, nlohmann::json params = nlohmann::json::array(),
                                      const CallOptions& options = {});

    /// Sends `requests` as one JSON-RPC batch and returns one Outcome per
    /// request, in request order whatever order the node answered in. An
    /// empty batch returns empty without touching the network. Retries like
    /// call() (the batch as a whole); throws RpcError when the node rejects
    /// the whole batch with a single error object, Error(timeout|unavailable)
    /// as call() does, including when answers are missing for some requests.
    [[nodiscard]] std::vector<Outcome> batch(const std::vector<Request>& requests, const CallOptions& options = {});

    /// The endpoint URLs, masked for display (see mask_url), in configured order.
    [[nodiscard]] std::vector<std::string> endpoints() const;
    /// Index into endpoints() of the URL new calls try first: the one that
    /// last answered, moved on when it fails.
    [[nodiscard]] std::size_t preferred_endpoint() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace abci::rpc
