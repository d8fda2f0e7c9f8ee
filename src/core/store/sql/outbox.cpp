#include "core/store/sql/outbox.hpp"

#include "core/crypto/encoding.hpp"

namespace abci::store::sql {

std::string new_event_id() { return "msg_" + crypto::random_token(16); }

}  // namespace abci::store::sql
