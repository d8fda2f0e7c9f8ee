#pragma once
// Both backends, for the repositories' instantiations: each repository file
// ends with ABCI_STORE_REPOSITORY(its factory, its interface).

#include "core/store/postgresql/pg.hpp"
#include "core/store/sqlite/sqlite.hpp"

#define ABCI_STORE_REPOSITORY(factory, Repository)                     \
    template std::unique_ptr<Repository> factory(sqlite::Db& db);     \
    template std::unique_ptr<Repository> factory(postgresql::Db& db);
