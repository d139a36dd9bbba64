// The launcher gate's pipe, its environment value and the wait at it (see
// launcher_gate.h).
#include "core/interprocess/launcher_gate.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "core/base/ascii.h"
#include "core/base/elapsed.h"

namespace rangereplay {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

StatusOr<LauncherGateId> parse_launcher_gate(std::string_view value) {
  const std::size_t colon = value.find(':');
  unsigned int fd = 0;
  LauncherGateId id;
  if (colon == std::string_view::npos || !parse_unsigned_decimal(value.substr(0, colon), fd) ||
      fd > static_cast<unsigned int>(std::numeric_limits<int>::max()) ||
      !parse_unsigned_decimal(value.substr(colon + 1), id.inode)) {
    return invalid_argument(std::string(kLauncherGateVariable) + " '" + std::string(value) +
                            "' is not <fd>:<inode> (two decimal numbers)");
  }
  id.fd = static_cast<int>(fd);
  return id;
}

StatusOr<LauncherGate> LauncherGate::create() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return resource_exhausted(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  // A launcher started with stdin, stdout or stderr closed gets 0-2 from
  // pipe2: the application would then take the gate for a standard stream.
  for (int& fd : fds) {
    if (fd > 2) continue;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    const int err = errno;
    ::close(fd);
    fd = moved;
    if (moved < 0) {
      for (int other : fds)
        if (other > 2) ::close(other);
      return resource_exhausted(std::string("cannot move a pipe off the standard streams: ") + std::strerror(err));
    }
  }
  struct stat st {};
  if (::fstat(fds[0], &st) != 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return resource_exhausted(std::string("cannot stat a pipe: ") + std::strerror(err));
  }
  return LauncherGate(fds[0], fds[1], static_cast<std::uint64_t>(st.st_ino));
}

LauncherGate::LauncherGate(LauncherGate&& other) noexcept
    : read_fd_(std::exchange(other.read_fd_, -1)),
      write_fd_(std::exchange(other.write_fd_, -1)),
      inode_(other.inode_) {}

LauncherGate& LauncherGate::operator=(LauncherGate&& other) noexcept {
  if (this != &other) {
    close_fd(read_fd_);
    close_fd(write_fd_);
    read_fd_ = std::exchange(other.read_fd_, -1);
    write_fd_ = std::exchange(other.write_fd_, -1);
    inode_ = other.inode_;
  }
  return *this;
}

LauncherGate::~LauncherGate() {
  close_fd(read_fd_);
  close_fd(write_fd_);
}

std::string LauncherGate::variable_value() const { return std::to_string(read_fd_) + ":" + std::to_string(inode_); }

void LauncherGate::close_read_end() { close_fd(read_fd_); }

void LauncherGate::open() { close_fd(write_fd_); }

const char* gate_outcome_name(GateOutcome outcome) {
  switch (outcome) {
    case GateOutcome::kNoGate: return "no gate";
    case GateOutcome::kOpened: return "opened";
    case GateOutcome::kNotThisPipe: return "not this pipe";
    case GateOutcome::kMalformed: return "malformed";
    case GateOutcome::kReadError: return "read error";
  }
  return "unknown";
}

HeldLauncherGate HeldLauncherGate::take(const char* value) noexcept {
  if (value == nullptr || *value == '\0') return {};
  LauncherGateId id;
  try {
    StatusOr<LauncherGateId> parsed = parse_launcher_gate(value);
    if (!parsed.ok()) return HeldLauncherGate(GateOutcome::kMalformed, -1);
    id = *parsed;
  } catch (...) {  // std::bad_alloc building the message
    return HeldLauncherGate(GateOutcome::kMalformed, -1);
  }
  struct stat st {};
  if (::fstat(id.fd, &st) != 0 || !S_ISFIFO(st.st_mode) || static_cast<std::uint64_t>(st.st_ino) != id.inode) {
    return HeldLauncherGate(GateOutcome::kNotThisPipe, -1);
  }
  const int flags = ::fcntl(id.fd, F_GETFD);
  if (flags >= 0) ::fcntl(id.fd, F_SETFD, flags | FD_CLOEXEC);
  return HeldLauncherGate(GateOutcome::kOpened, id.fd, static_cast<std::uint64_t>(st.st_ino),
                          static_cast<std::uint64_t>(st.st_dev));
}

HeldLauncherGate::HeldLauncherGate(HeldLauncherGate&& other) noexcept
    : outcome_(other.outcome_), fd_(std::exchange(other.fd_, -1)), inode_(other.inode_), device_(other.device_) {}

HeldLauncherGate& HeldLauncherGate::operator=(HeldLauncherGate&& other) noexcept {
  if (this != &other) {
    close_fd(fd_);
    outcome_ = other.outcome_;
    fd_ = std::exchange(other.fd_, -1);
    inode_ = other.inode_;
    device_ = other.device_;
  }
  return *this;
}

HeldLauncherGate::~HeldLauncherGate() { close_fd(fd_); }

GateWait HeldLauncherGate::wait() noexcept {
  if (fd_ < 0) return {outcome_, 0};
  // The application may have closed the number since take() and reused it
  // for a file of its own: then it is not read, and not closed, here.
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISFIFO(st.st_mode) || static_cast<std::uint64_t>(st.st_ino) != inode_ ||
      static_cast<std::uint64_t>(st.st_dev) != device_) {
    fd_ = -1;
    outcome_ = GateOutcome::kNotThisPipe;
    return {outcome_, 0};
  }
  const auto start = std::chrono::steady_clock::now();
  outcome_ = GateOutcome::kOpened;
  char buf[64];
  for (;;) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n == 0) break;                      // end of file: every write end is closed
    if (n > 0 || errno == EINTR) continue;  // the launcher writes nothing; data is ignored
    outcome_ = GateOutcome::kReadError;
    break;
  }
  const double waited = ms_since(start);
  close_fd(fd_);
  return {outcome_, waited};
}

GateWait wait_at_launcher_gate(const char* value) noexcept { return HeldLauncherGate::take(value).wait(); }

HeldLauncherGate take_launcher_gate() noexcept { return HeldLauncherGate::take(environment::gate()); }

}  // namespace rangereplay
