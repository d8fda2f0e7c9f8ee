// Mints queued for the server that sends for their chain.

#include <nlohmann/json.hpp>

#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

template <class Db>
class SqlMintJobs final : public MintJobs {
public:
    explicit SqlMintJobs(Db& db) : db_(db) {}

    std::vector<std::string> queued(const std::string& blockchain_id, std::size_t limit) override {
        return db_.run({}, [&](auto& c) {
            return query_all(c, "SELECT mint_id FROM mint_jobs WHERE blockchain_id = ? ORDER BY rowid LIMIT ?",
                             [](const auto& row) { return row.text("mint_id"); }, blockchain_id,
                             static_cast<std::int64_t>(limit));
        });
    }

    std::vector<MintJob> find_all(const std::vector<std::string>& mint_ids) override {
        if (mint_ids.empty()) return {};
        // The ids bound as one JSON parameter: the statement stays prepared, never spliced.
        const std::string wanted = nlohmann::json(mint_ids).dump();
        return db_.run({}, [&](auto& c) {
            return query_all(c,
                             "SELECT mint_id, blockchain_id, record, content, created_at FROM mint_jobs "
                             "WHERE mint_id IN (" + Db::json_array_values("?") + ") ORDER BY rowid",
                             [](const auto& row) {
                                 return MintJob{.mint_id = row.text("mint_id"),
                                                .blockchain_id = row.text("blockchain_id"),
                                                .record = row.text("record"),
                                                .content = row.text("content"),
                                                .created_at = row.time_at("created_at")};
                             },
                             wanted);
        });
    }

    bool is_queued(const std::string& mint_id) override {
        return db_.run({}, [&](auto& c) { return exists(c, "SELECT 1 FROM mint_jobs WHERE mint_id = ?", mint_id); });
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<MintJobs> make_mint_jobs(Db& db) {
    return std::make_unique<SqlMintJobs<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_mint_jobs, MintJobs)

}  // namespace abci::store::sql
