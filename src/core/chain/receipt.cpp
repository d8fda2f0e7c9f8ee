#include "core/chain/receipt.hpp"

#include "core/error.hpp"
#include "core/rpc/quantity.hpp"

namespace abci::chain {
namespace {

const nlohmann::json& field(const nlohmann::json& obj, const char* name) {
    auto it = obj.find(name);
    if (it == obj.end() || it->is_null())
        throw Error(ErrorKind::unavailable, std::string("transaction receipt without ") + name);
    return *it;
}

eth::Hash32 hash_field(const nlohmann::json& obj, const char* name) {
    const auto& v = field(obj, name);
    try {
        return eth::from_hex_fixed<32>(v.get<std::string>(), name);
    } catch (const nlohmann::json::exception&) {
        throw Error(ErrorKind::unavailable, std::string("transaction receipt: ") + name + " is not a string");
    } catch (const Error& e) {
        throw Error(ErrorKind::unavailable, std::string("transaction receipt: ") + e.what());
    }
}

}  // namespace

Receipt Receipt::from_json(const nlohmann::json& receipt) {
    if (!receipt.is_object()) throw Error(ErrorKind::unavailable, "transaction receipt is not an object");
    Receipt r;
    r.transaction_hash = hash_field(receipt, "transactionHash");
    r.block_hash = hash_field(receipt, "blockHash");
    r.block_number = rpc::quantity_to_u64(field(receipt, "blockNumber"), "receipt blockNumber");
    r.success = rpc::quantity_to_u64(field(receipt, "status"), "receipt status") == 1;
    r.gas_used = rpc::quantity_to_u64(field(receipt, "gasUsed"), "receipt gasUsed");
    if (auto it = receipt.find("effectiveGasPrice"); it != receipt.end() && !it->is_null())
        r.effective_gas_price = rpc::quantity_to_u256(*it, "receipt effectiveGasPrice");
    if (auto it = receipt.find("contractAddress"); it != receipt.end() && it->is_string()) {
        try {
            r.contract_address = eth::Address::parse(it->get<std::string>());
        } catch (const Error& e) {
            throw Error(ErrorKind::unavailable, std::string("transaction receipt: contractAddress: ") + e.what());
        }
    }
    if (auto it = receipt.find("logs"); it != receipt.end() && it->is_array()) r.logs = *it;
    return r;
}

}  // namespace abci::chain
