#include "core/signer/remote.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/eth/bytes.hpp"
#include "core/eth/tx.hpp"
#include "core/eth/wipe.hpp"
#include "core/rpc/client.hpp"
#include "core/rpc/http_transport.hpp"
#include "core/rpc/quantity.hpp"
#include "core/rpc/url.hpp"
#include "core/signer/watch.hpp"

namespace abci::signer {

namespace {

using nlohmann::json;

constexpr rpc::HttpTimeouts kTimeouts{std::chrono::milliseconds(3'000), std::chrono::milliseconds(10'000)};
constexpr std::size_t kIdleClients = 4;

// The request eth_signTransaction takes (the execution API's
// GenericTransaction): every field given, so that the signer fills in none.
json request_of(const eth::Transaction& tx, const eth::Address& from) {
    json r{{"from", from.checksummed()},
           {"gas", rpc::to_quantity(tx.gas_limit)},
           {"value", rpc::to_quantity(tx.value)},
           {"data", eth::to_hex(tx.data)},
           {"nonce", rpc::to_quantity(tx.nonce)},
           {"chainId", rpc::to_quantity(tx.chain_id)}};
    if (tx.to) r["to"] = tx.to->checksummed();
    if (tx.type == eth::TxType::eip1559) {
        r["type"] = "0x2";
        r["maxFeePerGas"] = rpc::to_quantity(tx.max_fee_per_gas);
        r["maxPriorityFeePerGas"] = rpc::to_quantity(tx.max_priority_fee_per_gas);
        r["accessList"] = json::array();
    } else {
        r["type"] = "0x0";
        r["gasPrice"] = rpc::to_quantity(tx.gas_price);
    }
    return r;
}

std::string type_name(eth::TxType type) { return type == eth::TxType::eip1559 ? "EIP-1559" : "legacy"; }

std::string to_text(const std::optional<eth::Address>& to) { return to ? to->checksummed() : "none (a deployment)"; }

// The first field in which `got` is not `asked`, with both values, or nothing.
std::optional<std::string> difference(const eth::Transaction& asked, const eth::Transaction& got) {
    const auto differs = [](const char* field, const std::string& want, const std::string& have) {
        return std::string(field) + " is " + have + ", not the " + want + " asked for";
    };
    if (got.type != asked.type) return differs("type", type_name(asked.type), type_name(got.type));
    if (got.chain_id != asked.chain_id)
        return differs("chain id", std::to_string(asked.chain_id), std::to_string(got.chain_id));
    if (got.nonce != asked.nonce) return differs("nonce", std::to_string(asked.nonce), std::to_string(got.nonce));
    if (got.max_fee_per_gas != asked.max_fee_per_gas)
        return differs("maxFeePerGas", asked.max_fee_per_gas.to_dec(), got.max_fee_per_gas.to_dec());
    if (got.max_priority_fee_per_gas != asked.max_priority_fee_per_gas)
        return differs("maxPriorityFeePerGas", asked.max_priority_fee_per_gas.to_dec(),
                       got.max_priority_fee_per_gas.to_dec());
    if (got.gas_price != asked.gas_price) return differs("gasPrice", asked.gas_price.to_dec(), got.gas_price.to_dec());
    if (got.gas_limit != asked.gas_limit)
        return differs("gas", std::to_string(asked.gas_limit), std::to_string(got.gas_limit));
    if (got.to != asked.to) return differs("to", to_text(asked.to), to_text(got.to));
    if (got.value != asked.value) return differs("value", asked.value.to_dec(), got.value.to_dec());
    if (got.data != asked.data)
        return "data differs from what was asked (" + std::to_string(got.data.size()) + " bytes, not " +
               std::to_string(asked.data.size()) + ")";
    return std::nullopt;
}

// The signer cannot be reached, or its front answers that it is not up: the
// one failure at start that is not a configuration error, so the server starts
// unready and its watch sees the signer come up.
class Unreachable : public Error {
public:
    using Error::Error;
};

class RemoteSigner final : public eth::TransactionSigner {
public:
    explicit RemoteSigner(const RemoteConfig& config)
        : url_(rpc::parse_url(config.url)), name_(rpc::mask_url(config.url)), address_(config.address),
          token_(config.token) {}

    ~RemoteSigner() override {
        watch_.reset();  // its check calls the signer
        eth::secure_wipe(token_.data(), token_.size());
    }
    RemoteSigner(const RemoteSigner&) = delete;
    RemoteSigner& operator=(const RemoteSigner&) = delete;

    [[nodiscard]] const eth::Address& address() const override { return address_; }
    [[nodiscard]] std::optional<std::string> unavailable() const override { return watch_->last(); }

    // From now on eth_accounts is asked every few seconds; `first` is what the start found.
    void watch(std::optional<std::string> first) {
        watch_ = std::make_unique<Watch>("the remote signer at " + name_, std::move(first), [this] {
            try {
                check_holds_address();
                return std::optional<std::string>();
            } catch (const Error& e) {
                return std::optional<std::string>(e.what());
            }
        });
    }

    // The check of the start and of the watch: the signer answers and holds the key.
    void check_holds_address() const {
        const json accounts = call("eth_accounts", json::array());
        if (!accounts.is_array()) throw refused("answered eth_accounts with something that is not a list");
        std::string held;
        for (const auto& account : accounts) {
            eth::Address address;
            try {
                address = eth::Address::parse(account.is_string() ? account.get<std::string>() : account.dump());
            } catch (const Error&) {
                throw refused("answered eth_accounts with something that is not an address");
            }
            if (address == address_) return;
            held += (held.empty() ? "" : ", ") + address.checksummed();
        }
        throw Error(ErrorKind::not_found, "the remote signer at " + name_ + " does not hold signer.remoteAddress " +
                                              address_.checksummed() + " (it holds " + (held.empty() ? "none" : held) +
                                              "): check [signer] remoteAddress, or the signer's keys");
    }

    [[nodiscard]] eth::SignedTransaction sign_transaction(const eth::Transaction& tx) const override {
        const json answer = call("eth_signTransaction", json::array({request_of(tx, address_)}));
        // Most signers answer with the raw bytes; geth and Clef with {raw, tx}.
        const json& raw = answer.is_object() && answer.contains("raw") ? answer["raw"] : answer;
        if (!raw.is_string()) throw refused("answered eth_signTransaction with no raw transaction");
        eth::SignedTransaction got;
        try {
            got = eth::decode_transaction(eth::from_hex(raw.get<std::string>(), "raw transaction"));
        } catch (const Error& e) {
            // decode_transaction() is strict: a high s, an access list, a
            // non-canonical encoding or a signature that recovers no key end here.
            throw refused(std::string("returned a transaction that cannot be sent: ") + e.what());
        }
        if (const auto why = difference(tx, got.tx)) throw refused("returned a transaction whose " + *why);
        if (got.from != address_)
            throw refused("returned a transaction signed by " + got.from.checksummed() + ", not by " +
                          address_.checksummed());
        return got;
    }

private:
    // The signer's answer is not to be used: nothing it signed is sent.
    [[nodiscard]] Error refused(const std::string& what) const {
        return Error(ErrorKind::unavailable,
                     "the remote signer at " + name_ + " " + what + "; it was refused and nothing was sent");
    }

    // One JSON-RPC call, tried once: the sender decides what a failed
    // signature means (a mint answered as failed, a fee bump tried again later).
    [[nodiscard]] json call(std::string_view method, json params) const {
        const std::uint64_t id = next_id_.fetch_add(1);
        httplib::Request request;
        request.method = "POST";
        request.path = url_.target;
        request.set_header("Content-Type", "application/json");
        if (!token_.empty()) request.set_header("Authorization", "Bearer " + token_);
        request.body = json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}.dump();
        auto client = take_client();
        auto result = rpc::exchange(*client, request, kTimeouts.io);
        if (const auto* failure = std::get_if<rpc::TransportFailure>(&result))
            throw Unreachable(failure->kind, "the remote signer at " + name_ + " cannot be reached: " +
                                                 failure->reason + "; nothing was signed");
        const auto& response = std::get<httplib::Response>(result);
        give_back(std::move(client));
        // What a proxy in front of a signer that is down answers.
        if (response.status == 502 || response.status == 503 || response.status == 504)
            throw Unreachable(ErrorKind::unavailable, "the remote signer at " + name_ + " cannot be reached: HTTP " +
                                                          std::to_string(response.status) + "; nothing was signed");
        // Unavailable, not unauthenticated: the credentials are the server's,
        // and a mint's caller must not read them as its own.
        if (response.status == 401 || response.status == 403)
            throw Error(ErrorKind::unavailable, "the remote signer at " + name_ + " refused the credentials (HTTP " +
                                                    std::to_string(response.status) +
                                                    "): check signer.remoteTokenFile or ABCI_SIGNER_TOKEN");
        const json answer = json::parse(response.body, nullptr, false);
        if (response.status != 200 || answer.is_discarded())
            throw refused("answered " + std::string(method) + " with HTTP " + std::to_string(response.status) +
                          (answer.is_discarded() ? " and no JSON" : ""));
        if (const auto problem = rpc::check_call_answer(answer, id))
            throw refused("answered " + std::string(method) + " wrongly: " + *problem);
        try {
            return rpc::call_result(answer, method);
        } catch (const rpc::RpcError& e) {
            throw Error(ErrorKind::unavailable, "the remote signer at " + name_ + " refused " + std::string(method) +
                                                    ": " + e.rpc_message() + "; nothing was signed");
        }
    }

    [[nodiscard]] std::unique_ptr<httplib::Client> take_client() const {
        {
            std::lock_guard lock(mutex_);
            if (!idle_.empty()) {
                auto client = std::move(idle_.back());
                idle_.pop_back();
                return client;
            }
        }
        return rpc::make_http_client(url_, kTimeouts);
    }

    void give_back(std::unique_ptr<httplib::Client> client) const {
        std::lock_guard lock(mutex_);
        if (idle_.size() < kIdleClients) idle_.push_back(std::move(client));
    }

    rpc::Url url_;
    std::string name_;  // the URL masked: what messages show
    eth::Address address_;
    std::string token_;
    mutable std::atomic<std::uint64_t> next_id_{1};
    mutable std::mutex mutex_;
    mutable std::vector<std::unique_ptr<httplib::Client>> idle_;
    std::unique_ptr<Watch> watch_;  // last: its thread calls the signer
};

}  // namespace

std::shared_ptr<const eth::TransactionSigner> open_remote_signer(const RemoteConfig& config) {
    auto signer = std::make_shared<RemoteSigner>(config);
    std::optional<std::string> down;
    try {
        signer->check_holds_address();
    } catch (const Unreachable& e) {
        down = e.what();  // unready until it answers; anything else it says is a configuration error
    }
    signer->watch(std::move(down));
    return signer;
}

}  // namespace abci::signer
