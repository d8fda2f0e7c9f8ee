// What a command of the command line costs at start-up (issue 32 item 6): no
// library of the metrics exposition. prometheus-cpp is loaded by `serve`
// alone, when its metrics listener is on (tests/serve/metrics_library_test.cpp);
// the loader's own report (LD_DEBUG=files) names every file it maps, needed
// or dlopen'ed, for the whole run of the command.

#include "cli/client_test.hpp"
#include "support/serve.hpp"

namespace abci::test::client {

TEST_CASE("cli start-up: version, health and chains list map no prometheus-cpp", "[cli][metrics]") {
    Server server;
    Terminal admin(server.url());
    admin.login(Server::admin_email, Server::admin_password);
    const std::vector<std::vector<std::string>> commands{{"version"}, {"health"}, {"chains", "list"}};
    for (const auto& args : commands) {
        const auto r = admin.run(args, {}, {{"LD_DEBUG", "files"}});
        // What the loader mapped, one line a file, rather than its whole report.
        std::string mapped;
        for (const auto& line : lines_of(r.err))
            if (line.find("file=") != std::string::npos && line.find("generating link map") != std::string::npos)
                mapped += line + "\n";
        INFO("abcictl " << Terminal::join(args) << "\nstdout: " << r.out << "\nmapped:\n" << mapped);
        // Each ran to its end: health's exit code is the server's state (UNKNOWN, 3, if it could not tell).
        CHECK((args.front() == "health" ? r.exit_code != 3 : r.exit_code == 0));
        // The report is there (the check below can fail): the C library is a file the loader maps.
        CHECK(r.err.find("file=libc.so") != std::string::npos);
        CHECK(r.err.find("prometheus") == std::string::npos);
    }
}

}  // namespace abci::test::client
