#include "core/metrics/process.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <fstream>
#include <sstream>
#include <vector>

namespace abci::metrics {

namespace {

MetricFamily family(std::string name, std::string help, MetricType type, double value) {
    return {std::move(name), std::move(help), type, {Sample{{}, value, {}}}};
}

/// The fields of /proc/self/stat after the command name (which may hold spaces): [0] is field 3, the state.
std::vector<std::string> stat_fields() {
    std::ifstream in("/proc/self/stat");
    std::string line;
    std::getline(in, line);
    std::vector<std::string> fields;
    const auto name_end = line.rfind(')');
    if (name_end == std::string::npos) return fields;
    std::istringstream rest(line.substr(name_end + 1));
    for (std::string field; rest >> field;) fields.push_back(field);
    return fields;
}

/// The system's boot time in seconds since the epoch (/proc/stat btime), or 0.
double boot_time() {
    std::ifstream in("/proc/stat");
    for (std::string key; in >> key;) {
        if (key == "btime") {
            double value = 0;
            in >> value;
            return value;
        }
        in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    return 0;
}

/// Reads the process's figures at each scrape, as client_golang's process collector names them.
class ProcessCollector : public Collectable {
public:
    std::vector<MetricFamily> collect() const override {
        std::vector<MetricFamily> out;
        const auto fields = stat_fields();
        // proc(5): utime, stime are fields 14, 15; starttime 22; vsize 23; rss 24 (fields[n - 3]).
        if (fields.size() >= 22) {
            const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
            const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
            out.push_back(family("process_cpu_seconds_total", "User and system CPU time spent, in seconds.",
                                 MetricType::counter,
                                 (std::stod(fields[11]) + std::stod(fields[12])) / ticks));
            out.push_back(family("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.",
                                 MetricType::gauge, start_time_));
            out.push_back(family("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                                 MetricType::gauge, std::stod(fields[20])));
            out.push_back(family("process_resident_memory_bytes", "Resident memory size in bytes.",
                                 MetricType::gauge, std::stod(fields[21]) * page));
        }
        std::error_code error;
        double open = 0;
        for (std::filesystem::directory_iterator it("/proc/self/fd", error), end; !error && it != end; it.increment(error))
            ++open;
        out.push_back(family("process_open_fds", "Open file descriptors.", MetricType::gauge, open));
        rlimit limit{};
        if (::getrlimit(RLIMIT_NOFILE, &limit) == 0)
            out.push_back(family("process_max_fds", "The most file descriptors the process may open.",
                                 MetricType::gauge, static_cast<double>(limit.rlim_cur)));
        return out;
    }

private:
    // Fixed for the process's life: read once.
    double start_time_ = [] {
        const auto fields = stat_fields();
        return fields.size() >= 20 ? boot_time() + std::stod(fields[19]) / static_cast<double>(::sysconf(_SC_CLK_TCK)) : 0;
    }();
};

}  // namespace

void add_process_metrics(Registry& registry, const std::string& version, const std::string& revision) {
    registry.gauge("abcictl_build_info", "The running build: always 1, its labels name it.")
        .add({{"version", version}, {"revision", revision}})
        .set(1);
    registry.add_collectable(std::make_shared<ProcessCollector>());
}

}  // namespace abci::metrics
