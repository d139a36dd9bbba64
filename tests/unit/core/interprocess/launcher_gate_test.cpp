// The launcher gate: the variable's format, and waiting at a pipe only when
// the descriptor really is the launcher's pipe.
#include "core/interprocess/launcher_gate.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace rangereplay {
namespace {

using namespace std::chrono_literals;

std::uint64_t inode_of(int fd) {
  struct stat st {};
  EXPECT_EQ(::fstat(fd, &st), 0);
  return static_cast<std::uint64_t>(st.st_ino);
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

std::string gate_value(int fd, std::uint64_t inode) { return std::to_string(fd) + ":" + std::to_string(inode); }

// The application's own copy of the read end (as inherited through exec), so
// that the wait's close does not touch the LauncherGate's descriptor.
int child_copy_of_read_end(const LauncherGate& gate) { return ::dup(gate.read_fd()); }

// Opens `gate` after `delay` on another thread.
std::thread open_later(LauncherGate& gate, std::chrono::milliseconds delay) {
  return std::thread([&gate, delay] {
    std::this_thread::sleep_for(delay);
    gate.open();
  });
}

TEST(ParseLauncherGate, reads_fd_and_inode) {
  StatusOr<LauncherGateId> id = parse_launcher_gate("5:123456789012");
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(*id, (LauncherGateId{5, 123456789012ull}));
  StatusOr<LauncherGateId> zero = parse_launcher_gate("0:0");
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(*zero, (LauncherGateId{0, 0}));
  StatusOr<LauncherGateId> large = parse_launcher_gate("2147483647:18446744073709551615");
  ASSERT_TRUE(large.ok());
  EXPECT_EQ(*large, (LauncherGateId{2147483647, 18446744073709551615ull}));
}

TEST(ParseLauncherGate, refuses_anything_but_two_decimal_numbers) {
  for (const char* bad : {"", "5", "5:", ":7", "-1:7", "5:-7", "+5:7", " 5:7", "5:7 ", "5:7:9", "a:b", "5;7",
                          "2147483648:7", "5:18446744073709551616", "0x5:7"}) {
    StatusOr<LauncherGateId> id = parse_launcher_gate(bad);
    ASSERT_FALSE(id.ok()) << "'" << bad << "'";
    EXPECT_EQ(id.status().code(), StatusCode::kInvalidArgument) << "'" << bad << "'";
  }
  EXPECT_EQ(parse_launcher_gate("5:x").status().message(),
            "RANGEREPLAY_GATE '5:x' is not <fd>:<inode> (two decimal numbers)");
}

TEST(LauncherGate, names_its_read_end_and_the_pipe_inode) {
  StatusOr<LauncherGate> gate = LauncherGate::create();
  ASSERT_TRUE(gate.ok()) << gate.status().message();
  StatusOr<LauncherGateId> id = parse_launcher_gate(gate->variable_value());
  ASSERT_TRUE(id.ok()) << gate->variable_value();
  EXPECT_EQ(id->fd, gate->read_fd());
  EXPECT_EQ(id->inode, inode_of(gate->read_fd()));
  EXPECT_NE(::fcntl(gate->read_fd(), F_GETFD) & FD_CLOEXEC, 0) << "only the child clears close-on-exec";
  const int read_fd = gate->read_fd();
  gate->close_read_end();
  EXPECT_EQ(gate->read_fd(), -1);
  EXPECT_FALSE(is_open(read_fd));
}

TEST(WaitAtLauncherGate, returns_once_another_thread_opens_the_gate) {
  StatusOr<LauncherGate> gate = LauncherGate::create();
  ASSERT_TRUE(gate.ok());
  const int fd = child_copy_of_read_end(*gate);
  const std::string value = gate_value(fd, inode_of(gate->read_fd()));
  const auto start = std::chrono::steady_clock::now();
  std::thread opener = open_later(*gate, 100ms);
  const GateWait wait = wait_at_launcher_gate(value.c_str());
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  opener.join();
  EXPECT_EQ(wait.outcome, GateOutcome::kOpened);
  EXPECT_GE(elapsed_ms, 100.0);
  EXPECT_GE(wait.wait_ms, 90.0);
  EXPECT_LE(wait.wait_ms, elapsed_ms);
  EXPECT_FALSE(is_open(fd)) << "the application's copy is closed after the wait";
}

TEST(WaitAtLauncherGate, returns_at_once_when_the_gate_is_already_open) {
  StatusOr<LauncherGate> gate = LauncherGate::create();
  ASSERT_TRUE(gate.ok());
  const int fd = child_copy_of_read_end(*gate);
  const std::string value = gate_value(fd, inode_of(fd));
  gate->open();
  gate->open();  // idempotent
  const GateWait wait = wait_at_launcher_gate(value.c_str());
  EXPECT_EQ(wait.outcome, GateOutcome::kOpened);
  EXPECT_LT(wait.wait_ms, 50.0);
  EXPECT_FALSE(is_open(fd));
}

TEST(WaitAtLauncherGate, ignores_data_and_waits_for_end_of_file) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string value = gate_value(fds[0], inode_of(fds[0]));
  ASSERT_EQ(::write(fds[1], "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz", 72), 72);
  std::thread closer([w = fds[1]] {
    std::this_thread::sleep_for(50ms);
    ::close(w);
  });
  const GateWait wait = wait_at_launcher_gate(value.c_str());
  closer.join();
  EXPECT_EQ(wait.outcome, GateOutcome::kOpened);
  EXPECT_GE(wait.wait_ms, 40.0);
  EXPECT_FALSE(is_open(fds[0]));
}

TEST(WaitAtLauncherGate, does_not_read_a_pipe_with_another_inode) {
  StatusOr<LauncherGate> gate = LauncherGate::create();
  ASSERT_TRUE(gate.ok());
  StatusOr<LauncherGate> other = LauncherGate::create();
  ASSERT_TRUE(other.ok());
  // The variable names gate's inode, the descriptor number is other's pipe.
  const std::string value = gate_value(other->read_fd(), inode_of(gate->read_fd()));
  // Non-blocking, so a wait that wrongly reads fails (EAGAIN: kReadError) instead of hanging.
  ASSERT_EQ(::fcntl(other->read_fd(), F_SETFL, O_NONBLOCK), 0);
  const GateWait wait = wait_at_launcher_gate(value.c_str());
  EXPECT_EQ(wait.outcome, GateOutcome::kNotThisPipe);
  EXPECT_EQ(wait.wait_ms, 0.0);
  EXPECT_TRUE(is_open(other->read_fd())) << "a descriptor that is not the gate is left alone";
}

TEST(WaitAtLauncherGate, does_not_read_a_file_that_is_not_a_fifo) {
  const std::string path = ::testing::TempDir() + "rr_launcher_gate_file";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  const std::string value = gate_value(fd, inode_of(fd));  // the right inode, but a regular file
  const GateWait wait = wait_at_launcher_gate(value.c_str());
  EXPECT_EQ(wait.outcome, GateOutcome::kNotThisPipe);
  EXPECT_TRUE(is_open(fd));
  ::close(fd);
  ::unlink(path.c_str());
}

TEST(WaitAtLauncherGate, a_closed_descriptor_number_is_not_this_pipe) {
  StatusOr<LauncherGate> gate = LauncherGate::create();
  ASSERT_TRUE(gate.ok());
  const int fd = child_copy_of_read_end(*gate);
  const std::string value = gate_value(fd, inode_of(fd));
  ::close(fd);  // a grandchild that has the variable but not the descriptor
  const GateWait wait = wait_at_launcher_gate(value.c_str());
  EXPECT_EQ(wait.outcome, GateOutcome::kNotThisPipe);
  EXPECT_EQ(wait.wait_ms, 0.0);
}

TEST(WaitAtLauncherGate, no_or_an_empty_or_a_malformed_variable_waits_for_nothing) {
  EXPECT_EQ(wait_at_launcher_gate(nullptr).outcome, GateOutcome::kNoGate);
  EXPECT_EQ(wait_at_launcher_gate("").outcome, GateOutcome::kNoGate);
  for (const char* bad : {"3", "3:", "x:1", "-1:5", "3:1:2"}) {
    const GateWait wait = wait_at_launcher_gate(bad);
    EXPECT_EQ(wait.outcome, GateOutcome::kMalformed) << bad;
    EXPECT_EQ(wait.wait_ms, 0.0) << bad;
  }
}

TEST(WaitAtLauncherGate, a_read_error_proceeds_and_closes_the_descriptor) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  // The write end shares the pipe's inode but cannot be read: EBADF.
  const std::string value = gate_value(fds[1], inode_of(fds[0]));
  const GateWait wait = wait_at_launcher_gate(value.c_str());
  EXPECT_EQ(wait.outcome, GateOutcome::kReadError);
  EXPECT_FALSE(is_open(fds[1]));
  ::close(fds[0]);
}

TEST(TakeLauncherGate, takes_without_waiting_then_waits_until_the_gate_opens) {
  StatusOr<LauncherGate> gate = LauncherGate::create();
  ASSERT_TRUE(gate.ok());
  const int fd = child_copy_of_read_end(*gate);
  ASSERT_EQ(::setenv(kLauncherGateVariable, gate_value(fd, inode_of(fd)).c_str(), 1), 0);
  HeldLauncherGate held = take_launcher_gate();  // the gate is still shut: this must not block
  EXPECT_TRUE(held.held());
  EXPECT_NE(std::getenv(kLauncherGateVariable), nullptr);  // left alone: unsetenv would race with other threads
  EXPECT_NE(::fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);         // programs the application starts do not inherit it
  std::thread opener = open_later(*gate, 100ms);
  const GateWait wait = held.wait();
  opener.join();
  EXPECT_EQ(wait.outcome, GateOutcome::kOpened);
  EXPECT_GE(wait.wait_ms, 90.0);
  EXPECT_FALSE(held.held());
  EXPECT_FALSE(is_open(fd));
  const GateWait again = held.wait();  // a second wait returns at once
  EXPECT_EQ(again.outcome, GateOutcome::kOpened);
  EXPECT_EQ(again.wait_ms, 0.0);
  // The variable outlives the descriptor: a later taker finds no pipe there.
  EXPECT_EQ(take_launcher_gate().wait().outcome, GateOutcome::kNotThisPipe);
  ::unsetenv(kLauncherGateVariable);
}

TEST(TakeLauncherGate, a_number_reused_between_take_and_wait_is_neither_read_nor_closed) {
  StatusOr<LauncherGate> gate = LauncherGate::create();
  ASSERT_TRUE(gate.ok());
  const int fd = child_copy_of_read_end(*gate);
  HeldLauncherGate held = HeldLauncherGate::take(gate_value(fd, inode_of(fd)).c_str());
  ASSERT_TRUE(held.held());
  // The application closes the number and opens a file of its own on it.
  ::close(fd);
  const int null = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(null, 0);
  if (null != fd) {  // open() usually takes the lowest free number: fd itself
    ASSERT_EQ(::dup2(null, fd), fd);
    ::close(null);
  }
  const GateWait wait = held.wait();  // the gate is still shut: reading the pipe would block
  EXPECT_EQ(wait.outcome, GateOutcome::kNotThisPipe);
  EXPECT_EQ(wait.wait_ms, 0.0);
  EXPECT_TRUE(is_open(fd));  // the application's file stays open
  ::close(fd);
}

TEST(LauncherGate, never_uses_the_standard_stream_numbers) {
  const int saved = ::dup(0);
  ASSERT_GE(saved, 0);
  ::close(0);  // a launcher started with stdin closed: pipe2 would return 0
  StatusOr<LauncherGate> gate = LauncherGate::create();
  const int read_fd = gate.ok() ? gate->read_fd() : -1;
  ASSERT_EQ(::dup2(saved, 0), 0);
  ::close(saved);
  ASSERT_TRUE(gate.ok()) << gate.status().message();
  EXPECT_GT(read_fd, 2);
  EXPECT_NE(::fcntl(read_fd, F_GETFD) & FD_CLOEXEC, 0);
}

TEST(TakeLauncherGate, a_held_gate_never_waited_at_is_closed_when_dropped) {
  StatusOr<LauncherGate> gate = LauncherGate::create();
  ASSERT_TRUE(gate.ok());
  const int fd = child_copy_of_read_end(*gate);
  {
    HeldLauncherGate held = HeldLauncherGate::take(gate_value(fd, inode_of(fd)).c_str());
    EXPECT_TRUE(held.held());
    HeldLauncherGate moved = std::move(held);
    EXPECT_FALSE(held.held());
    EXPECT_TRUE(moved.held());
  }
  EXPECT_FALSE(is_open(fd));
}

TEST(TakeLauncherGate, a_malformed_variable_is_not_used) {
  // The value is given directly: take_launcher_gate() reads the variable once
  // per process, and another test of this binary may have read it first.
  HeldLauncherGate held = HeldLauncherGate::take("not a gate");
  EXPECT_FALSE(held.held());
  EXPECT_EQ(held.wait().outcome, GateOutcome::kMalformed);
}

TEST(GateOutcomeName, names_every_outcome) {
  EXPECT_STREQ(gate_outcome_name(GateOutcome::kNoGate), "no gate");
  EXPECT_STREQ(gate_outcome_name(GateOutcome::kOpened), "opened");
  EXPECT_STREQ(gate_outcome_name(GateOutcome::kNotThisPipe), "not this pipe");
  EXPECT_STREQ(gate_outcome_name(GateOutcome::kMalformed), "malformed");
  EXPECT_STREQ(gate_outcome_name(GateOutcome::kReadError), "read error");
}

}  // namespace
}  // namespace rangereplay
