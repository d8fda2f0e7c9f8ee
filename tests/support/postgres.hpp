#pragma once
// A real PostgreSQL 15 server (Debian's) for the tests of the PostgreSQL
// store: its cluster in a temporary directory, listening on a free loopback
// port (and a Unix socket in the cluster directory), trust authentication on
// loopback only, fsync off (a test's data need not survive the machine).
// initdb refuses to run as root: when the tests run as root, the cluster
// belongs to `nobody` and the server's programs run through setpriv.
// RAII: the server is stopped (immediate mode) and its directory removed when
// the fixture goes away; a server that does not start fails the test with
// the tail of its log. The cluster is a `cp -a` of one initdb made once per
// build tree (postgres.cpp, template_cluster()): initdb costs a second, the copy
// milliseconds.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/os/process.hpp"
#include "support/cli_runner.hpp"

namespace abci::test {

class Postgres {
public:
    /// The role every test connects as (the cluster's superuser).
    static constexpr const char* user = "abci";

    /// initdb and start; fails the test (Catch2) with the log's tail when the
    /// server does not come up.
    Postgres();
    /// The same on a copy of `cluster`, one that save_cluster() made.
    explicit Postgres(const std::filesystem::path& cluster);
    ~Postgres();
    Postgres(const Postgres&) = delete;
    Postgres& operator=(const Postgres&) = delete;

    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    /// "postgresql://abci@127.0.0.1:<port>/<database>".
    [[nodiscard]] std::string url(const std::string& database = "postgres") const;
    /// Creates an empty database `name` and returns its url().
    std::string create_database(const std::string& name) const;
    /// `psql` on `database` running `sql`, unaligned and without headers: its output.
    std::string psql(const std::string& database, const std::string& sql) const;

    /// Stops the server at once (as a crash: no shutdown checkpoint) and
    /// starts it again on the same port and cluster: `pg_ctl restart -m immediate`.
    void restart_immediate();
    /// Stops the server at once (as a crash), its cluster and port kept: an outage.
    void stop();
    /// Stops the server cleanly (a shutdown checkpoint, so a copy starts
    /// without recovery) and copies its cluster to `to`, by a rename into
    /// place: never seen half made. The fixture is then stopped for good.
    void save_cluster(const std::filesystem::path& to);

private:
    // argv run as the cluster's owner (through setpriv when this process is root).
    [[nodiscard]] std::vector<std::string> as_owner(std::vector<std::string> argv) const;
    [[nodiscard]] std::string log_tail() const;
    [[nodiscard]] os::CommandResult pg_ctl_start() const;
    // Immediate mode by default: as a crash, no shutdown checkpoint.
    [[nodiscard]] os::CommandResult pg_ctl_stop(const char* mode = "immediate") const;
    void start();

    TempDir dir_;
    std::string cluster_;  // dir_/cluster: data, log, socket
    std::uint16_t port_ = 0;
};

}  // namespace abci::test
