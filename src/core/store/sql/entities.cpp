// Entity tokens.

#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kEntityColumns =
    "id, blockchain_id, entity_type, entity_id, token_id, recipient, amount, cid, metadata, tx_hash, block_number, "
    "created_at";
constexpr auto read_entity = [](const auto& row) {
    return Entity{.id = row.integer("id"),
                  .blockchain_id = row.text("blockchain_id"),
                  .entity_type = row.text("entity_type"),
                  .entity_id = row.text("entity_id"),
                  .token_id = row.unsigned_integer("token_id"),
                  .recipient = row.text("recipient"),
                  .amount = row.unsigned_integer("amount"),
                  .cid = row.text("cid"),
                  .metadata = row.text("metadata"),
                  .tx_hash = row.text("tx_hash"),
                  .block_number = row.unsigned_integer("block_number"),
                  .created_at = row.time_at("created_at")};
};

template <class Db>
class SqlEntities final : public Entities {
public:
    explicit SqlEntities(Db& db) : db_(db) {}

    Entity record(const Entity& entity) override {
        const auto created_at = now_millis();
        return db_.run({}, [&](auto& c) {
            execute(c,
                    "INSERT INTO entities (blockchain_id, entity_type, entity_id, token_id, recipient, amount, cid, "
                    "metadata, tx_hash, block_number, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (blockchain_id, tx_hash) DO NOTHING",
                    entity.blockchain_id, entity.entity_type, entity.entity_id, entity.token_id, entity.recipient,
                    entity.amount, entity.cid, entity.metadata, entity.tx_hash, entity.block_number,
                    to_millis(created_at));
            return *query_one(c,
                              select_columns(kEntityColumns, "FROM entities WHERE blockchain_id = ? AND tx_hash = ?"),
                              read_entity, entity.blockchain_id, entity.tx_hash);
        });
    }

    std::optional<Entity> find(const std::string& blockchain_id, std::uint64_t token_id,
                               const std::optional<std::string>& entity_id) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c,
                             select_columns(kEntityColumns,
                                            "FROM entities WHERE blockchain_id = ?1 AND token_id = ?2 "
                                            "AND (CAST(?3 AS TEXT) IS NULL OR entity_id = ?3) ORDER BY id DESC LIMIT 1"),
                             read_entity, blockchain_id, token_id, entity_id);
        });
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<Entities> make_entities(Db& db) {
    return std::make_unique<SqlEntities<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_entities, Entities)

}  // namespace abci::store::sql
