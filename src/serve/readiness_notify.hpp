#pragma once
// Readiness for systemd's Type=notify units (packaging/abcictl.service):
// sd_notify(3)'s protocol, one datagram to the unix socket $NOTIFY_SOCKET
// names. Written here rather than linked from libsystemd, which would load
// five more libraries at every start of the CLI (docs/decisions.md).

#include <string_view>

namespace abci::serve {

/// Sends `state` ("READY=1", "STOPPING=1") to the service manager that
/// started this process; nothing when NOTIFY_SOCKET is unset (not under
/// systemd, or a unit of another Type). A failure is logged, never thrown:
/// the server serves either way, and systemd says so when the start times out.
void notify_service_manager(std::string_view state);

}  // namespace abci::serve
