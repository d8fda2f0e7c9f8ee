#include "support/remote_signer_standin.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/eth/rlp.hpp"
#include "core/eth/tx.hpp"

namespace abci::test {

namespace {

using nlohmann::json;

// secp256k1's group order: s and n - s are the same signature's two forms.
const eth::U256 kCurveOrder = eth::U256::parse("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");

// An EIP-1559 transaction with `signature` as given, unchecked: what
// eth::sign_transaction() would never produce (a high s).
eth::Bytes encode_eip1559(const eth::Transaction& tx, const eth::Signature& signature) {
    eth::rlp::ListBuilder list;
    list.add_uint(tx.chain_id)
        .add_uint(tx.nonce)
        .add_uint(tx.max_priority_fee_per_gas)
        .add_uint(tx.max_fee_per_gas)
        .add_uint(tx.gas_limit)
        .add_bytes(tx.to ? eth::Bytes(tx.to->bytes().begin(), tx.to->bytes().end()) : eth::Bytes{})
        .add_uint(tx.value)
        .add_bytes(tx.data)
        .add_encoded(eth::Bytes{0xc0})
        .add_uint(signature.recovery_id)
        .add_uint(eth::U256::from_be_bytes(signature.r))
        .add_uint(eth::U256::from_be_bytes(signature.s));
    eth::Bytes out{0x02};
    const auto body = list.build();
    out.insert(out.end(), body.begin(), body.end());
    return out;
}

// What a hostile signer makes of the honest `raw` signature of `key`'s account.
std::string alter(const std::string& raw, RemoteSignerStandIn::Answer answer, const std::string& key) {
    using Answer = RemoteSignerStandIn::Answer;
    if (answer == Answer::garbage) return "0x02f8deadbeef";
    auto signed_tx = eth::decode_transaction(eth::from_hex(raw));
    eth::Transaction tx = signed_tx.tx;
    switch (answer) {
    case Answer::other_nonce: tx.nonce += 1; break;
    case Answer::other_to: tx.to = eth::Address::parse("0x000000000000000000000000000000000000dEaD"); break;
    case Answer::other_chain_id: tx.chain_id += 1; break;
    case Answer::other_value: tx.value = tx.value + eth::U256(1); break;
    case Answer::other_data: tx.data.push_back(0); break;
    case Answer::other_fee_cap:
        // A legacy transaction's one fee is its gas price.
        if (tx.type == eth::TxType::legacy)
            tx.gas_price = tx.gas_price + eth::U256(1);
        else
            tx.max_fee_per_gas = tx.max_fee_per_gas + eth::U256(1);
        break;
    case Answer::other_gas: tx.gas_limit += 1; break;
    case Answer::high_s: {
        eth::Signature high = signed_tx.signature;
        high.s = (kCurveOrder - eth::U256::from_be_bytes(high.s)).to_be_bytes32();
        high.recovery_id ^= 1;
        return eth::to_hex(encode_eip1559(tx, high));
    }
    case Answer::other_key: return eth::to_hex(eth::sign_transaction(tx, eth::PrivateKey::generate()).raw);
    default: return raw;
    }
    return eth::to_hex(eth::sign_transaction(tx, eth::PrivateKey::from_hex(key)).raw);
}

}  // namespace

RemoteSignerStandIn::RemoteSignerStandIn(std::string node_url, std::string account_key)
    : node_url_(std::move(node_url)), account_key_(std::move(account_key)) {
    start();
}

RemoteSignerStandIn::~RemoteSignerStandIn() { stop(); }

std::string RemoteSignerStandIn::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

void RemoteSignerStandIn::stop_after(unsigned after) {
    if (after == 0) {
        stop();
        return;
    }
    stop_at_ = signatures_ + after;
}

void RemoteSignerStandIn::stop() {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
}

void RemoteSignerStandIn::start() {
    stop_at_ = 0;
    server_ = std::make_unique<httplib::Server>();
    server_->Post(".*", [this](const httplib::Request& request, httplib::Response& response) { serve(request, response); });
    if (port_ == 0) {
        port_ = server_->bind_to_any_port("127.0.0.1");
    } else if (!server_->bind_to_port("127.0.0.1", port_)) {
        throw Error(ErrorKind::unavailable, "the remote signer stand-in cannot listen on port " + std::to_string(port_) + " again");
    }
    thread_ = std::thread([server = server_.get()] { server->listen_after_bind(); });
    // stop() of a server not yet running does nothing: running before anyone may stop it.
    while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

std::string RemoteSignerStandIn::authorization() const {
    std::lock_guard lock(mutex_);
    return authorization_;
}

void RemoteSignerStandIn::serve(const httplib::Request& request, httplib::Response& response) {
    {
        std::lock_guard lock(mutex_);
        authorization_ = request.get_header_value("Authorization");
    }
    httplib::Client node(node_url_);
    node.set_read_timeout(std::chrono::seconds(10));
    const auto forwarded = node.Post("/", request.body, "application/json");
    if (!forwarded) {
        response.status = 502;
        return;
    }
    json answer = json::parse(forwarded->body, nullptr, false);
    const json asked = json::parse(request.body, nullptr, false);
    if (asked.is_object() && asked.value("method", "") == "eth_signTransaction" && answer.is_object() &&
        answer.contains("result")) {
        answer["result"] = alter(answer["result"].get<std::string>(), answer_, account_key_);
        const unsigned count = ++signatures_;
        // Gone after this answer: the next call finds nothing listening.
        if (stop_at_ != 0 && count >= stop_at_) server_->stop();
    }
    response.set_content(answer.dump(), "application/json");
}

}  // namespace abci::test
