// OpenSSL's initialisation, moved from load time to first use.
//
// Debian's libcpp-httplib.so has a static constructor that calls
// OPENSSL_init_ssl() while the dynamic loader runs the libraries'
// initialisers: reading openssl.cnf and registering every cipher and digest
// cost 1-2 ms of every abcictl run, most of which never open a TLS
// connection. OpenSSL 3 initialises itself on first use (SSL_CTX_new and the
// EVP fetches call OPENSSL_init_ssl/OPENSSL_init_crypto), so that early call
// can be dropped. This definition interposes libssl's: the executable exports
// it (see the abcictl target) and comes first in symbol lookup, so the
// library's call binds here. Calls made before the executable's own
// constructors ran (the libraries' initialisers run before them) return
// success without doing anything; every later one goes to libssl's.

#include <dlfcn.h>
#include <openssl/ssl.h>

#include <cstdint>

namespace {

bool openssl_init_allowed = false;

// Priority 101, the first one free for programs: before any other constructor
// of the executable, so none of those that use OpenSSL finds it skipped.
[[gnu::constructor(101)]] void allow_openssl_init() { openssl_init_allowed = true; }

using OpensslInitSsl = int (*)(std::uint64_t, const OPENSSL_INIT_SETTINGS*);

}  // namespace

extern "C" int OPENSSL_init_ssl(std::uint64_t options, const OPENSSL_INIT_SETTINGS* settings) {
    if (!openssl_init_allowed) return 1;  // deferred: OpenSSL initialises itself when first used
    // RTLD_NEXT: the next definition after the executable's, libssl's.
    static const auto real = reinterpret_cast<OpensslInitSsl>(dlsym(RTLD_NEXT, "OPENSSL_init_ssl"));
    return real != nullptr ? real(options, settings) : 0;
}
