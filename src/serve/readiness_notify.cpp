#include "serve/readiness_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "serve/log.hpp"

namespace abci::serve {

void notify_service_manager(std::string_view state) {
    const char* const socket_name = std::getenv("NOTIFY_SOCKET");
    if (socket_name == nullptr || *socket_name == '\0') return;
    const std::string name(socket_name);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    // A path, or '@' for the abstract namespace (systemd's own socket).
    if ((name.front() != '/' && name.front() != '@') || name.size() >= sizeof address.sun_path) {
        log_line("warn", "NOTIFY_SOCKET is not a unix socket address: the service manager is not told",
                 {{"notify_socket", name}, {"state", state}});
        return;
    }
    std::memcpy(address.sun_path, name.data(), name.size());
    if (name.front() == '@') address.sun_path[0] = '\0';
    const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());

    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    const bool sent = fd >= 0 && ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                                          reinterpret_cast<const sockaddr*>(&address), length) ==
                                     static_cast<ssize_t>(state.size());
    const int error = errno;
    if (fd >= 0) ::close(fd);
    if (!sent)
        log_line("warn", "could not notify the service manager",
                 {{"notify_socket", name}, {"state", state}, {"error", std::strerror(error)}});
}

}  // namespace abci::serve
