// The launcher gate's pipe, its environment value and the wait at it (see
// launcher_gate.h).
#include "core/launcher_gate.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "core/ascii.h"

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

std::string LauncherGate::variable_value() const {
  return std::to_string(read_fd_) + ":" + std::to_string(inode_);
}

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

GateWait wait_at_launcher_gate(const char* value) noexcept {
  if (value == nullptr || *value == '\0') return {GateOutcome::kNoGate, 0};
  LauncherGateId id;
  try {
    StatusOr<LauncherGateId> parsed = parse_launcher_gate(value);
    if (!parsed.ok()) return {GateOutcome::kMalformed, 0};
    id = *parsed;
  } catch (...) {  // std::bad_alloc building the message
    return {GateOutcome::kMalformed, 0};
  }
  struct stat st {};
  if (::fstat(id.fd, &st) != 0 || !S_ISFIFO(st.st_mode) || static_cast<std::uint64_t>(st.st_ino) != id.inode) {
    return {GateOutcome::kNotThisPipe, 0};
  }
  const auto start = std::chrono::steady_clock::now();
  GateOutcome outcome = GateOutcome::kOpened;
  char buf[64];
  for (;;) {
    const ssize_t n = ::read(id.fd, buf, sizeof buf);
    if (n == 0) break;                         // end of file: every write end is closed
    if (n > 0 || errno == EINTR) continue;     // the launcher writes nothing; data is ignored
    outcome = GateOutcome::kReadError;
    break;
  }
  const double waited = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ::close(id.fd);
  return {outcome, waited};
}

GateWait pass_launcher_gate() noexcept {
  const GateWait wait = wait_at_launcher_gate(std::getenv(kLauncherGateVariable));
  ::unsetenv(kLauncherGateVariable);
  return wait;
}

}  // namespace rangereplay
