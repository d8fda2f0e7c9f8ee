#include "core/metrics/exposition.hpp"

#include <dlfcn.h>

#include <filesystem>

#include "core/error.hpp"

namespace abci::metrics {

namespace {

[[noreturn]] void unloadable(const std::string& path, const char* why) {
    throw Error(ErrorKind::unavailable, "the metrics library " + path + " cannot be loaded (" +
                                            (why ? why : "no reason given") +
                                            "): reinstall abcictl, or leave metrics.listen empty");
}

}  // namespace

Exposer::Exposer(const std::string& path) : handle_(::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    if (!handle_) unloadable(path, ::dlerror());
    expose_ = reinterpret_cast<ExposeFunction>(::dlsym(handle_, kExposeSymbol));
    if (!expose_) {
        const char* error = ::dlerror();
        const std::string why = error ? error : std::string("no ") + kExposeSymbol + " in it";
        ::dlclose(handle_);
        unloadable(path, why.c_str());
    }
}

Exposer::~Exposer() { ::dlclose(handle_); }

Exposition Exposer::expose(const std::vector<MetricFamily>& families, std::string_view accept) const {
    Exposition out;
    expose_(families, accept, out);
    return out;
}

std::string Exposer::default_path() {
    std::error_code error;
    const auto binary = std::filesystem::read_symlink("/proc/self/exe", error);
    return (binary.parent_path() / ABCI_METRICS_LIBRARY).lexically_normal().string();
}

}  // namespace abci::metrics
