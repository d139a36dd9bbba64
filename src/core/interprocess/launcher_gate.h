// The launcher gate: lets `rangereplay profile` start the application before
// its slow device checks (cuInit, chip name, metric names: 220-450 ms on an
// H200) have finished, and still stop it before its first range is profiled
// when a check fails.
//
// The launcher creates a pipe, passes the read end to the application (the
// one inherited descriptor) and names it in RANGEREPLAY_GATE="<fd>:<inode>".
// The injection library takes the gate when it initializes (inside the
// application's first cuInit, without waiting) and waits at it only where it
// first needs the checks' verdict: when the first range begins. There it
// blocks in read() until end of file: the launcher closes its write end when
// the checks pass (every reader proceeds), or kills the application when they
// fail. The write end is close-on-exec and lives in the launcher only, so if
// the launcher dies the application proceeds: it never hangs.
//
//   Launcher:                                  Application (injection):
//     RR_ASSIGN_OR_RETURN(LauncherGate g,        HeldLauncherGate held = take_launcher_gate();
//                         LauncherGate::create());   ... the application runs ...
//     env[kLauncherGateVariable] = g.variable_value();
//     spawn with g.read_fd() inherited; g.close_read_end();
//     checks ok ? g.open() : kill the application     GateWait w = held.wait();  // first range
//
// A process that has the variable but not the descriptor (a grandchild whose
// parent closed it, the number reused by another file) must not read it: the
// descriptor is used only when fstat shows a FIFO with the named inode.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/environment.h"
#include "core/base/status.h"

namespace rangereplay {

/// The environment variable naming the gate: "<fd>:<st_ino of the pipe>".
inline constexpr const char* kLauncherGateVariable = environment::kGate;

/// A parsed RANGEREPLAY_GATE value.
struct LauncherGateId {
  int fd = -1;
  std::uint64_t inode = 0;
  friend bool operator==(const LauncherGateId&, const LauncherGateId&) = default;
};

/// Parses "<fd>:<inode>" (decimal, fd >= 0, nothing else). Errors:
/// invalid_argument naming the value. Thread-safe (pure).
StatusOr<LauncherGateId> parse_launcher_gate(std::string_view value);

/// The launcher's side: owns both ends of the pipe (both close-on-exec; the
/// child clears the flag on the read end between fork and exec). Closes
/// what is still open when destroyed. Not thread-safe; movable, not copyable.
class LauncherGate {
 public:
  /// Creates the pipe. Errors: resource_exhausted with strerror (pipe2 or
  /// fstat failed).
  static StatusOr<LauncherGate> create();

  LauncherGate(LauncherGate&& other) noexcept;
  LauncherGate& operator=(LauncherGate&& other) noexcept;
  LauncherGate(const LauncherGate&) = delete;
  LauncherGate& operator=(const LauncherGate&) = delete;
  ~LauncherGate();

  /// The read end, for the child to inherit; -1 after close_read_end().
  int read_fd() const { return read_fd_; }
  /// The value of kLauncherGateVariable for the child, e.g. "5:123456".
  std::string variable_value() const;
  /// The launcher's copy of the read end is not needed once the child runs.
  void close_read_end();
  /// Closes the write end: every process waiting at the gate reads end of
  /// file and proceeds. Idempotent.
  void open();

 private:
  LauncherGate(int read_fd, int write_fd, std::uint64_t inode)
      : read_fd_(read_fd), write_fd_(write_fd), inode_(inode) {}
  int read_fd_ = -1;
  int write_fd_ = -1;
  std::uint64_t inode_ = 0;
};

/// How passing the gate went.
enum class GateOutcome {
  kNoGate,       // no (or an empty) RANGEREPLAY_GATE: nothing to wait for
  kOpened,       // waited until end of file (the launcher's checks passed, or it died)
  kNotThisPipe,  // the fd is closed, not a FIFO, or another inode: not read, not closed
  kMalformed,    // the variable's value does not parse: nothing read
  kReadError,    // read() failed (not EINTR): proceeds at once; the fd was closed
};

/// Short English name of an outcome ("opened", "not this pipe", ...).
const char* gate_outcome_name(GateOutcome outcome);

struct GateWait {
  GateOutcome outcome = GateOutcome::kNoGate;
  double wait_ms = 0;  // time blocked in read(), ms; 0 unless kOpened or kReadError
};

/// The application's side: a gate taken from RANGEREPLAY_GATE and verified,
/// waited at later. Closes a descriptor it still holds when destroyed. Not
/// thread-safe (the tool calls it under its own lock); movable, not copyable.
class HeldLauncherGate {
 public:
  /// No gate (outcome kNoGate): wait() returns at once.
  HeldLauncherGate() = default;
  /// Verifies the gate `value` names (`value` may be nullptr: kNoGate) without
  /// reading it: the descriptor is kept only when fstat shows a FIFO with the
  /// named inode, and is made close-on-exec (programs the application starts
  /// do not inherit it). Never throws.
  static HeldLauncherGate take(const char* value) noexcept;

  HeldLauncherGate(HeldLauncherGate&& other) noexcept;
  HeldLauncherGate& operator=(HeldLauncherGate&& other) noexcept;
  HeldLauncherGate(const HeldLauncherGate&) = delete;
  HeldLauncherGate& operator=(const HeldLauncherGate&) = delete;
  ~HeldLauncherGate();

  /// True while a verified descriptor is held and not yet waited at.
  bool held() const { return fd_ >= 0; }

  /// The first call on a held gate checks the descriptor again (the same
  /// FIFO as at take(), else kNotThisPipe: not read, not closed), blocks in
  /// read() until end of file (data read is ignored, EINTR retried), closes
  /// the descriptor and returns kOpened (or kReadError: proceed) with the
  /// time blocked. Every other call
  /// returns the outcome of taking or of the first wait, with wait_ms 0.
  /// Never throws, never fails: every problem means "proceed".
  GateWait wait() noexcept;

 private:
  HeldLauncherGate(GateOutcome outcome, int fd, std::uint64_t inode = 0, std::uint64_t device = 0)
      : outcome_(outcome), fd_(fd), inode_(inode), device_(device) {}
  GateOutcome outcome_ = GateOutcome::kNoGate;
  int fd_ = -1;
  std::uint64_t inode_ = 0;  // the pipe's st_ino and st_dev at take(), checked again by wait()
  std::uint64_t device_ = 0;
};

/// HeldLauncherGate::take(value) followed by wait(): blocks at once.
GateWait wait_at_launcher_gate(const char* value) noexcept;

/// HeldLauncherGate::take on the process's RANGEREPLAY_GATE. The variable
/// stays (unsetenv would race with the application's threads reading the
/// environment); programs the application starts inherit it without the
/// descriptor, which take() made close-on-exec, so their check fails and
/// they do not wait. Thread-safe as getenv.
HeldLauncherGate take_launcher_gate() noexcept;

}  // namespace rangereplay
