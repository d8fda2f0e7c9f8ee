#include "core/chain/token_contract.hpp"

#include "core/eth/keccak.hpp"

#include <nlohmann/json.hpp>

#include "core/chain/contract_artifact.hpp"
#include "core/eth/abi.hpp"

namespace abci::chain {
namespace {

using eth::abi::Value;

struct Artifact {
    eth::Bytes bytecode;
    std::vector<eth::abi::Signature> errors;
};

const Artifact& artifact() {
    static const Artifact loaded = [] {
        const auto json = nlohmann::json::parse(kAbciTokenArtifactJson);
        return Artifact{eth::from_hex(json.at("bytecode").get<std::string>(), "artifact bytecode"),
                        eth::abi::errors_from_json_abi(json.at("abi"))};
    }();
    return loaded;
}

// A refusal by the contract becomes one error naming the operation and the decoded reason.
[[noreturn]] void rethrow_revert(std::string_view what, const rpc::RpcError& error) {
    if (!error.data()) throw;
    const eth::Bytes data = eth::from_hex(*error.data(), "revert data");
    const auto revert = eth::abi::decode_revert(data, artifact().errors);
    // A role the wallet already holds is a conflict of state, not a failure of the chain:
    // also when the holding mint is still pending, which no balance read can see yet.
    const auto kind = revert.name == "RoleTokenAlreadyHeld" ? ErrorKind::conflict : ErrorKind::chain_rejected;
    throw Error(kind, std::string(what) + " reverted: " + revert.message, {error.what()});
}

}  // namespace

TokenContract::TokenContract(ChainClient& chain, const eth::Address& address) : chain_(chain), address_(address) {}

eth::Bytes TokenContract::creation_code(const eth::Address& admin, std::string_view base_uri) {
    eth::Bytes code = artifact().bytecode;
    const std::vector<eth::abi::Type> types = eth::abi::parse_types("address,string");
    const std::vector<Value> args{admin, std::string(base_uri)};
    const eth::Bytes encoded = eth::abi::encode(types, args);
    code.insert(code.end(), encoded.begin(), encoded.end());
    return code;
}

Deployment TokenContract::deploy(TxSender& sender, const eth::Address& admin, std::string_view base_uri,
                                 std::chrono::milliseconds timeout) {
    TxRequest request;
    request.data = creation_code(admin, base_uri);
    request.timeout = timeout;
    Receipt receipt;
    try {
        receipt = sender.submit(std::move(request)).get();
    } catch (const rpc::RpcError& e) {
        rethrow_revert("deployment", e);
    }
    if (!receipt.success || !receipt.contract_address)
        throw Error(ErrorKind::chain_rejected,
                    "deployment transaction " + eth::to_hex(receipt.transaction_hash) + " reverted");
    return {TokenContract(sender.chain(), *receipt.contract_address), receipt};
}

eth::Bytes TokenContract::mint_calldata(const eth::Address& to, std::uint64_t id, std::uint64_t amount,
                                        const eth::Bytes& data) {
    const std::vector<Value> args{to, id, amount, data};
    return eth::abi::encode_call("mint(address,uint256,uint256,bytes)", args);
}

std::future<Receipt> TokenContract::mint(TxSender& sender, const eth::Address& to, std::uint64_t id,
                                         std::uint64_t amount, const eth::Bytes& data, std::string purpose) {
    return submit(sender, "mint", mint_calldata(to, id, amount, data), std::move(purpose));
}

std::future<Receipt> TokenContract::mint_many(TxSender& sender, const std::vector<MintItem>& items,
                                              std::string purpose) {
    Value::List to, ids, amounts, data;
    for (const auto& item : items) {
        to.emplace_back(item.to);
        ids.emplace_back(item.id);
        amounts.emplace_back(item.amount);
        data.emplace_back(item.data);
    }
    const std::vector<Value> args{std::move(to), std::move(ids), std::move(amounts), std::move(data)};
    return submit(sender, "mintMany",
                  eth::abi::encode_call("mintMany(address[],uint256[],uint256[],bytes[])", args), std::move(purpose));
}

std::future<Receipt> TokenContract::transfer(TxSender& sender, const eth::Address& to, std::uint64_t id,
                                             std::uint64_t amount) {
    const std::vector<Value> args{sender.address(), to, id, amount, eth::Bytes{}};
    return submit(sender, "transfer",
                  eth::abi::encode_call("safeTransferFrom(address,address,uint256,uint256,bytes)", args));
}

std::future<Receipt> TokenContract::submit(TxSender& sender, std::string_view what, eth::Bytes calldata,
                                           std::string purpose) {
    TxRequest request;
    request.to = address_;
    request.data = std::move(calldata);
    request.purpose = std::move(purpose);
    try {
        return sender.submit(std::move(request));
    } catch (const rpc::RpcError& e) {
        rethrow_revert(what, e);
    }
}

std::vector<Value> TokenContract::view(std::string_view signature, std::span<const Value> args) {
    eth::Bytes out;
    try {
        out = chain_.call({std::nullopt, address_, eth::U256{}, eth::abi::encode_call(signature, args)});
    } catch (const rpc::RpcError& e) {
        rethrow_revert(signature, e);
    }
    try {
        return eth::abi::decode_output(signature, out);
    } catch (const Error& e) {
        // What the node answered is not our caller's input: no code at the
        // address (a chain being reset), or another contract there.
        throw Error(ErrorKind::unavailable,
                    "the contract at " + address_.checksummed() + " gave an unreadable answer to " + std::string(signature),
                    {e.what()});
    }
}

bool TokenContract::is_deployed() { return !chain_.code_at(address_).empty(); }

std::string TokenContract::version() { return view("version()(string)", {}).at(0).as_string(); }

bool TokenContract::is_minter(const eth::Address& account) {
    const auto role = eth::keccak256(std::string_view("MINTER_ROLE"));
    const std::vector<Value> args{eth::Bytes(role.begin(), role.end()), account};
    return view("hasRole(bytes32,address)(bool)", args).at(0).as_bool();
}

std::uint64_t TokenContract::deployed_at() { return view("deployedAt()(uint256)", {}).at(0).as_uint().to_u64(); }

eth::U256 TokenContract::balance_of(const eth::Address& owner, std::uint64_t id) {
    const std::vector<Value> args{owner, id};
    return view("balanceOf(address,uint256)(uint256)", args).at(0).as_uint();
}

std::vector<eth::U256> TokenContract::balance_of_batch(const std::vector<eth::Address>& owners,
                                                       const std::vector<std::uint64_t>& ids) {
    const std::vector<Value> args{Value::List(owners.begin(), owners.end()), Value::List(ids.begin(), ids.end())};
    const auto outputs = view("balanceOfBatch(address[],uint256[])(uint256[])", args);
    std::vector<eth::U256> balances;
    for (const auto& v : outputs.at(0).as_list()) balances.push_back(v.as_uint());
    return balances;
}

std::string TokenContract::describe_revert(eth::ByteView data) {
    return eth::abi::decode_revert(data, artifact().errors).message;
}

}  // namespace abci::chain
