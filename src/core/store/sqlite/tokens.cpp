// The token ledger on SQLite: balances written by the service's mints and
// reconciled with the chain.

#include <SQLiteCpp/Savepoint.h>
#include <SQLiteCpp/Transaction.h>

#include <exception>

#include "core/eth/u256.hpp"
#include "core/store/sqlite/sqlite.hpp"
#include "core/util/combiner.hpp"

namespace abci::store::sqlite {
namespace {

constexpr const char* kTokenBalanceColumns =
    "blockchain_id, address, token_id, balance, token_type, category, tx_hash, block_number, minted_at, "
    "last_minted, last_updated, last_synced";
TokenBalance read_token_balance(const Statement& s) {
    return TokenBalance{.blockchain_id = text(s, "blockchain_id"),
                        .address = text(s, "address"),
                        .token_id = unsigned_integer(s, "token_id"),
                        .balance = text(s, "balance"),
                        .token_type = text(s, "token_type"),
                        .category = text(s, "category"),
                        .tx_hash = text(s, "tx_hash"),
                        .block_number = unsigned_integer(s, "block_number"),
                        .minted_at = optional_time_at(s, "minted_at"),
                        .last_minted = optional_time_at(s, "last_minted"),
                        .last_updated = time_at(s, "last_updated"),
                        .last_synced = optional_time_at(s, "last_synced")};
}

/// The stored balance, if the wallet has a row for the token.
std::optional<std::string> held_balance(Database& db, const std::string& blockchain_id, const std::string& address,
                                        std::uint64_t token_id) {
    return query_one(db, "SELECT balance FROM token_balances WHERE blockchain_id = ? AND address = ? AND token_id = ?",
                     [](const Statement& s) { return text(s, "balance"); }, blockchain_id, address, token_id);
}

/// Adds one mint to token_balances unless its transaction was added
/// already (a mint is recorded once per transaction, whoever retries).
void add_mint(Database& db, const MintRecord& mint) {
    const eth::U256 amount = eth::U256::parse(mint.amount);
    const std::int64_t time = to_millis(mint.time);
    if (execute(db,
                "INSERT INTO mints (blockchain_id, tx_hash, address, token_id, amount, recorded_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                mint.blockchain_id, mint.tx_hash, mint.address, mint.token_id, amount.to_dec(),
                to_millis(now_millis())) == 0) {
        return;  // already added
    }
    const auto held = held_balance(db, mint.blockchain_id, mint.address, mint.token_id);
    const eth::U256 before = held ? eth::U256::parse(*held) : eth::U256{};
    const eth::U256 after = before + amount;
    if (after < before) throw Error(ErrorKind::invalid_input, "the minted balance would exceed 2^256-1");
    execute(db,
            "INSERT INTO token_balances (blockchain_id, address, token_id, balance, token_type, category, "
            "tx_hash, block_number, minted_at, last_minted, last_updated) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?9) "
            "ON CONFLICT (blockchain_id, address, token_id) DO UPDATE SET balance = ?4, token_type = ?5, "
            "category = ?6, tx_hash = ?7, block_number = ?8, minted_at = coalesce(minted_at, ?9), "
            "last_minted = ?9, last_updated = ?9",
            mint.blockchain_id, mint.address, mint.token_id, after.to_dec(), mint.token_type, mint.category,
            mint.tx_hash, mint.block_number, time);
}

class SqliteTokenLedger final : public TokenLedger {
public:
    explicit SqliteTokenLedger(Db& db) : db_(db) {}

    void record_mint(const MintRecord& mint) override {
        if (const auto error = writer_.submit(mint)) std::rethrow_exception(error);
    }

    std::optional<TokenBalance> find_balance(const std::string& blockchain_id, const std::string& address,
                                             std::uint64_t token_id) override {
        return db_.run({}, [&](Database& db) {
            return query_one(
                db,
                select_columns(kTokenBalanceColumns,
                               "FROM token_balances WHERE blockchain_id = ? AND address = ? AND token_id = ?"),
                read_token_balance, blockchain_id, address, token_id);
        });
    }

    std::vector<TokenBalance> balances_of(const std::string& blockchain_id, const std::string& address) override {
        // Ids of 2^63 and above are stored negative: "token_id < 0" sorts them last.
        return db_.run({}, [&](Database& db) {
            return query_all(db,
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
        db_.run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            for (std::size_t i = 0; i < balances.size(); ++i) {
                const ChainBalance& b = balances[i];
                if (!held_balance(db, blockchain_id, address, b.token_id)) {
                    if (on_chain[i] == "0") continue;
                    execute(db,
                            "INSERT INTO token_balances (blockchain_id, address, token_id, balance, token_type, "
                            "category, tx_hash, block_number, last_updated, last_synced) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, '', 0, ?7, ?7)",
                            blockchain_id, address, b.token_id, on_chain[i], b.token_type, b.category, time);
                } else {
                    // Stored balances are canonical, so equal values are equal strings.
                    execute(db,
                            "UPDATE token_balances SET last_synced = ?5, "
                            "last_updated = CASE WHEN balance = ?4 THEN last_updated ELSE ?5 END, balance = ?4 "
                            "WHERE blockchain_id = ?1 AND address = ?2 AND token_id = ?3",
                            blockchain_id, address, b.token_id, on_chain[i], time);
                }
            }
            tx.commit();
        });
    }

private:
    // The mints of one block are answered at once: recording them one
    // transaction each queued their requests behind each other on the write
    // lock. Concurrent ones share a transaction, each in a savepoint of its
    // own, so one that fails (its error goes to its caller) undoes only itself.
    std::vector<std::exception_ptr> write(const std::vector<MintRecord>& mints) {
        std::vector<std::exception_ptr> errors(mints.size());
        db_.run({}, [&](Database& db) {
            SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
            for (std::size_t i = 0; i < mints.size(); ++i) {
                SQLite::Savepoint savepoint(db, "mint");
                try {
                    add_mint(db, mints[i]);
                    savepoint.release();
                } catch (const SQLite::Exception& e) {
                    savepoint.rollback();
                    errors[i] = std::make_exception_ptr(translate(e, {}));
                } catch (...) {
                    savepoint.rollback();
                    errors[i] = std::current_exception();
                }
            }
            tx.commit();
        });
        return errors;
    }

    Db& db_;
    util::Combiner<MintRecord, std::exception_ptr> writer_{
        [this](std::vector<MintRecord>& batch) { return write(batch); }, 512};
};

}  // namespace

std::unique_ptr<TokenLedger> make_token_ledger(Db& db) { return std::make_unique<SqliteTokenLedger>(db); }

}  // namespace abci::store::sqlite
