#include "support/postgres.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/os/process.hpp"
#include "support/tools.hpp"
#include "support/unprivileged.hpp"

namespace abci::test {
namespace {

namespace fs = std::filesystem;

// Debian keeps the server's programs out of PATH, one folder per major version.
constexpr const char* kBinDir = "/usr/lib/postgresql/15/bin";

std::string program(const std::string& name) { return std::string(kBinDir) + "/" + name; }

os::CommandResult run_checked(const std::vector<std::string>& argv, const std::string& what) {
    auto r = os::run_command(argv, {}, std::chrono::seconds(60));
    INFO(what << " exited " << r.exit_code << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    return r;
}

// argv run as the cluster's owner (nobody when this process is root).
std::vector<std::string> owned(std::vector<std::string> argv) { return unprivileged(std::move(argv)); }

// An empty directory `cluster` in `parent` for initdb, its owner's (the
// parent opened for traversal when the owner is nobody).
void prepare_cluster_dir(const fs::path& parent, const std::string& cluster) {
    if (::geteuid() != 0) return;
    // The cluster's owner must reach it: the parent opens for traversal, the
    // cluster itself stays the owner's alone (initdb's 0700).
    let_unprivileged_traverse(parent);
    fs::create_directory(cluster);
    give_to_unprivileged(cluster);
}

void initdb(const std::string& cluster) {
    run_checked(owned({program("initdb"), "-D", cluster, "-U", Postgres::user, "--auth=trust", "-E", "UTF8",
                       "--locale=C", "--no-sync", "--no-instructions"}),
                "initdb");
}

// `cluster` copied to `to` (ownership and modes kept) under another name
// first, then renamed: never seen half made.
void copy_into_place(const fs::path& cluster, const fs::path& to) {
    const auto staged = to.string() + ".staging-" + std::to_string(::getpid());
    fs::remove_all(staged);
    run_checked({"cp", "-a", cluster.string(), staged}, "cp -a of a cluster");
    fs::rename(staged, to);
}

// initdb costs about a second of a core per cluster and every cluster it
// makes is the same: it runs once per build tree (under a lock shared by the
// suites' processes), into a template each fixture copies with `cp -a`
// (ownership and modes kept), which takes a few milliseconds. The copy is
// never started before it is copied: no postmaster.pid, no port in it.
fs::path template_cluster() {
    const fs::path cache = test_cache_dir();
    fs::create_directories(cache);
    const auto cluster = cache / (std::string("postgres-15-") + (::geteuid() == 0 ? "nobody" : "self"));
    const int lock = ::open((cache / "postgres-template.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    REQUIRE(lock >= 0);
    ::flock(lock, LOCK_EX);  // released by close, also if this process dies
    struct Unlock {
        int fd;
        ~Unlock() { ::close(fd); }
    } unlock{lock};
    if (fs::exists(cluster / "PG_VERSION")) return cluster;
    // initdb in a scratch directory (as the tests' clusters, reachable by
    // their owner), then into the cache by a rename: never seen half made.
    const TempDir scratch;
    const auto made = (scratch.path() / "cluster").string();
    prepare_cluster_dir(scratch.path(), made);
    initdb(made);
    copy_into_place(made, cluster);
    return cluster;
}

}  // namespace

Postgres::Postgres() : Postgres(template_cluster()) {}

Postgres::Postgres(const fs::path& cluster) : cluster_((dir_.path() / "cluster").string()) {
    REQUIRE(fs::exists(program("initdb")));  // scripts/setup installs postgresql-15
    let_unprivileged_traverse(dir_.path());
    run_checked({"cp", "-a", cluster.string(), cluster_}, "cp -a of the template cluster");
    start();
}

void Postgres::save_cluster(const fs::path& to) {
    const auto stopped = pg_ctl_stop("fast");
    INFO(stopped.out << stopped.err);
    REQUIRE(stopped.exit_code == 0);
    port_ = 0;
    copy_into_place(cluster_, to);
}

Postgres::~Postgres() {
    if (port_ == 0) return;
    try {
        (void)pg_ctl_stop();
    } catch (const Error&) {
        // The directory goes below; a server left behind has lost its files and ends.
    }
}

std::vector<std::string> Postgres::as_owner(std::vector<std::string> argv) const { return owned(std::move(argv)); }

os::CommandResult Postgres::pg_ctl_stop(const char* mode) const {
    return os::run_command(as_owner({program("pg_ctl"), "stop", "-D", cluster_, "-m", mode, "-w"}), {},
                           std::chrono::seconds(30));
}

os::CommandResult Postgres::pg_ctl_start() const {
    // fsync off: what a commit wrote reaches the kernel, which outlives any
    // crash of the server's processes (the tests' crashes); only a crash of
    // the machine would lose it. Commits stay synchronous for that reason.
    const auto options = fmt::format("-p {} -c listen_addresses=127.0.0.1 -k {} -c fsync=off", port_, cluster_);
    return os::run_command(as_owner({program("pg_ctl"), "start", "-D", cluster_, "-l", cluster_ + "/log", "-w", "-t",
                                     "30", "-o", options}),
                           {}, std::chrono::seconds(40));
}

void Postgres::start() {
    // The port is free when picked but may be taken before the server binds it: try another.
    for (int attempt = 0; attempt < 3; ++attempt) {
        port_ = os::free_loopback_port();
        if (pg_ctl_start().exit_code == 0) return;
    }
    INFO(log_tail());
    FAIL("PostgreSQL did not start");
}

void Postgres::restart_immediate() {
    stop();
    const auto started = pg_ctl_start();
    INFO(log_tail());
    REQUIRE(started.exit_code == 0);
}

void Postgres::stop() {
    const auto stopped = pg_ctl_stop();
    INFO(stopped.out << stopped.err);
    REQUIRE(stopped.exit_code == 0);
}

std::string Postgres::url(const std::string& database) const {
    return fmt::format("postgresql://{}@127.0.0.1:{}/{}", user, port_, database);
}

std::string Postgres::create_database(const std::string& name) const {
    (void)psql("postgres", "CREATE DATABASE \"" + name + "\"");
    return url(name);
}

std::string Postgres::psql(const std::string& database, const std::string& sql) const {
    return run_checked({"psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url(database), "-c", sql}, "psql").out;
}

std::string Postgres::log_tail() const {
    std::ifstream in(cluster_ + "/log");
    std::stringstream all;
    all << in.rdbuf();
    const auto text = all.str();
    const auto from = text.size() > 4000 ? text.size() - 4000 : 0;
    return fmt::format("---- PostgreSQL on port {}, last lines of {}/log ----\n{}\n", port_, cluster_, text.substr(from));
}

}  // namespace abci::test
