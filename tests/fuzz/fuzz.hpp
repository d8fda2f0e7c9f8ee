#pragma once
// What every fuzz target shares: the input as text, and the oracle. A parser
// of outside input may refuse it only with the documented abci::Error of the
// documented kinds; any other exception, another kind (a 500 where a 4xx is
// due), a sanitizer report or a broken round trip is a finding, and aborts.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string_view>

#include "core/error.hpp"

namespace abci::fuzz {

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// Aborts, naming the broken property, unless `ok`.
inline void require(bool ok, const char* property) {
    if (ok) return;
    std::fprintf(stderr, "fuzz: property broken: %s\n", property);
    std::abort();
}

/// Runs `parse`; an abci::Error of one of `kinds` is a refusal and is
/// returned as false; an Error of another kind aborts; success is true.
/// ABCI_FUZZ_VERBOSE=1 prints each refusal: which seeds get how far.
template <class Parse>
bool accepts(std::initializer_list<ErrorKind> kinds, Parse&& parse) {
    try {
        parse();
        return true;
    } catch (const Error& e) {
        static const bool verbose = std::getenv("ABCI_FUZZ_VERBOSE") != nullptr;
        if (verbose) std::fprintf(stderr, "  refused (%s): %s\n", to_string(e.kind()), e.what());
        for (const auto kind : kinds)
            if (e.kind() == kind) return false;
        std::fprintf(stderr, "fuzz: refused with the wrong kind %s: %s\n", to_string(e.kind()), e.what());
        std::abort();
    }
}

}  // namespace abci::fuzz
