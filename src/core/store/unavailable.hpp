#pragma once
// The store's database cannot be reached: refused, lost, or shutting down.
// Its message names the database (host, port, database name) for the
// operator — the log, the admin commands — and a front end that answers the
// public says only that the service is unavailable (serve/http_error.cpp).

#include <string>

#include "core/error.hpp"

namespace abci::store {

class DatabaseUnavailable : public Error {
public:
    explicit DatabaseUnavailable(std::string message) : Error(ErrorKind::unavailable, std::move(message)) {}
};

}  // namespace abci::store
