// The rendezvous over POSIX sockets: a star of line-oriented TCP connections
// around rank 0, every wait a poll() bounded by the session's timeout.
#include "core/interprocess/rendezvous.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <deque>
#include <optional>
#include <system_error>
#include <thread>

namespace rangereplay {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kConnectRetryInterval{20};
// Rank 0 holds at most this many accepted connections that have not said
// hello; a newer one pushes out the oldest (a real rank says hello at once).
constexpr std::size_t kMaxPendingConnections = 8;
// How long an accepted connection has to say hello.
constexpr milliseconds kHelloTimeout{2000};
// How long rank 0 leaves the listening socket alone after accept4 fails for
// want of descriptors or memory (the socket stays readable meanwhile).
constexpr milliseconds kAcceptBackoff{100};
// Connections taken from the listen queue per loop turn at most, so the
// deadlines are checked between bursts.
constexpr int kAcceptsPerTurn = 64;
constexpr std::string_view kPrefix = "rendezvous: ";

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

std::string ms_text(milliseconds ms) { return std::to_string(ms.count()) + " ms"; }

std::string rank_text(int rank) { return "rank " + std::to_string(rank); }

/// A point in time a wait must not pass.
class Deadline {
 public:
  explicit Deadline(milliseconds from_now) : at_(Clock::now() + from_now) {}
  bool passed() const { return Clock::now() >= at_; }
  /// What is left, in whole milliseconds rounded up, for poll().
  int poll_ms() const {
    const auto left = std::chrono::ceil<milliseconds>(at_ - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, INT_MAX));
  }
  milliseconds left() const { return milliseconds(poll_ms()); }
  Clock::time_point at() const { return at_; }

 private:
  Clock::time_point at_;
};

/// Owns one socket descriptor.
class ScopedFd {
 public:
  ScopedFd() = default;
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(ScopedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  ScopedFd& operator=(ScopedFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace

/// One line-oriented connection to another rank.
struct RendezvousConnection {
  ScopedFd fd;
  int rank = -1;                                     // the rank at the other end (-1 before its hello)
  std::string inbox;                                 // bytes received and not yet taken as a line
  bool closed = false;                               // the other side's stream has ended (inbox may still hold lines)
  std::string close_reason;                          // "closed its connection", "reset its connection (...)"
  std::chrono::steady_clock::time_point hello_by{};  // rank 0, before the hello: when it is dropped
};

namespace {

using Connection = RendezvousConnection;

std::string peer_name(const Connection& c) { return c.rank >= 0 ? rank_text(c.rank) : "a connecting rank"; }

void set_no_delay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // latency only: a failure is harmless
}

/// Sends all of `line`, waiting for room until `deadline`.
Status send_line(Connection& c, std::string_view line, const Deadline& deadline) {
  std::size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = ::send(c.fd.get(), line.data() + sent, line.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      return unavailable(std::string(kPrefix) + "cannot send to " + peer_name(c) + " (" + errno_text(errno) +
                         "): it closed its connection or its process ended");
    }
    // Checked whatever poll returned before (an error, or POLLOUT with no
    // room after all), so no turn of this loop outlives the deadline.
    if (deadline.passed()) {
      return unavailable(std::string(kPrefix) + peer_name(c) +
                         " does not read its connection (send timed out); check that its process is alive");
    }
    pollfd p{c.fd.get(), POLLOUT, 0};
    (void)::poll(&p, 1, deadline.poll_ms());
  }
  return ok_status();
}

/// Sends `line` if it fits in the socket's buffer now; for the last words
/// of a failing session, whose sender does not wait.
void send_now(Connection& c, std::string_view line) {
  if (c.fd.valid()) (void)::send(c.fd.get(), line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/// Closes `c` after its last line: the write side first, and what the other
/// side sent is read away, so the close sends a FIN rather than a reset that
/// could discard that last line before the other side reads it.
void close_connection(Connection& c) {
  if (!c.fd.valid()) return;
  ::shutdown(c.fd.get(), SHUT_WR);
  char sink[4096];
  while (::recv(c.fd.get(), sink, sizeof(sink), MSG_DONTWAIT) > 0) {
  }
  c.fd.reset();
}

}  // namespace

struct Rendezvous::Peers {
  std::vector<RendezvousConnection> connections;  // rank 0: rank r at r - 1; another rank: rank 0's
  ~Peers() {
    for (RendezvousConnection& c : connections) close_connection(c);
  }
};

namespace {

/// The first whole line of `c.inbox` (taken out, without its '\n'), nullopt
/// when there is none yet. Errors: a line longer than the limit.
StatusOr<std::optional<std::string>> take_line(Connection& c) {
  const std::size_t end = c.inbox.find('\n');
  if (end == std::string::npos) {
    if (c.inbox.size() >= kMaxRendezvousLineBytes) {
      return invalid_argument(std::string(kPrefix) + peer_name(c) + " sent a line longer than " +
                              std::to_string(kMaxRendezvousLineBytes) +
                              " bytes; every rank must run the same rangereplay version");
    }
    return std::optional<std::string>();
  }
  std::string line = c.inbox.substr(0, end);
  c.inbox.erase(0, end + 1);
  return std::optional<std::string>(std::move(line));
}

/// Reads what `c` has now into its inbox; at the end of its stream, marks
/// it closed (the lines before the end are still taken).
void receive_some(Connection& c) {
  char buffer[4096];
  while (!c.closed) {
    const ssize_t n = ::recv(c.fd.get(), buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n > 0) {
      c.inbox.append(buffer, static_cast<std::size_t>(n));
      if (c.inbox.size() > 2 * kMaxRendezvousLineBytes) return;  // take_line reports it
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    c.closed = true;
    c.close_reason = n == 0 ? "closed its connection" : "reset its connection (" + errno_text(errno) + ")";
  }
}

/// The error for a connection closed before its line of `verb`.
Status closed_error(const Connection& c, std::string_view verb) {
  return unavailable(std::string(kPrefix) + peer_name(c) + " " + c.close_reason + " before sending '" +
                     std::string(verb) + "': its process ended or left the rendezvous");
}

/// The message `line` from `c`, which must be of `verb`; an error message is
/// the other side's failure. Errors: a garbled line, another verb.
StatusOr<RendezvousMessage> message_of(const Connection& c, std::string_view line, std::string_view verb) {
  StatusOr<RendezvousMessage> message = parse_rendezvous_message(line);
  if (!message.ok()) {
    std::string text = message.status().message();
    if (text.starts_with(kPrefix)) text.erase(0, kPrefix.size());
    return invalid_argument(std::string(kPrefix) + peer_name(c) + " sent a " + text);
  }
  if (const auto* error = std::get_if<ErrorMessage>(&*message)) {
    const std::string how = c.rank == 0 ? " ended the session: " : " failed: ";
    return unavailable(std::string(kPrefix) + peer_name(c) + how + escape_rendezvous_text(error->text));
  }
  if (rendezvous_verb(*message) != verb) {
    return invalid_argument(std::string(kPrefix) + peer_name(c) + " sent '" + std::string(rendezvous_verb(*message)) +
                            "' where '" + std::string(verb) +
                            "' was expected: the ranks made different calls (every rank must agree on each range "
                            "and meet at each barrier in the same order)");
  }
  return message;
}

/// One message of `verb` from each of `connections` within `deadline`, in
/// their order. Errors: a closed or failed connection, a garbled or
/// unexpected message, the deadline (naming the ranks still missing).
StatusOr<std::vector<RendezvousMessage>> receive_from_each(std::vector<Connection>& connections, std::string_view verb,
                                                           const Deadline& deadline, milliseconds waited) {
  std::vector<std::optional<RendezvousMessage>> got(connections.size());
  std::vector<pollfd> fds;
  std::vector<std::size_t> waiting;
  while (true) {
    fds.clear();
    waiting.clear();
    for (std::size_t i = 0; i < connections.size(); ++i) {
      if (got[i]) continue;
      RR_ASSIGN_OR_RETURN(std::optional<std::string> line, take_line(connections[i]));
      if (line) {
        RR_ASSIGN_OR_RETURN(got[i], message_of(connections[i], *line, verb));
        continue;
      }
      if (connections[i].closed) return closed_error(connections[i], verb);
      fds.push_back(pollfd{connections[i].fd.get(), POLLIN, 0});
      waiting.push_back(i);
    }
    if (waiting.empty()) break;
    // Checked before every poll, whatever the one before returned (a wake-up
    // with nothing to read included), after the lines already received.
    if (deadline.passed()) {
      std::string ranks;
      for (const std::size_t i : waiting) ranks += (ranks.empty() ? "" : ", ") + peer_name(connections[i]);
      return unavailable(std::string(kPrefix) + "no '" + std::string(verb) + "' from " + ranks + " within " +
                         ms_text(waited) +
                         ": that rank is slower to get there than the timeout allows, stopped, or profiles other "
                         "ranges; check it, or raise the timeout");
    }
    const int ready = ::poll(fds.data(), fds.size(), deadline.poll_ms());
    if (ready < 0 && errno != EINTR) {
      return unavailable(std::string(kPrefix) + "poll failed (" + errno_text(errno) + ")");
    }
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents != 0) receive_some(connections[waiting[k]]);
    }
  }
  std::vector<RendezvousMessage> messages;
  messages.reserve(got.size());
  for (std::optional<RendezvousMessage>& m : got) messages.push_back(std::move(*m));
  return messages;
}

StatusOr<addrinfo*> resolve(const Endpoint& endpoint, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* list = nullptr;
  const std::string port = std::to_string(endpoint.port);
  const int rc = ::getaddrinfo(endpoint.host.c_str(), port.c_str(), &hints, &list);
  if (rc != 0) {
    return unavailable(std::string(kPrefix) + "cannot resolve '" + endpoint.host + "' (" + ::gai_strerror(rc) +
                       "); give rank 0's host name or address");
  }
  return list;
}

/// The numeric form of `address` ("10.0.0.2", "::1").
std::string numeric_address(const sockaddr* address, socklen_t length) {
  char text[NI_MAXHOST];
  if (::getnameinfo(address, length, text, sizeof(text), nullptr, 0, NI_NUMERICHOST) != 0) return "?";
  return text;
}

/// Whether `address` is a loopback address (127.0.0.0/8, ::1, ::ffff:127.x.y.z).
bool is_loopback(const sockaddr* address) {
  if (address->sa_family == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr) >> 24) == 127;
  }
  if (address->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(&a) || (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127);
  }
  return false;
}

/// Whether the user's `host` itself says loopback: a numeric address (bound
/// as given) or a name that means this host only ("localhost").
bool host_means_itself(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1 || ::inet_pton(AF_INET6, host.c_str(), &v6) == 1) return true;
  return host == "localhost" || host == "localhost.localdomain" || host == "ip6-localhost" || host == "ip6-loopback" ||
         host.ends_with(".localhost");
}

/// One attempt to connect to `endpoint`, each address bounded by `deadline`.
/// Returns the connected socket, or the reason of the last failure, naming
/// the address tried.
std::variant<ScopedFd, std::string> try_connect(const Endpoint& endpoint, const Deadline& deadline) {
  StatusOr<addrinfo*> list = resolve(endpoint, false);
  if (!list.ok()) return list.status().message();
  std::string last = "no address";
  for (addrinfo* ai = *list; ai != nullptr; ai = ai->ai_next) {
    const std::string address = numeric_address(ai->ai_addr, ai->ai_addrlen);
    ScopedFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.valid()) {
      last = address + ": " + errno_text(errno);
      continue;
    }
    int rc = ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd.get(), POLLOUT, 0};
      rc = ::poll(&p, 1, deadline.poll_ms());
      int err = ETIMEDOUT;
      socklen_t len = sizeof(err);
      if (rc > 0) ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      errno = err;
      rc = err == 0 ? 0 : -1;
    }
    if (rc == 0) {
      ::freeaddrinfo(*list);
      return fd;
    }
    last = address + ": " + errno_text(errno);
  }
  ::freeaddrinfo(*list);
  return last;
}

Status check_arguments(int rank, int world_size, milliseconds timeout, std::string_view token) {
  if (world_size < 1 || static_cast<std::uint32_t>(world_size) > kMaxRendezvousWorldSize) {
    return invalid_argument(std::string(kPrefix) + "world size " + std::to_string(world_size) + " is not from 1 to " +
                            std::to_string(kMaxRendezvousWorldSize) + "; pass the job's WORLD_SIZE");
  }
  if (rank < 0 || rank >= world_size) {
    return invalid_argument(std::string(kPrefix) + "rank " + std::to_string(rank) + " is not from 0 to " +
                            std::to_string(world_size - 1) + "; pass the process's RANK");
  }
  if (timeout.count() <= 0) {
    return invalid_argument(std::string(kPrefix) + "timeout " + ms_text(timeout) + " is not above 0");
  }
  if (token.size() > kMaxRendezvousTokenBytes) {
    return invalid_argument(std::string(kPrefix) + "the job token has " + std::to_string(token.size()) +
                            " bytes, more than " + std::to_string(kMaxRendezvousTokenBytes) +
                            "; give a shorter RANGEREPLAY_RENDEZVOUS_TOKEN");
  }
  return ok_status();
}

std::string without_prefix(const std::string& message) {
  return message.starts_with(kPrefix) ? message.substr(kPrefix.size()) : message;
}

}  // namespace

// ---- RendezvousListener ----------------------------------------------------

StatusOr<RendezvousListener> RendezvousListener::open(const Endpoint& endpoint) {
  RR_ASSIGN_OR_RETURN(addrinfo * list, resolve(endpoint, true));
  const bool widen = !host_means_itself(endpoint.host);
  std::string last = "no address";
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    // A name of this host that resolves to loopback (a Debian hosts file
    // maps the host name to 127.0.1.1) would let no other host in: bind the
    // wildcard address of that family instead.
    sockaddr_storage address{};
    std::memcpy(&address, ai->ai_addr, std::min<std::size_t>(ai->ai_addrlen, sizeof(address)));
    socklen_t address_length = ai->ai_addrlen;
    if (widen && is_loopback(ai->ai_addr)) {
      if (ai->ai_family == AF_INET) {
        reinterpret_cast<sockaddr_in*>(&address)->sin_addr.s_addr = htonl(INADDR_ANY);
      } else if (ai->ai_family == AF_INET6) {
        reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr = in6addr_any;
      }
    }
    const std::string where = numeric_address(reinterpret_cast<sockaddr*>(&address), address_length) + " port " +
                              std::to_string(endpoint.port);
    ScopedFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.valid()) {
      last = where + ": " + errno_text(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), address_length) != 0 ||
        ::listen(fd.get(), SOMAXCONN) != 0) {
      last = where + ": " + errno_text(errno);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
    const std::uint16_t port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                                 : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    ::freeaddrinfo(list);
    return RendezvousListener(fd.release(), endpoint.host, port);
  }
  ::freeaddrinfo(list);
  return unavailable(std::string(kPrefix) + "rank 0 cannot listen on " + endpoint.to_string() + " (" + last +
                     "); choose a free port, or an address of this host, with --rendezvous HOST:PORT");
}

RendezvousListener::RendezvousListener(RendezvousListener&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), host_(std::move(other.host_)), port_(other.port_) {}

RendezvousListener& RendezvousListener::operator=(RendezvousListener&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    host_ = std::move(other.host_);
    port_ = other.port_;
  }
  return *this;
}

RendezvousListener::~RendezvousListener() {
  if (fd_ >= 0) ::close(fd_);
}

// ---- Rendezvous: joining ---------------------------------------------------

Rendezvous::Rendezvous(int rank, int world_size, milliseconds timeout, std::unique_ptr<Peers> peers)
    : rank_(rank), world_size_(world_size), timeout_(timeout), peers_(std::move(peers)) {}

Rendezvous::Rendezvous(Rendezvous&& other) noexcept = default;
Rendezvous& Rendezvous::operator=(Rendezvous&& other) noexcept = default;
Rendezvous::~Rendezvous() = default;

StatusOr<Rendezvous> Rendezvous::connect(const Endpoint& endpoint, int rank, int world_size, milliseconds timeout,
                                         std::string_view token) {
  RR_RETURN_IF_ERROR(check_arguments(rank, world_size, timeout, token));
  if (world_size == 1) return Rendezvous(0, 1, timeout, std::make_unique<Peers>());
  if (rank == 0) {
    RR_ASSIGN_OR_RETURN(RendezvousListener listener, RendezvousListener::open(endpoint));
    return accept(std::move(listener), world_size, timeout, token);
  }
  // Connect, retrying while rank 0 is not listening yet.
  const Deadline connect_deadline(timeout);
  Connection root;
  root.rank = 0;
  std::string last;
  while (true) {
    std::variant<ScopedFd, std::string> attempt = try_connect(endpoint, connect_deadline);
    if (auto* fd = std::get_if<ScopedFd>(&attempt)) {
      root.fd = std::move(*fd);
      break;
    }
    last = std::get<std::string>(attempt);
    if (connect_deadline.passed()) {
      return unavailable(std::string(kPrefix) + rank_text(rank) + " could not connect to rank 0 at " +
                         endpoint.to_string() + " within " + ms_text(timeout) + " (" + without_prefix(last) +
                         "); check that rank 0 runs under rangereplay with the same endpoint, and that this host "
                         "reaches that address (else give --rendezvous HOST:PORT with one it does)");
    }
    std::this_thread::sleep_for(std::min(kConnectRetryInterval, connect_deadline.left()));
  }
  set_no_delay(root.fd.get());
  const Deadline answer_deadline(2 * timeout);
  const HelloMessage hello{kRendezvousProtocolVersion, static_cast<std::uint32_t>(rank),
                           static_cast<std::uint32_t>(world_size), std::string(token)};
  auto peers = std::make_unique<Peers>();
  peers->connections.push_back(std::move(root));
  RR_RETURN_IF_ERROR(send_line(peers->connections.front(), encode_rendezvous_message(hello), answer_deadline));
  StatusOr<std::vector<RendezvousMessage>> answer =
      receive_from_each(peers->connections, "welcome", answer_deadline, 2 * timeout);
  if (!answer.ok()) return answer.status();
  const auto& welcome = std::get<WelcomeMessage>(answer->front());
  if (welcome.world_size != static_cast<std::uint32_t>(world_size)) {
    return invalid_argument(std::string(kPrefix) + "rank 0 has world size " + std::to_string(welcome.world_size) +
                            " where " + rank_text(rank) + " has " + std::to_string(world_size) +
                            "; start every rank with the same WORLD_SIZE");
  }
  return Rendezvous(rank, world_size, timeout, std::move(peers));
}

namespace {

/// What is wrong with `hello` from a connection, given the job's token and
/// the ranks joined so far; empty when it may join. The token is checked
/// before anything the hello claims.
std::string hello_fault(const HelloMessage& hello, int world_size, std::string_view token,
                        const std::vector<Connection>& joined) {
  if (hello.version != kRendezvousProtocolVersion) {
    return "a rank speaks rendezvous protocol version " + std::to_string(hello.version) + " where rank 0 speaks " +
           std::to_string(kRendezvousProtocolVersion) + "; every rank must run the same rangereplay version";
  }
  if (!rendezvous_tokens_equal(hello.token, token)) {
    return "a connection gave another job's token; start every rank from one `rangereplay profile`, from "
           "launchers of one job (srun, mpirun), or with the same RANGEREPLAY_RENDEZVOUS_TOKEN";
  }
  if (hello.world_size != static_cast<std::uint32_t>(world_size)) {
    return "rank " + std::to_string(hello.rank) + " has world size " + std::to_string(hello.world_size) +
           " where rank 0 has " + std::to_string(world_size) + "; start every rank with the same WORLD_SIZE";
  }
  if (hello.rank == 0 || hello.rank >= static_cast<std::uint32_t>(world_size)) {
    return "a rank says it is rank " + std::to_string(hello.rank) + ", not from 1 to " +
           std::to_string(world_size - 1) + "; every rank needs a distinct RANK below WORLD_SIZE";
  }
  if (joined[hello.rank - 1].fd.valid()) {
    return "two processes say they are rank " + std::to_string(hello.rank) +
           "; every rank needs a distinct RANK below WORLD_SIZE";
  }
  return "";
}

/// Rank 0's door while the ranks join: the connections accepted and not yet
/// known (at most kMaxPendingConnections, each with its own hello deadline),
/// the ranks joined, and what was turned away. A connection that breaks a
/// rule (no hello in time, a garbled or over-long line, an error line,
/// another verb, a hello of another version, job token, world size, a rank
/// out of range or already taken) is told why and closed; it never fails
/// the session, so a stranger on the port cannot end it or take a rank's
/// place.
class Door {
 public:
  Door(int world_size, std::string_view token, const Deadline& deadline)
      : world_size_(world_size),
        token_(token),
        deadline_(deadline),
        joined_(static_cast<std::size_t>(world_size - 1)) {}

  int joined_count() const { return joined_count_; }
  std::vector<Connection>& joined() { return joined_; }
  std::deque<Connection>& pending() { return pending_; }

  /// Takes a connection just accepted: the oldest pending one goes if the
  /// door is full; what the new one has sent already is read at once.
  void take(ScopedFd fd) {
    if (pending_.size() >= kMaxPendingConnections) {
      turn_away(pending_.front(), "a connection sent no hello while " + std::to_string(kMaxPendingConnections) +
                                      " newer ones waited (a real rank says hello at once)");
      pending_.pop_front();
    }
    Connection c;
    c.fd = std::move(fd);
    c.hello_by = std::min(Clock::now() + kHelloTimeout, deadline_.at());
    pending_.push_back(std::move(c));
    receive_some(pending_.back());
    examine(pending_.back());
    forget_closed();
  }

  /// Reads the pending connections whose `revents` are set (in pending
  /// order) and admits, keeps or turns away each.
  void read(const std::vector<short>& revents) {
    for (std::size_t i = 0; i < pending_.size() && i < revents.size(); ++i) {
      if (revents[i] != 0) receive_some(pending_[i]);
      examine(pending_[i]);
    }
    forget_closed();
  }

  /// Turns away the connections whose hello is overdue; returns the
  /// earliest hello deadline left (the deadline when none).
  Clock::time_point expire() {
    const Clock::time_point now = Clock::now();
    Clock::time_point next = deadline_.at();
    for (Connection& c : pending_) {
      if (c.hello_by <= now) {
        turn_away(c, "a connection sent no hello within " + ms_text(kHelloTimeout));
      } else {
        next = std::min(next, c.hello_by);
      }
    }
    forget_closed();
    return next;
  }

  /// Notes that accept4 failed (the socket is not to blame for it).
  void accept_failed(int err) {
    last_accept_error_ = err;
    ++accept_failures_;
  }

  /// What was turned away, for rank 0's timeout error; empty when nothing was.
  std::string turned_away() const {
    std::string text;
    if (turned_away_count_ > 0) {
      text += "; rank 0 turned away " + std::to_string(turned_away_count_) + " connection(s), the last because " +
              last_turned_away_;
    }
    if (accept_failures_ > 0) {
      text += "; accepting a connection failed " + std::to_string(accept_failures_) + " time(s) (" +
              errno_text(last_accept_error_) + "): raise the file descriptor limit (ulimit -n) if it says so";
    }
    return text;
  }

 private:
  // Admits `c` if its hello is whole and right, turns it away if it broke a
  // rule or ended, else leaves it pending.
  void examine(Connection& c) {
    if (!c.fd.valid()) return;
    StatusOr<std::optional<std::string>> line = take_line(c);
    if (!line.ok()) return turn_away(c, without_prefix(line.status().message()));
    if (!line->has_value()) {
      if (c.closed) c.fd.reset();  // closed before its hello: a port probe, dropped without a word
      return;
    }
    StatusOr<RendezvousMessage> m = message_of(c, **line, "hello");
    if (!m.ok()) return turn_away(c, without_prefix(m.status().message()));
    auto& hello = std::get<HelloMessage>(*m);
    if (std::string why = hello_fault(hello, world_size_, token_, joined_); !why.empty()) return turn_away(c, why);
    c.rank = static_cast<int>(hello.rank);
    set_no_delay(c.fd.get());
    joined_[hello.rank - 1] = std::move(c);
    ++joined_count_;
  }

  // Tells `c` why and closes it.
  void turn_away(Connection& c, std::string why) {
    send_now(c, encode_rendezvous_message(ErrorMessage{why}));
    close_connection(c);
    ++turned_away_count_;
    last_turned_away_ = std::move(why);
  }

  void forget_closed() {
    std::erase_if(pending_, [](const Connection& c) { return !c.fd.valid(); });
  }

  int world_size_;
  std::string_view token_;
  const Deadline& deadline_;
  std::vector<Connection> joined_;  // rank r at r - 1
  std::deque<Connection> pending_;  // accepted, no hello yet; oldest first
  int joined_count_ = 0;
  int turned_away_count_ = 0;
  std::string last_turned_away_;
  int accept_failures_ = 0;
  int last_accept_error_ = 0;
};

/// Tells every open connection why rank 0 failed and closes them all.
void refuse_all(std::vector<Connection>& joined, std::deque<Connection>& pending, const Status& why) {
  const std::string line = encode_rendezvous_message(ErrorMessage{without_prefix(why.message())});
  for (Connection& c : joined) {
    send_now(c, line);
    close_connection(c);
  }
  for (Connection& c : pending) {
    send_now(c, line);
    close_connection(c);
  }
}

/// Milliseconds from now to `at` for poll(): 0 when passed, rounded up.
int poll_ms_until(Clock::time_point at) {
  const auto left = std::chrono::ceil<milliseconds>(at - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, INT_MAX));
}

/// Whether accept4's `err` says the process (or system) lacks descriptors
/// or memory: the connection stays queued and the socket readable, so
/// accepting again at once would spin.
bool accept_lacks_resources(int err) { return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM; }

/// Whether accept4's `err` concerns only the connection it took (aborted,
/// refused by a firewall, a network error Linux passes on): the next one
/// may be accepted at once.
bool accept_lost_one(int err) {
  return err == ECONNABORTED || err == EPROTO || err == EPERM || err == ENETDOWN || err == ENOPROTOOPT ||
         err == EHOSTDOWN || err == ENONET || err == EHOSTUNREACH || err == EOPNOTSUPP || err == ENETUNREACH ||
         err == EINTR;
}

}  // namespace

StatusOr<Rendezvous> Rendezvous::accept(RendezvousListener listener, int world_size, milliseconds timeout,
                                        std::string_view token) {
  RR_RETURN_IF_ERROR(check_arguments(0, world_size, timeout, token));
  if (listener.fd_ < 0) return invalid_argument(std::string(kPrefix) + "accept needs an open listener");
  const ScopedFd listen_fd(listener.release());
  const std::string where = listener.endpoint().to_string();
  const Deadline deadline(timeout);
  Door door(world_size, token, deadline);
  Clock::time_point accept_again{};  // after accept4 lacked resources: when to try again
  std::vector<pollfd> fds;
  std::vector<short> revents;
  // Every turn checks the deadline first, whatever poll and accept4 said
  // the turn before.
  while (door.joined_count() < world_size - 1) {
    if (deadline.passed()) {
      std::string missing;
      for (int r = 1; r < world_size; ++r)
        if (!door.joined()[r - 1].fd.valid()) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      std::string message = std::string(kPrefix) + "rank(s) " + missing + " of " + std::to_string(world_size);
      message += " did not join rank 0 at ";
      message += where;
      message += " within ";
      message += ms_text(timeout);
      message += "; start every rank under rangereplay with the same rendezvous endpoint";
      message += door.turned_away();
      Status s = unavailable(std::move(message));
      refuse_all(door.joined(), door.pending(), s);
      return s;
    }
    Clock::time_point wake = door.expire();
    const bool listening = Clock::now() >= accept_again;
    if (!listening) wake = std::min(wake, accept_again);
    fds.clear();
    if (listening) fds.push_back(pollfd{listen_fd.get(), POLLIN, 0});
    for (const Connection& c : door.pending()) fds.push_back(pollfd{c.fd.get(), POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), poll_ms_until(wake));
    if (ready < 0 && errno != EINTR) {
      Status s = unavailable(std::string(kPrefix) + "poll failed (" + errno_text(errno) + ")");
      refuse_all(door.joined(), door.pending(), s);
      return s;
    }
    if (ready <= 0) continue;
    const std::size_t first_pending = listening ? 1 : 0;
    revents.clear();
    for (std::size_t k = first_pending; k < fds.size(); ++k) revents.push_back(fds[k].revents);
    door.read(revents);
    if (!listening || (fds[0].revents & POLLIN) == 0) continue;
    for (int n = 0; n < kAcceptsPerTurn && door.joined_count() < world_size - 1; ++n) {
      const int fd = ::accept4(listen_fd.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd >= 0) {
        door.take(ScopedFd(fd));
        continue;
      }
      const int err = errno;
      if (err == EAGAIN || err == EWOULDBLOCK) break;
      if (accept_lost_one(err)) continue;
      // Out of descriptors or memory, or a fault of the socket itself: the
      // listening socket stays readable, so leave it alone for a while.
      door.accept_failed(err);
      accept_again = Clock::now() + (accept_lacks_resources(err) ? kAcceptBackoff : kAcceptBackoff * 5);
      break;
    }
  }
  for (Connection& c : door.pending()) close_connection(c);  // strays beyond the world size
  auto peers = std::make_unique<Peers>();
  peers->connections = std::move(door.joined());
  Rendezvous session(0, world_size, timeout, std::move(peers));
  RR_RETURN_IF_ERROR(session.broadcast(WelcomeMessage{static_cast<std::uint32_t>(world_size)}));
  return session;
}

// ---- Rendezvous: the exchanges ---------------------------------------------

StatusOr<std::vector<RendezvousMessage>> Rendezvous::collect(std::string_view verb) {
  StatusOr<std::vector<RendezvousMessage>> got =
      receive_from_each(peers_->connections, verb, Deadline(timeout_), timeout_);
  if (!got.ok()) return fail(got.status());
  return got;
}

Status Rendezvous::broadcast(const RendezvousMessage& answer) {
  const std::string line = encode_rendezvous_message(answer);
  const Deadline deadline(timeout_);
  for (Connection& c : peers_->connections) {
    if (Status s = send_line(c, line, deadline); !s.ok()) return fail(s);
  }
  return ok_status();
}

StatusOr<RendezvousMessage> Rendezvous::ask_root(const RendezvousMessage& own, std::string_view verb) {
  const Deadline deadline(2 * timeout_);
  if (Status s = send_line(peers_->connections.front(), encode_rendezvous_message(own), deadline); !s.ok()) {
    return fail(s);
  }
  StatusOr<std::vector<RendezvousMessage>> got = receive_from_each(peers_->connections, verb, deadline, 2 * timeout_);
  if (!got.ok()) return fail(got.status());
  return std::move(got->front());
}

Status Rendezvous::fail(Status error) {
  if (failure_.ok()) failure_ = std::move(error);
  if (peers_ != nullptr) {
    const std::string line = encode_rendezvous_message(ErrorMessage{without_prefix(failure_.message())});
    for (Connection& c : peers_->connections) {
      send_now(c, line);
      close_connection(c);
    }
    peers_->connections.clear();
  }
  return failure_;
}

StatusOr<Agreement> Rendezvous::agree(std::string_view range_key, const RangeVerdict& verdict) {
  if (failed()) return failure_;
  if (peers_ == nullptr) return failed_precondition(std::string(kPrefix) + "this session was moved to another object");
  if (verdict.replays() && (verdict.pass_count == 0 || verdict.pass_count > kMaxRendezvousPassCount)) {
    return fail(invalid_argument(std::string(kPrefix) + rank_text(rank_) + " proposed replay with " +
                                 std::to_string(verdict.pass_count) + " passes, not from 1 to " +
                                 std::to_string(kMaxRendezvousPassCount)));
  }
  ProposeMessage own{cut_rendezvous_text(range_key), verdict};
  if (own.verdict.decline) own.verdict.decline->detail = cut_rendezvous_text(own.verdict.decline->detail);
  if (rank_ != 0) {
    RR_ASSIGN_OR_RETURN(RendezvousMessage answer, ask_root(own, "outcome"));
    return std::get<OutcomeMessage>(std::move(answer)).agreement;
  }
  std::vector<RankProposal> proposals{RankProposal{0, own.range_key, own.verdict}};
  if (world_size_ > 1) {
    RR_ASSIGN_OR_RETURN(std::vector<RendezvousMessage> got, collect("propose"));
    for (std::size_t i = 0; i < got.size(); ++i) {
      auto& m = std::get<ProposeMessage>(got[i]);
      proposals.push_back(RankProposal{static_cast<int>(i) + 1, std::move(m.range_key), std::move(m.verdict)});
    }
  }
  OutcomeMessage outcome{decide_agreement(proposals)};
  // What the peers get is what rank 0 returns: the detail as the wire carries it.
  outcome.agreement.detail = cut_rendezvous_text(outcome.agreement.detail);
  if (world_size_ > 1) RR_RETURN_IF_ERROR(broadcast(outcome));
  return std::move(outcome.agreement);
}

Status Rendezvous::barrier(std::uint32_t pass_index) {
  if (failed()) return failure_;
  if (peers_ == nullptr) return failed_precondition(std::string(kPrefix) + "this session was moved to another object");
  if (world_size_ == 1) return ok_status();
  if (rank_ != 0) {
    RR_ASSIGN_OR_RETURN(RendezvousMessage answer, ask_root(ArriveMessage{pass_index}, "release"));
    const std::uint32_t released = std::get<ReleaseMessage>(answer).pass_index;
    if (released != pass_index) {
      return fail(invalid_argument(std::string(kPrefix) + "rank 0 released the barrier of pass " +
                                   std::to_string(released) + " where " + rank_text(rank_) + " is at pass " +
                                   std::to_string(pass_index) + "; every rank must meet at each pass in order"));
    }
    return ok_status();
  }
  RR_ASSIGN_OR_RETURN(std::vector<RendezvousMessage> got, collect("arrive"));
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::uint32_t at = std::get<ArriveMessage>(got[i]).pass_index;
    if (at != pass_index) {
      return fail(invalid_argument(std::string(kPrefix) + rank_text(static_cast<int>(i) + 1) +
                                   " arrived at the barrier of pass " + std::to_string(at) +
                                   " where rank 0 is at pass " + std::to_string(pass_index) +
                                   "; every rank must meet at each pass in order"));
    }
  }
  return broadcast(ReleaseMessage{pass_index});
}

}  // namespace rangereplay
