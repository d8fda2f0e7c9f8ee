#pragma once
// The abcictl commands that core's messages name as the next step, written
// once so that every message about the same situation gives the same words.

#include <string>
#include <string_view>

namespace abci::util {

/// `abcictl admin user link-wallet --email EMAIL --address ADDRESS [STORE]`,
/// in backquotes; `store` the arguments that reach the store meant (see
/// AbciService), when the reader is one who runs it there.
inline std::string link_wallet_command(std::string_view email, std::string_view address, std::string_view store = {}) {
    return "`abcictl admin user link-wallet --email " + std::string(email) + " --address " + std::string(address) +
           (store.empty() ? "" : " " + std::string(store)) + "`";
}

/// `abcictl mint-role --address ADDRESS --role ROLE --chain CHAIN`, in backquotes.
inline std::string mint_role_command(std::string_view address, std::string_view role, std::string_view chain) {
    return "`abcictl mint-role --address " + std::string(address) + " --role " + std::string(role) + " --chain " +
           std::string(chain) + "`";
}

}  // namespace abci::util
