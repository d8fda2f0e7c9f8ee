// TLS end to end after abcictl took OpenSSL's initialisation away from load
// time (src/cli/openssl_deferred_init.cpp): `abcictl serve` with a
// certificate made by the openssl CLI answers HTTPS, the client trusts it
// through OpenSSL's own SSL_CERT_FILE and refuses it otherwise; and a command
// that never opens a connection leaves OpenSSL uninitialised.

#include <string>

#include "cli/client_test.hpp"
#include "support/serve.hpp"

namespace abci::test::client {
namespace {

/// A self-signed certificate for 127.0.0.1 and its key, in a directory of their own.
struct LoopbackCertificate {
    TempDir dir;
    std::string cert = dir / "cert.pem";
    std::string key = dir / "key.pem";

    LoopbackCertificate() {
        const auto made = os::run_command({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                                           "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
                                           "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                                           "subjectAltName=IP:127.0.0.1"});
        INFO(made.err);
        REQUIRE(made.exit_code == 0);
    }
};

}  // namespace

TEST_CASE("TLS: abcictl serve over HTTPS, the client trusting its certificate by SSL_CERT_FILE and refusing it "
          "without",
          "[cli][tls]") {
    const LoopbackCertificate tls;
    Server server({.config = "[tls]\ncert = \"" + tls.cert + "\"\nkey = \"" + tls.key + "\"\n"});
    const std::string url = "https://" + server.host();

    Terminal trusting(url, {{"SSL_CERT_FILE", tls.cert}});
    trusting.login(Server::admin_email, Server::admin_password);
    const auto me = trusting.ok({"whoami"});
    CHECK(field(me, "email") == Server::admin_email);
    CHECK(field(me, "server") == url);

    Terminal stranger(url);
    const auto refused = stranger.run({"login", "--email", Server::admin_email, "--password-stdin"},
                                      std::string(Server::admin_password) + "\n");
    const auto line = one_line_failure(refused, 1);
    CHECK_THAT(line, Catch::Contains("cannot reach the server at " + url) && Catch::Contains("SSLServerVerification"));
}

TEST_CASE("TLS: the libraries' OpenSSL initialisation at load time binds to abcictl's, so `version` skips it",
          "[cli][tls]") {
    // The dynamic loader's own trace (glibc's LD_DEBUG): which object each
    // call to OPENSSL_init_ssl was bound to.
    const auto r = run_abcictl({"version"}, {}, {{"LD_DEBUG", "bindings"}});
    REQUIRE(r.exit_code == 0);
    std::size_t bindings = 0;
    for (const auto& line : lines_of(r.err)) {
        if (line.find("`OPENSSL_init_ssl'") == std::string::npos) continue;
        ++bindings;
        INFO(line);
        CHECK(line.find(" to " + abcictl_binary() + " ") != std::string::npos);
    }
    CHECK(bindings >= 1);
}

}  // namespace abci::test::client
