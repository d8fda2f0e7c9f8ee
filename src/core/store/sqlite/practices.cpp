// Practices and their verifications on SQLite.

#include "core/crypto/encoding.hpp"
#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

constexpr const char* kPracticeColumns = "id, farmer_id, title, description, created_at";
Practice read_practice(const Statement& s) {
    return Practice{.id = text(s, "id"),
                    .farmer_id = text(s, "farmer_id"),
                    .title = text(s, "title"),
                    .description = text(s, "description"),
                    .created_at = time_at(s, "created_at")};
}

constexpr const char* kVerificationColumns = "id, practice_id, verifier_id, outcome, notes, created_at";
Verification read_verification(const Statement& s) {
    return Verification{.id = text(s, "id"),
                        .practice_id = text(s, "practice_id"),
                        .verifier_id = text(s, "verifier_id"),
                        .outcome = enum_at(s, "outcome", parse_verification_outcome),
                        .notes = text(s, "notes"),
                        .created_at = time_at(s, "created_at")};
}

class SqlitePractices final : public Practices {
public:
    explicit SqlitePractices(Db& db) : db_(db) {}

    Practice create(const NewPractice& practice) override {
        Practice created{crypto::random_uuid(), practice.farmer_id, practice.title, practice.description,
                         now_millis()};
        db_.run({.not_found = "farmer not found"}, [&](Database& db) {
            execute(db, "INSERT INTO practices (id, farmer_id, title, description, created_at) VALUES (?, ?, ?, ?, ?)",
                    created.id, created.farmer_id, created.title, created.description, to_millis(created.created_at));
        });
        return created;
    }

    std::optional<Practice> find(const std::string& id) override {
        return db_.run({}, [&](Database& db) {
            return query_one(db, select_columns(kPracticeColumns, "FROM practices WHERE id = ?"), read_practice, id);
        });
    }

    std::vector<Practice> of_farmer(const std::string& farmer_id) override {
        return db_.run({}, [&](Database& db) {
            return query_all(db, select_columns(kPracticeColumns, "FROM practices WHERE farmer_id = ? ORDER BY rowid"),
                             read_practice, farmer_id);
        });
    }

    Verification add_verification(const NewVerification& verification) override {
        Verification created{crypto::random_uuid(), verification.practice_id, verification.verifier_id,
                             verification.outcome, verification.notes, now_millis()};
        db_.run({.not_found = "practice or verifier not found"}, [&](Database& db) {
            execute(db,
                    "INSERT INTO verifications (id, practice_id, verifier_id, outcome, notes, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    created.id, created.practice_id, created.verifier_id, created.outcome, created.notes,
                    to_millis(created.created_at));
        });
        return created;
    }

    std::vector<Verification> verifications_of(const std::string& practice_id) override {
        return db_.run({}, [&](Database& db) {
            return query_all(db,
                             select_columns(kVerificationColumns,
                                            "FROM verifications WHERE practice_id = ? ORDER BY rowid"),
                             read_verification, practice_id);
        });
    }

private:
    Db& db_;
};

}  // namespace

std::unique_ptr<Practices> make_practices(Db& db) { return std::make_unique<SqlitePractices>(db); }

}  // namespace abci::store::sqlite
