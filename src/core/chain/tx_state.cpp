#include "core/chain/tx_state.hpp"

#include <array>
#include <utility>

namespace abci::chain {

namespace {

constexpr std::array<std::pair<TxStatus, const char*>, 7> kNames{{
    {TxStatus::pending, "pending"},
    {TxStatus::mined, "mined"},
    {TxStatus::reverted, "reverted"},
    {TxStatus::replaced, "replaced"},
    {TxStatus::dropped, "dropped"},
    {TxStatus::refused, "refused"},
    {TxStatus::abandoned, "abandoned"},
}};

}  // namespace

const char* to_string(TxStatus status) noexcept {
    for (const auto& [s, name] : kNames)
        if (s == status) return name;
    return "pending";
}

std::optional<TxStatus> parse_tx_status(std::string_view name) noexcept {
    for (const auto& [s, n] : kNames)
        if (name == n) return s;
    return std::nullopt;
}

}  // namespace abci::chain
