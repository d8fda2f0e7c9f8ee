#pragma once
// Secrets every server on one database must hold alike (the JWT signing key:
// a token one replica issued is checked by another), created by whichever
// server needs one first.

#include <string>

namespace abci::store {

class SharedSecrets {
public:
    virtual ~SharedSecrets() = default;
    /// The secret named `name`; when there is none yet, `candidate` becomes it.
    /// Of servers calling this together, all get the same one (the first stored).
    [[nodiscard]] virtual std::string get_or_create(const std::string& name, const std::string& candidate) = 0;
};

}  // namespace abci::store
