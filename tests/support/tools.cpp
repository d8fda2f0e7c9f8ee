#include "support/tools.hpp"

#include <catch2/catch.hpp>
#include <deque>
#include <fstream>

namespace abci::test {

std::string tool(const std::string& name) { return source_path("node_modules/.bin/" + name); }

std::string source_path(const std::string& relative) { return std::string(ABCI_SOURCE_DIR) + "/" + relative; }

std::string file_tail(const std::string& path, std::size_t lines) {
    std::ifstream in(path);
    std::deque<std::string> tail;
    for (std::string line; std::getline(in, line);) {
        tail.push_back(std::move(line));
        if (tail.size() > lines) tail.pop_front();
    }
    std::string out;
    for (const auto& line : tail) out += line + "\n";
    return out;
}

std::string cast(const std::vector<std::string>& args, const std::string& input) {
    std::vector<std::string> argv{tool("cast")};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = os::run_command(argv, input);
    INFO("cast " << args.front() << " stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    while (!r.out.empty() && (r.out.back() == '\n' || r.out.back() == '\r')) r.out.pop_back();
    return r.out;
}

}  // namespace abci::test
