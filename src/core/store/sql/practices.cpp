// Practices and their verifications.

#include "core/crypto/encoding.hpp"
#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kPracticeColumns = "id, farmer_id, title, description, created_at";
constexpr auto read_practice = [](const auto& row) {
    return Practice{.id = row.text("id"),
                    .farmer_id = row.text("farmer_id"),
                    .title = row.text("title"),
                    .description = row.text("description"),
                    .created_at = row.time_at("created_at")};
};

constexpr const char* kVerificationColumns = "id, practice_id, verifier_id, outcome, notes, created_at";
constexpr auto read_verification = [](const auto& row) {
    return Verification{.id = row.text("id"),
                        .practice_id = row.text("practice_id"),
                        .verifier_id = row.text("verifier_id"),
                        .outcome = row.enum_at("outcome", parse_verification_outcome),
                        .notes = row.text("notes"),
                        .created_at = row.time_at("created_at")};
};

template <class Db>
class SqlPractices final : public Practices {
public:
    explicit SqlPractices(Db& db) : db_(db) {}

    Practice create(const NewPractice& practice) override {
        Practice created{crypto::random_uuid(), practice.farmer_id, practice.title, practice.description,
                         now_millis()};
        db_.run({.not_found = "farmer not found"}, [&](auto& c) {
            execute(c, "INSERT INTO practices (id, farmer_id, title, description, created_at) VALUES (?, ?, ?, ?, ?)",
                    created.id, created.farmer_id, created.title, created.description, to_millis(created.created_at));
        });
        return created;
    }

    std::optional<Practice> find(const std::string& id) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, select_columns(kPracticeColumns, "FROM practices WHERE id = ?"), read_practice, id);
        });
    }

    std::vector<Practice> of_farmer(const std::string& farmer_id) override {
        return db_.run({}, [&](auto& c) {
            return query_all(c, select_columns(kPracticeColumns, "FROM practices WHERE farmer_id = ? ORDER BY rowid"),
                             read_practice, farmer_id);
        });
    }

    Verification add_verification(const NewVerification& verification) override {
        Verification created{crypto::random_uuid(), verification.practice_id, verification.verifier_id,
                             verification.outcome, verification.notes, now_millis()};
        db_.run({.not_found = "practice or verifier not found"}, [&](auto& c) {
            execute(c,
                    "INSERT INTO verifications (id, practice_id, verifier_id, outcome, notes, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    created.id, created.practice_id, created.verifier_id, created.outcome, created.notes,
                    to_millis(created.created_at));
        });
        return created;
    }

    std::vector<Verification> verifications_of(const std::string& practice_id) override {
        return db_.run({}, [&](auto& c) {
            return query_all(c,
                             select_columns(kVerificationColumns,
                                            "FROM verifications WHERE practice_id = ? ORDER BY rowid"),
                             read_verification, practice_id);
        });
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<Practices> make_practices(Db& db) {
    return std::make_unique<SqlPractices<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_practices, Practices)

}  // namespace abci::store::sql
