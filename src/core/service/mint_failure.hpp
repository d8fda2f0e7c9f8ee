#pragma once
// A failed mint's stored answer (store::MintRequest::answer of a failed
// mint): the error a repeat of its Idempotency-Key replays and its status
// route shows. A durable format read by later releases: this module is its
// only reader and writer.
//
// Versions (a row's "version" member; rows without one are version 1):
//   1  {"kind","message"}: kind an ErrorKind's name (core/error.hpp).
//      Version 1 rows were written without "version" until this module
//      wrote it.

#include <string>

#include "core/error.hpp"

namespace abci::service {

struct MintFailure {
    /// The version serialize() writes.
    static constexpr int kVersion = 1;

    ErrorKind kind = ErrorKind::internal;
    std::string message;

    bool operator==(const MintFailure&) const = default;

    [[nodiscard]] static MintFailure of(const Error& error) { return {error.kind(), error.what()}; }
    /// The error it stands for, as the mint failed with it.
    [[nodiscard]] Error error() const { return Error(kind, message); }

    /// The stored text, as version kVersion writes it.
    [[nodiscard]] std::string serialize() const;
    /// Reads a stored answer of any version written so far. Error(internal)
    /// naming the problem for text that is no such record, a member missing,
    /// of the wrong type or naming no error kind, or a newer version.
    [[nodiscard]] static MintFailure parse(const std::string& answer);
};

}  // namespace abci::service
