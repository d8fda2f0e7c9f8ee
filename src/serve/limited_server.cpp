#include "serve/limited_server.hpp"

#include <httplib.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

#include "serve/body_framing.hpp"
#include "serve/connection_limiter.hpp"
#include "serve/head_reader.hpp"
#include "serve/http_error.hpp"
#include "serve/http_metrics.hpp"

namespace abci::serve {

namespace {

using Clock = std::chrono::steady_clock;

// The request line and each header line may be 8 KiB (cpp-httplib's own
// caps); a whole head beyond 64 KiB is no client's but an attacker's.
constexpr std::size_t kMaxHeadBytes = 64 * 1024;
constexpr std::size_t kReadChunk = 16 * 1024;

/// Waits until `fd` is ready for `events` (or has an error to report) or
/// `deadline` passes; false then.
bool wait_for(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return false;
        pollfd ready{fd, events, 0};
        const int n = ::poll(&ready, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
        if (n > 0) return true;
        if (n < 0 && errno != EINTR) return false;
    }
}

void endpoint(int fd, bool peer, std::string& ip, int& port) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    auto* raw = reinterpret_cast<sockaddr*>(&address);
    if ((peer ? ::getpeername(fd, raw, &length) : ::getsockname(fd, raw, &length)) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (address.ss_family == AF_INET6) {
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
        ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
        port = ntohs(v6->sin6_port);
    } else {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
        ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
        port = ntohs(v4->sin_port);
    }
    ip = text;
}

/// One connection's bytes, plain or over TLS, on a non-blocking socket: every
/// wait is a poll(2) with a deadline. A request head and body are read into
/// the buffer first (read_head, read_body); cpp-httplib then parses the
/// request from there and reads no further than its end.
class Connection final : public httplib::Stream {
public:
    enum class Head { complete, closed, timed_out, too_large };
    enum class Body { complete, closed, timed_out, too_large, malformed };

    Connection(int fd, SSL* ssl, std::chrono::seconds write_timeout) : fd_(fd), ssl_(ssl), write_timeout_(write_timeout) {}

    /// The TLS handshake, by `deadline`.
    bool handshake(Clock::time_point deadline) {
        for (;;) {
            const int done = SSL_accept(ssl_);
            if (done == 1) return true;
            if (!wait_for_tls(SSL_get_error(ssl_, done), deadline)) return false;
        }
    }

    /// Reads until the buffer holds a whole request head, by `deadline`.
    Head read_head(HeadReader& reader, Clock::time_point deadline) {
        for (;;) {
            switch (reader.feed(std::string_view(buffer_).substr(reader.scanned()))) {
            case HeadReader::State::complete: return Head::complete;
            case HeadReader::State::incomplete: break;
            default: return Head::too_large;
            }
            const auto got = fill(deadline);
            if (got == 0) return Head::closed;
            if (got < 0) return Clock::now() >= deadline ? Head::timed_out : Head::closed;
        }
    }

    /// The head read_head() found, `size` bytes.
    [[nodiscard]] std::string_view head(std::size_t size) const { return std::string_view(buffer_).substr(0, size); }

    /// Reads the body `framing` announces after the head's `head_size` bytes,
    /// by `deadline`, and leaves the request in the buffer as cpp-httplib is
    /// to parse it: a chunked body decoded (at most `max_body` bytes) behind
    /// a head that gives its length.
    Body read_body(const BodyFraming& framing, std::size_t head_size, std::size_t max_body,
                   Clock::time_point deadline) {
        using Kind = BodyFraming::Kind;
        // The client waits for this before it sends the body; cpp-httplib's
        // own would come after the body, so the head given it has no Expect.
        if (framing.expects_continue && framing.kind != Kind::none) {
            constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
            if (send_all(kContinue.data(), kContinue.size(), deadline) < 0) return Body::closed;
        }
        std::string decoded;
        if (framing.kind == Kind::chunked) {
            ChunkedDecoder decoder(max_body);
            for (;;) {
                // Fed bytes leave the buffer at once: it holds the head, the
                // decoded data and one read's worth of what comes after.
                const auto fed = decoder.scanned();
                decoder.feed(std::string_view(buffer_).substr(head_size), decoded);
                buffer_.erase(head_size, decoder.scanned() - fed);
                if (decoder.state() == ChunkedDecoder::State::complete) break;
                if (decoder.state() == ChunkedDecoder::State::too_large) return Body::too_large;
                if (decoder.state() == ChunkedDecoder::State::malformed) return Body::malformed;
                if (const auto failed = wait_for_more(deadline)) return *failed;
            }
        } else {
            const auto length = framing.kind == Kind::length ? framing.length : 0;
            while (buffer_.size() - head_size < length)
                if (const auto failed = wait_for_more(deadline)) return *failed;
        }
        std::size_t body_size = framing.kind == Kind::chunked ? decoded.size() : framing.length;
        if (framing.kind == Kind::chunked || framing.expects_continue) {
            auto plain = plain_head(head(head_size), body_size);
            plain += decoded;
            body_size -= decoded.size();  // what is still in the buffer, after the head
            buffer_.replace(0, head_size, plain);
            head_size = plain.size();
        }
        request_end_ = head_size + body_size;
        return Body::complete;
    }

    /// Drops the request cpp-httplib was given, read or not (a GET's body
    /// is not), so that the buffer starts with whatever follows it.
    void finish_request() {
        buffer_.erase(0, request_end_);
        offset_ = 0;
        request_end_ = 0;
    }

    /// Whether a next request starts by `deadline` (bytes already buffered count).
    bool wait_for_request(Clock::time_point deadline) {
        if (offset_ < buffer_.size() || (ssl_ && SSL_pending(ssl_) > 0)) return true;
        return wait_for(fd_, POLLIN, deadline);
    }

    /// Answers `response` without reading the request, then reads and drops
    /// what the client still sends for a moment, so that closing does not
    /// reset the connection before the client has read the answer. `linger`
    /// zero: only what has already arrived.
    void refuse(const std::string& response, std::chrono::milliseconds linger) {
        if (send_all(response.data(), response.size(), Clock::now() + std::chrono::seconds(1)) < 0) return;
        if (!ssl_) ::shutdown(fd_, SHUT_WR);
        const auto end = Clock::now() + linger;
        char scratch[4096];
        while (receive(scratch, sizeof(scratch), std::min(end, Clock::now() + std::chrono::milliseconds(100))) > 0) {
        }
    }

    // cpp-httplib reads the request it is given and finds its end there:
    // it would read a POST without a length until the client closes.
    bool is_readable() const override { return offset_ < request_end_; }
    bool is_writable() const override { return wait_for(fd_, POLLOUT, Clock::now() + write_timeout_); }

    ssize_t read(char* ptr, std::size_t size) override {
        const auto n = std::min(size, request_end_ - offset_);
        std::memcpy(ptr, buffer_.data() + offset_, n);
        offset_ += n;
        return static_cast<ssize_t>(n);
    }

    ssize_t write(const char* ptr, std::size_t size) override {
        return send_all(ptr, size, Clock::now() + write_timeout_);
    }

    void get_remote_ip_and_port(std::string& ip, int& port) const override { endpoint(fd_, true, ip, port); }
    void get_local_ip_and_port(std::string& ip, int& port) const override { endpoint(fd_, false, ip, port); }
    socket_t socket() const override { return fd_; }

private:
    /// Appends what arrives by `deadline`; why not when nothing does.
    std::optional<Body> wait_for_more(Clock::time_point deadline) {
        const auto got = fill(deadline);
        if (got > 0) return std::nullopt;
        return got < 0 && Clock::now() >= deadline ? Body::timed_out : Body::closed;
    }

    /// Appends what arrives by `deadline`: bytes read, 0 at end of stream, -1 on timeout or error.
    ssize_t fill(Clock::time_point deadline) {
        const auto old_size = buffer_.size();
        buffer_.resize(old_size + kReadChunk);
        const auto got = receive(buffer_.data() + old_size, kReadChunk, deadline);
        buffer_.resize(old_size + static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
        return got;
    }

    ssize_t receive(char* into, std::size_t size, Clock::time_point deadline) {
        for (;;) {
            if (ssl_) {
                const int got = SSL_read(ssl_, into, static_cast<int>(size));
                if (got > 0) return got;
                const int error = SSL_get_error(ssl_, got);
                if (error == SSL_ERROR_ZERO_RETURN) return 0;
                if (!wait_for_tls(error, deadline)) return -1;
            } else {
                const auto got = ::recv(fd_, into, size, 0);
                if (got >= 0) return got;
                if (errno != EINTR && (errno != EAGAIN || !wait_for(fd_, POLLIN, deadline))) return -1;
            }
        }
    }

    /// Sends all of it by `deadline` (TLS retries a write with the same arguments, as OpenSSL requires).
    ssize_t send_all(const char* data, std::size_t size, Clock::time_point deadline) {
        std::size_t sent = 0;
        while (sent < size) {
            if (ssl_) {
                const auto chunk = static_cast<int>(std::min<std::size_t>(size - sent, INT_MAX));
                const int n = SSL_write(ssl_, data + sent, chunk);
                if (n > 0) {
                    sent += static_cast<std::size_t>(n);
                } else if (!wait_for_tls(SSL_get_error(ssl_, n), deadline)) {
                    return -1;
                }
            } else {
                const auto n = ::send(fd_, data + sent, size - sent, MSG_NOSIGNAL);
                if (n >= 0) {
                    sent += static_cast<std::size_t>(n);
                } else if (errno != EINTR && (errno != EAGAIN || !wait_for(fd_, POLLOUT, deadline))) {
                    return -1;
                }
            }
        }
        return static_cast<ssize_t>(sent);
    }

    [[nodiscard]] bool wait_for_tls(int error, Clock::time_point deadline) const {
        if (error == SSL_ERROR_WANT_READ) return wait_for(fd_, POLLIN, deadline);
        if (error == SSL_ERROR_WANT_WRITE) return wait_for(fd_, POLLOUT, deadline);
        return false;
    }

    int fd_;
    SSL* ssl_;
    std::chrono::seconds write_timeout_;
    std::string buffer_;
    std::size_t offset_ = 0;       // what cpp-httplib has read of buffer_
    std::size_t request_end_ = 0;  // where the request given to cpp-httplib ends in buffer_
};

/// An SSL for a connection, freed (after a close_notify when the exchange
/// ended well) when it goes.
class Tls {
public:
    Tls(SSL_CTX* context, int fd) : ssl_(SSL_new(context)) {
        if (ssl_ && SSL_set_fd(ssl_, fd) != 1) {
            SSL_free(ssl_);
            ssl_ = nullptr;
        }
    }
    ~Tls() {
        if (!ssl_) return;
        if (graceful) SSL_shutdown(ssl_);
        SSL_free(ssl_);
    }
    Tls(const Tls&) = delete;
    Tls& operator=(const Tls&) = delete;
    [[nodiscard]] SSL* get() const noexcept { return ssl_; }
    bool graceful = false;

private:
    SSL* ssl_;
};

/// What stop_limited_server() reaches through whichever LimitedServer it is.
class IdleCloser {
public:
    virtual void close_idle() = 0;

protected:
    ~IdleCloser() = default;
};

int refusal_status(BodyFraming::Verdict verdict) {
    switch (verdict) {
    case BodyFraming::Verdict::too_large: return 413;
    case BodyFraming::Verdict::unsupported_encoding: return 415;
    default: return 400;
    }
}

template <class Base>
class LimitedServer final : public Base, public IdleCloser {
public:
    /// `metrics`: where refusals are counted, or null.
    template <class... Args>
    explicit LimitedServer(const ListenerLimits& limits, HttpMetrics* metrics, Args&&... args)
        : Base(std::forward<Args>(args)...),
          metrics_(metrics),
          limits_(limits.connections),
          max_body_(limits.max_body_bytes),
          limiter_(limits.connections, limits.trusted_proxies) {}

    void close_idle() override { limiter_.close_idle(); }

private:
    static constexpr bool kTls = std::is_same_v<Base, httplib::SSLServer>;

    bool process_and_close_socket(socket_t sock) override {
        // Declared first, so given back last: a connection's place is free
        // only once its descriptor is closed, and the caps bound the
        // descriptors the server holds, not only the connections it serves.
        ConnectionLimiter::Ticket slot;
        const bool ok = serve(sock, slot);
        ::shutdown(sock, SHUT_RDWR);
        ::close(sock);
        return ok;
    }

    bool serve(int sock, ConnectionLimiter::Ticket& slot) {
        const auto accepted = Clock::now();
        const auto seconds = [](time_t s) { return std::chrono::seconds(s); };
        ::fcntl(sock, F_SETFL, ::fcntl(sock, F_GETFL) | O_NONBLOCK);
        std::string address;
        int port = 0;
        endpoint(sock, true, address, port);
        ConnectionLimiter::Refusal refusal{};
        slot = limiter_.admit(address, sock, &refusal);
        if (!slot) count_refusal(to_string(refusal));
        // Over TLS a refusal would cost the server a handshake: a flood gets none.
        if (!slot && kTls) return false;

        std::unique_ptr<Tls> tls;
        if constexpr (kTls) {
            tls = std::make_unique<Tls>(this->ssl_context(), sock);
            if (!tls->get()) return false;
        }
        Connection connection(sock, tls ? tls->get() : nullptr, seconds(this->write_timeout_sec_));
        if (!slot) {
            connection.refuse(connection_refusal(503, "too many connections; retry later", 1), std::chrono::milliseconds(0));
            return false;
        }
        auto deadline = accepted + limits_.head_timeout;
        if (tls && !connection.handshake(deadline)) return false;

        HeadReader reader(limits_.max_header_lines, kMaxHeadBytes);
        bool ok = true;
        for (auto count = this->keep_alive_max_count_; count > 0 && this->svr_sock_ != INVALID_SOCKET; --count) {
            if (count != this->keep_alive_max_count_) {
                limiter_.idle(*slot);
                // Looked at once idle: a stop either finds this connection
                // idle (and closes it) or has been seen here.
                const bool next = this->svr_sock_ != INVALID_SOCKET &&
                                  connection.wait_for_request(Clock::now() + seconds(this->keep_alive_timeout_sec_));
                if (!limiter_.reading(*slot) || !next) break;
                deadline = Clock::now() + limits_.head_timeout;
            }
            reader.reset();
            const auto head = connection.read_head(reader, deadline);
            if (head == Connection::Head::closed) break;
            if (head != Connection::Head::complete) {
                count_refusal(head == Connection::Head::timed_out ? "head_timeout" : "header_limit");
                connection.refuse(
                    head == Connection::Head::timed_out
                        ? connection_refusal(408, "the request line and headers did not arrive in time")
                        : connection_refusal(431, "the request has more header lines or bytes than the server accepts"),
                    std::chrono::seconds(1));
                return false;
            }
            const auto framing = frame_body(connection.head(reader.scanned()), max_body_);
            if (framing.verdict != BodyFraming::Verdict::ok) {
                count_refusal(framing.verdict == BodyFraming::Verdict::too_large ? "body_too_large" : "bad_framing");
                connection.refuse(connection_refusal(refusal_status(framing.verdict), framing.problem),
                                  std::chrono::seconds(1));
                return false;
            }
            const auto body =
                connection.read_body(framing, reader.scanned(), max_body_, Clock::now() + limits_.body_timeout);
            if (body == Connection::Body::closed) break;
            if (body != Connection::Body::complete) {
                count_refusal(body == Connection::Body::timed_out   ? "body_timeout"
                              : body == Connection::Body::too_large ? "body_too_large"
                                                                    : "bad_framing");
                connection.refuse(
                    body == Connection::Body::timed_out ? connection_refusal(408, "the request body did not arrive in time")
                    : body == Connection::Body::too_large
                        ? connection_refusal(413, "the request body is larger than the server accepts")
                        : connection_refusal(400, "the request body's chunked framing is malformed"),
                    std::chrono::seconds(1));
                return false;
            }
            // Read whole: from here the request is being served, and the
            // connection is no longer a slow one to shed.
            if (!limiter_.handling(*slot)) break;
            bool closed = false;
            ok = this->process_request(connection, count == 1, closed, [&](httplib::Request& request) {
                if (tls) request.ssl = tls->get();
            });
            connection.finish_request();
            if (!ok || closed) break;
        }
        if (tls) tls->graceful = ok;
        return ok;
    }

    void count_refusal(std::string_view reason) noexcept {
        if (metrics_) metrics_->refused(reason);
    }

    HttpMetrics* metrics_;
    const ConnectionLimits limits_;
    const std::size_t max_body_;
    ConnectionLimiter limiter_;
};

}  // namespace

std::unique_ptr<httplib::Server> make_limited_server(const Settings& settings, HttpMetrics& metrics) {
    const ListenerLimits limits{settings.connections, settings.max_body_bytes, settings.trusted_proxies};
    if (!settings.tls()) return std::make_unique<LimitedServer<httplib::Server>>(limits, &metrics);
    auto tls = std::make_unique<LimitedServer<httplib::SSLServer>>(limits, &metrics, settings.tls_cert.c_str(),
                                                                   settings.tls_key.c_str());
    if (!tls->is_valid())
        throw Error(ErrorKind::invalid_input,
                    "cannot load the TLS certificate " + settings.tls_cert + " or key " + settings.tls_key);
    return tls;
}

std::unique_ptr<httplib::Server> make_limited_server(const ListenerLimits& limits) {
    return std::make_unique<LimitedServer<httplib::Server>>(limits, nullptr);
}

void stop_limited_server(httplib::Server& server) {
    server.stop();
    if (auto* closer = dynamic_cast<IdleCloser*>(&server)) closer->close_idle();
}

}  // namespace abci::serve
