#pragma once
// The abcictl commands that core's messages name as the next step, written
// once so that every message about the same situation gives the same words.

#include <string>
#include <string_view>

namespace abci::util {

/// `abcictl admin user link-wallet --email EMAIL --address ADDRESS`, in backquotes.
inline std::string link_wallet_command(std::string_view email, std::string_view address) {
    return "`abcictl admin user link-wallet --email " + std::string(email) + " --address " + std::string(address) + "`";
}

/// `abcictl mint-role --address ADDRESS --role ROLE --chain CHAIN`, in backquotes.
inline std::string mint_role_command(std::string_view address, std::string_view role, std::string_view chain) {
    return "`abcictl mint-role --address " + std::string(address) + " --role " + std::string(role) + " --chain " +
           std::string(chain) + "`";
}

}  // namespace abci::util
