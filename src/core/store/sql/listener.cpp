// Listening for the other servers' wake-ups (notifications.hpp).

#include <thread>

#include "core/store/sql/backends.hpp"
#include "core/util/log.hpp"

namespace abci::store::sql {
namespace {

// LISTEN on a connection of its own, outside the pool: a pooled connection
// would hear its notifications only when some request happens to use it.
class PostgresqlListener final : public Listener {
public:
    PostgresqlListener(postgresql::Db& db, std::vector<std::string> channels) : db_(db), channels_(std::move(channels)) {}

    std::vector<Notification> wait(std::chrono::milliseconds timeout) override {
        try {
            if (!connection_ || connection_->broken()) listen();
            return connection_->notifications(timeout);
        } catch (const Error& e) {
            // The database restarted or is unreachable: the waiters' own looks
            // cover what is missed until the next call listens anew.
            if (connection_) util::log(util::LogLevel::warning, "lost the connection that listens for other servers",
                                       {{"error", e.what()}});
            connection_.reset();
            std::this_thread::sleep_for(timeout);
            return {};
        }
    }

private:
    void listen() {
        connection_ = db_.dedicated_connection();
        // A channel is an identifier, not a parameter: ours are constants, quoted.
        for (const auto& channel : channels_) (void)connection_->exec("LISTEN \"" + channel + "\"");
    }

    postgresql::Db& db_;
    const std::vector<std::string> channels_;
    std::unique_ptr<postgresql::Connection> connection_;
};

}  // namespace

template <class Db>
std::unique_ptr<Listener> make_listener(Db& db, const std::vector<std::string>& channels) {
    if constexpr (std::is_same_v<Db, postgresql::Db>)
        return std::make_unique<PostgresqlListener>(db, channels);
    else
        return nullptr;  // one server per SQLite database: nobody else to hear
}

template std::unique_ptr<Listener> make_listener(sqlite::Db& db, const std::vector<std::string>& channels);
template std::unique_ptr<Listener> make_listener(postgresql::Db& db, const std::vector<std::string>& channels);

}  // namespace abci::store::sql
