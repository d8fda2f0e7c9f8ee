// Entity tokens on SQLite.

#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

constexpr const char* kEntityColumns =
    "id, blockchain_id, entity_type, entity_id, token_id, recipient, amount, cid, metadata, tx_hash, block_number, "
    "created_at";
Entity read_entity(const Statement& s) {
    return Entity{.id = integer(s, "id"),
                  .blockchain_id = text(s, "blockchain_id"),
                  .entity_type = text(s, "entity_type"),
                  .entity_id = text(s, "entity_id"),
                  .token_id = unsigned_integer(s, "token_id"),
                  .recipient = text(s, "recipient"),
                  .amount = unsigned_integer(s, "amount"),
                  .cid = text(s, "cid"),
                  .metadata = text(s, "metadata"),
                  .tx_hash = text(s, "tx_hash"),
                  .block_number = unsigned_integer(s, "block_number"),
                  .created_at = time_at(s, "created_at")};
}

class SqliteEntities final : public Entities {
public:
    explicit SqliteEntities(Db& db) : db_(db) {}

    Entity record(const Entity& entity) override {
        const auto created_at = now_millis();
        return db_.run({}, [&](Database& db) {
            execute(db,
                    "INSERT INTO entities (blockchain_id, entity_type, entity_id, token_id, recipient, amount, cid, "
                    "metadata, tx_hash, block_number, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (blockchain_id, tx_hash) DO NOTHING",
                    entity.blockchain_id, entity.entity_type, entity.entity_id, entity.token_id, entity.recipient,
                    entity.amount, entity.cid, entity.metadata, entity.tx_hash, entity.block_number,
                    to_millis(created_at));
            return *query_one(db,
                              select_columns(kEntityColumns, "FROM entities WHERE blockchain_id = ? AND tx_hash = ?"),
                              read_entity, entity.blockchain_id, entity.tx_hash);
        });
    }

    std::optional<Entity> find(const std::string& blockchain_id, std::uint64_t token_id,
                               const std::optional<std::string>& entity_id) override {
        return db_.run({}, [&](Database& db) {
            return query_one(db,
                             select_columns(kEntityColumns,
                                            "FROM entities WHERE blockchain_id = ?1 AND token_id = ?2 "
                                            "AND (?3 IS NULL OR entity_id = ?3) ORDER BY id DESC LIMIT 1"),
                             read_entity, blockchain_id, token_id, entity_id);
        });
    }

private:
    Db& db_;
};

}  // namespace

std::unique_ptr<Entities> make_entities(Db& db) { return std::make_unique<SqliteEntities>(db); }

}  // namespace abci::store::sqlite
