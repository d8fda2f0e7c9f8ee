// The token ledger: balances written by the service's mints and
// reconciled with the chain.

#include <exception>

#include "core/eth/u256.hpp"
#include "core/store/sql/backends.hpp"
#include "core/util/combiner.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kTokenBalanceColumns =
    "blockchain_id, address, token_id, balance, token_type, category, tx_hash, block_number, minted_at, "
    "last_minted, last_updated, last_synced";
constexpr auto read_token_balance = [](const auto& row) {
    return TokenBalance{.blockchain_id = row.text("blockchain_id"),
                        .address = row.text("address"),
                        .token_id = row.unsigned_integer("token_id"),
                        .balance = row.text("balance"),
                        .token_type = row.text("token_type"),
                        .category = row.text("category"),
                        .tx_hash = row.text("tx_hash"),
                        .block_number = row.unsigned_integer("block_number"),
                        .minted_at = row.optional_time_at("minted_at"),
                        .last_minted = row.optional_time_at("last_minted"),
                        .last_updated = row.time_at("last_updated"),
                        .last_synced = row.optional_time_at("last_synced")};
};

/// The stored balance, if the wallet has a row for the token.
template <class Connection>
std::optional<std::string> held_balance(Connection& c, const std::string& blockchain_id, const std::string& address,
                                        std::uint64_t token_id) {
    return query_one(c, "SELECT balance FROM token_balances WHERE blockchain_id = ? AND address = ? AND token_id = ?",
                     [](const auto& row) { return row.text("balance"); }, blockchain_id, address, token_id);
}

/// Adds one mint to token_balances unless its transaction was added
/// already (a mint is recorded once per transaction, whoever retries).
template <class Connection>
void add_mint(Connection& c, const MintRecord& mint) {
    const eth::U256 amount = eth::U256::parse(mint.amount);
    const std::int64_t time = to_millis(mint.time);
    if (execute(c,
                "INSERT INTO mints (blockchain_id, tx_hash, address, token_id, amount, recorded_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                mint.blockchain_id, mint.tx_hash, mint.address, mint.token_id, amount.to_dec(),
                to_millis(now_millis())) == 0) {
        return;  // already added
    }
    const auto held = held_balance(c, mint.blockchain_id, mint.address, mint.token_id);
    const eth::U256 before = held ? eth::U256::parse(*held) : eth::U256{};
    const eth::U256 after = before + amount;
    if (after < before) throw Error(ErrorKind::invalid_input, "the minted balance would exceed 2^256-1");
    execute(c,
            "INSERT INTO token_balances (blockchain_id, address, token_id, balance, token_type, category, "
            "tx_hash, block_number, minted_at, last_minted, last_updated) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?9) "
            "ON CONFLICT (blockchain_id, address, token_id) DO UPDATE SET balance = ?4, token_type = ?5, "
            "category = ?6, tx_hash = ?7, block_number = ?8, minted_at = coalesce(token_balances.minted_at, ?9), "
            "last_minted = ?9, last_updated = ?9",
            mint.blockchain_id, mint.address, mint.token_id, after.to_dec(), mint.token_type, mint.category,
            mint.tx_hash, mint.block_number, time);
}

template <class Db>
class SqlTokenLedger final : public TokenLedger {
public:
    explicit SqlTokenLedger(Db& db) : db_(db) {}

    void record_mint(const MintRecord& mint) override {
        if (const auto error = writer_.submit(mint)) std::rethrow_exception(error);
    }

    std::optional<TokenBalance> find_balance(const std::string& blockchain_id, const std::string& address,
                                             std::uint64_t token_id) override {
        return db_.run({}, [&](auto& c) {
            return query_one(
                c,
                select_columns(kTokenBalanceColumns,
                               "FROM token_balances WHERE blockchain_id = ? AND address = ? AND token_id = ?"),
                read_token_balance, blockchain_id, address, token_id);
        });
    }

    std::vector<TokenBalance> balances_of(const std::string& blockchain_id, const std::string& address) override {
        // Ids of 2^63 and above are stored negative: "token_id < 0" sorts them last.
        return db_.run({}, [&](auto& c) {
            return query_all(c,
                             select_columns(kTokenBalanceColumns,
                                            "FROM token_balances WHERE blockchain_id = ? AND address = ? AND "
                                            "balance <> '0' ORDER BY token_id < 0, token_id"),
                             read_token_balance, blockchain_id, address);
        });
    }

    void sync_balances(const std::string& blockchain_id, const std::string& address,
                       const std::vector<ChainBalance>& balances, TimePoint now) override {
        std::vector<std::string> on_chain;
        on_chain.reserve(balances.size());
        for (const ChainBalance& b : balances) on_chain.push_back(canonical_decimal(b.balance));
        const std::int64_t time = to_millis(now);
        db_.transaction({}, [&](auto& c) {
            for (std::size_t i = 0; i < balances.size(); ++i) {
                const ChainBalance& b = balances[i];
                if (!held_balance(c, blockchain_id, address, b.token_id)) {
                    if (on_chain[i] == "0") continue;
                    execute(c,
                            "INSERT INTO token_balances (blockchain_id, address, token_id, balance, token_type, "
                            "category, tx_hash, block_number, last_updated, last_synced) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, '', 0, ?7, ?7)",
                            blockchain_id, address, b.token_id, on_chain[i], b.token_type, b.category, time);
                } else {
                    // Stored balances are canonical, so equal values are equal strings.
                    execute(c,
                            "UPDATE token_balances SET last_synced = ?5, "
                            "last_updated = CASE WHEN balance = ?4 THEN last_updated ELSE ?5 END, balance = ?4 "
                            "WHERE blockchain_id = ?1 AND address = ?2 AND token_id = ?3",
                            blockchain_id, address, b.token_id, on_chain[i], time);
                }
            }
        });
    }

private:
    // The mints of one block are answered at once: recording them one
    // transaction each queued their requests behind each other on the write
    // lock. Concurrent ones share a transaction, each in a savepoint of its
    // own, so one that fails (its error goes to its caller) undoes only itself.
    std::vector<std::exception_ptr> write(const std::vector<MintRecord>& mints) {
        std::vector<std::exception_ptr> errors(mints.size());
        db_.transaction({}, [&](auto& c) {
            for (std::size_t i = 0; i < mints.size(); ++i)
                errors[i] = savepoint(c, [&] { add_mint(c, mints[i]); });
        });
        return errors;
    }

    Db& db_;
    util::Combiner<MintRecord, std::exception_ptr> writer_{
        [this](std::vector<MintRecord>& batch) { return write(batch); }, 512};
};

}  // namespace

template <class Db>
std::unique_ptr<TokenLedger> make_token_ledger(Db& db) {
    return std::make_unique<SqlTokenLedger<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_token_ledger, TokenLedger)

}  // namespace abci::store::sql
