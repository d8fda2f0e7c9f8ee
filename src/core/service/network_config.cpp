#include "core/service/network_config.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/rpc/url.hpp"

namespace abci::service {

namespace {

bool is_slug(const std::string& id) {
    const auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    return !id.empty() && id.size() <= 63 && lower_or_digit(id.front()) &&
           std::all_of(id.begin(), id.end(), [&](char c) { return lower_or_digit(c) || c == '-'; });
}

}  // namespace

const char* to_string(NetworkStatus status) noexcept {
    switch (status) {
        case NetworkStatus::active: return "active";
        case NetworkStatus::testnet: return "testnet";
        case NetworkStatus::disabled: return "disabled";
    }
    return "active";
}

std::optional<NetworkStatus> parse_network_status(const std::string& text) noexcept {
    for (const auto status : {NetworkStatus::active, NetworkStatus::testnet, NetworkStatus::disabled})
        if (text == to_string(status)) return status;
    return std::nullopt;
}

void validate(const NetworkConfig& config) {
    // The id may itself be what is wrong, so it is shown quoted as given.
    const std::string entry = "network '" + config.id + "'";
    const auto refuse = [&](const std::string& field, const std::string& why) {
        throw Error(ErrorKind::invalid_input, entry + ": " + field + " " + why);
    };
    if (!is_slug(config.id))
        refuse("id", "must be 1-63 characters of a-z, 0-9 and '-', starting with a letter or digit");
    if (config.name.empty()) refuse("name", "must not be empty");
    if (config.chain_id == 0) refuse("chainId", "must be a positive integer");
    if (config.rpc_urls.empty()) refuse("rpcUrls", "must name at least one http(s) URL");
    for (std::size_t i = 0; i < config.rpc_urls.size(); ++i) {
        try {
            (void)rpc::parse_url(config.rpc_urls[i]);
        } catch (const Error& e) {
            refuse("rpcUrls[" + std::to_string(i) + "]", std::string("is not usable: ") + e.what());
        }
    }
    if (!config.contract_address.empty()) {
        try {
            (void)eth::Address::parse(config.contract_address);
        } catch (const Error& e) {
            refuse("contractAddress", std::string("is not an address: ") + e.what());
        }
    }
    if (config.confirmations < 1) refuse("confirmations", "must be at least 1");
}

}  // namespace abci::service
