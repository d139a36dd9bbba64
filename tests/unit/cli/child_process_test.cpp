// The application as a child: environment, exec errors, signal forwarding and
// the exit-code mapping (exit code, 128 + signal).
#include "cli/child_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "core/interprocess/launcher_gate.h"
#include "temp_tree.h"

namespace rangereplay::cli {
namespace {

using testing::TempTree;

// Runs `script` with /bin/sh and returns the launcher's exit code for it.
int run_sh(const std::string& script, std::vector<std::string> env = {}) {
  ChildSpec spec{"/bin/sh", {"sh", "-c", script}, env.empty() ? current_environment() : env};
  StatusOr<pid_t> pid = spawn_child(spec);
  EXPECT_TRUE(pid.ok()) << pid.status().to_string();
  if (!pid.ok()) return -1;
  StatusOr<int> status = wait_child(*pid);
  EXPECT_TRUE(status.ok());
  return status.ok() ? exit_code_from_wait_status(*status) : -1;
}

bool wait_for_file(const std::string& path) {
  for (int i = 0; i < 1000; ++i) {  // up to 10 s
    if (std::filesystem::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(ExitCode, exit_status_passes_through) {
  EXPECT_EQ(exit_code_from_wait_status(W_EXITCODE(0, 0)), 0);
  EXPECT_EQ(exit_code_from_wait_status(W_EXITCODE(1, 0)), 1);
  EXPECT_EQ(exit_code_from_wait_status(W_EXITCODE(255, 0)), 255);
}

TEST(ExitCode, a_signal_becomes_128_plus_its_number) {
  EXPECT_EQ(exit_code_from_wait_status(W_EXITCODE(0, SIGINT)), 130);
  EXPECT_EQ(exit_code_from_wait_status(W_EXITCODE(0, SIGKILL)), 137);
  EXPECT_EQ(exit_code_from_wait_status(W_EXITCODE(0, SIGSEGV)), 139);
  EXPECT_EQ(exit_code_from_wait_status(W_EXITCODE(0, SIGTERM) | 0x80), 143);  // core dumped
}

TEST(ChildProcess, exit_codes_of_real_processes_pass_through) {
  EXPECT_EQ(run_sh("exit 0"), 0);
  EXPECT_EQ(run_sh("exit 7"), 7);
  EXPECT_EQ(run_sh("exit 255"), 255);
  EXPECT_EQ(run_sh("kill -TERM $$"), 143);
  EXPECT_EQ(run_sh("kill -KILL $$"), 137);
}

TEST(ChildProcess, the_child_gets_exactly_the_given_environment) {
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "RR_TEST_VALUE=yes"};
  EXPECT_EQ(run_sh("test \"$RR_TEST_VALUE\" = yes", env), 0);
  EXPECT_EQ(run_sh("test -z \"$HOME\"", env), 0);
}

TEST(ChildProcess, argv_zero_is_the_name_as_typed) {
  ChildSpec spec{"/bin/sh", {"my-name", "-c", "test \"$0\" = my-name"}, current_environment()};
  StatusOr<pid_t> pid = spawn_child(spec);
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(exit_code_from_wait_status(*wait_child(*pid)), 0);
}

TEST(ChildProcess, exec_failures_are_reported_as_errors_not_exit_codes) {
  TempTree t;
  StatusOr<pid_t> missing = spawn_child({t.path("gone"), {"./gone"}, {}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "application './gone' not found; check the path");
  std::string data = t.file("data", 0644);
  StatusOr<pid_t> not_exec = spawn_child({data, {data}, {}});
  ASSERT_FALSE(not_exec.ok());
  EXPECT_EQ(not_exec.status().code(), StatusCode::kPermissionDenied);
}

TEST(ChildProcess, a_script_without_interpreter_line_runs_through_sh) {
  TempTree t;
  std::string script = t.file("script", 0755, "exit $(( $1 + 1 ))\n");
  StatusOr<pid_t> pid = spawn_child({script, {script, "4"}, {"PATH=/usr/bin:/bin"}});
  ASSERT_TRUE(pid.ok()) << pid.status().to_string();
  EXPECT_EQ(exit_code_from_wait_status(*wait_child(*pid)), 5);
}

TEST(ChildProcess, sigterm_sent_to_the_launcher_reaches_the_child) {
  TempTree t;
  std::string ready = t.path("ready");
  ChildSpec spec{"/bin/sh",
                 {"sh", "-c", "trap 'exit 42' TERM; : > '" + ready + "'; while :; do sleep 0.01; done"},
                 current_environment()};
  StatusOr<pid_t> pid = spawn_child(spec);
  ASSERT_TRUE(pid.ok());
  ASSERT_TRUE(wait_for_file(ready));
  ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);  // to this process, which forwards it
  StatusOr<int> status = wait_child(*pid);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(exit_code_from_wait_status(*status), 42);
}

TEST(ChildProcess, sigint_sent_to_the_launcher_ends_a_child_without_handler) {
  TempTree t;
  std::string ready = t.path("ready");
  ChildSpec spec{"/bin/sh", {"sh", "-c", ": > '" + ready + "'; exec sleep 30"}, current_environment()};
  StatusOr<pid_t> pid = spawn_child(spec);
  ASSERT_TRUE(pid.ok());
  ASSERT_TRUE(wait_for_file(ready));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let sh exec sleep
  ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
  StatusOr<int> status = wait_child(*pid);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(exit_code_from_wait_status(*status), 130);
}

TEST(ChildProcess, forwarding_is_removed_after_the_child_ends) {
  EXPECT_EQ(run_sh("exit 0"), 0);
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGTERM, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
  ASSERT_EQ(::sigaction(SIGINT, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

// A child that reads `fd` (its stdin redirected from it) to end of file,
// then exits 7; 3 when it does not have `fd`.
ChildSpec reads_to_end_of_file(int fd) {
  return {
      "/bin/sh", {"sh", "-c", "cat <&" + std::to_string(fd) + " >/dev/null || exit 3; exit 7"}, current_environment()};
}

TEST(ChildProcess, an_inherited_gate_holds_the_child_until_it_opens) {
  StatusOr<LauncherGate> gate = LauncherGate::create();
  ASSERT_TRUE(gate.ok()) << gate.status().to_string();
  ChildSpec spec = reads_to_end_of_file(gate->read_fd());
  spec.inherited_fds = {gate->read_fd()};
  StatusOr<pid_t> pid = spawn_child(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().to_string();
  gate->close_read_end();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  int raw = 0;
  EXPECT_EQ(::waitpid(*pid, &raw, WNOHANG), 0) << "the child must still wait at the gate";
  gate->open();
  StatusOr<int> status = wait_child(*pid);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(exit_code_from_wait_status(*status), 7);
}

TEST(ChildProcess, a_gate_not_listed_as_inherited_is_closed_on_exec) {
  StatusOr<LauncherGate> gate = LauncherGate::create();
  ASSERT_TRUE(gate.ok());
  StatusOr<pid_t> pid = spawn_child(reads_to_end_of_file(gate->read_fd()));
  ASSERT_TRUE(pid.ok());
  StatusOr<int> status = wait_child(*pid);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(exit_code_from_wait_status(*status), 3);
}

TEST(ChildProcess, kill_child_ends_and_reaps_a_running_child_and_removes_forwarding) {
  ChildSpec spec{"/bin/sh", {"sh", "-c", "exec sleep 30"}, current_environment()};
  StatusOr<pid_t> pid = spawn_child(spec);
  ASSERT_TRUE(pid.ok());
  const auto start = std::chrono::steady_clock::now();
  kill_child(*pid);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(::waitpid(*pid, nullptr, WNOHANG), -1) << "already reaped";
  EXPECT_EQ(errno, ECHILD);
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGTERM, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

TEST(ChildProcess, kill_child_reaps_a_child_that_already_ended) {
  ChildSpec spec{"/bin/sh", {"sh", "-c", "exit 0"}, current_environment()};
  StatusOr<pid_t> pid = spawn_child(spec);
  ASSERT_TRUE(pid.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  kill_child(*pid);
  EXPECT_EQ(::waitpid(*pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(MergeEnvironment, overrides_replace_in_place_and_the_rest_are_appended) {
  std::vector<std::string> base = {"A=1", "CUDA_INJECTION64_PATH=/old.so", "B=2", "EMPTY="};
  std::vector<std::string> merged = merge_environment(base, {{"CUDA_INJECTION64_PATH", "/new.so"},
                                                             {"RANGEREPLAY_CONFIG", "/tmp/c.json"},
                                                             {"NVTX_INJECTION64_PATH", "/cupti.so"}});
  EXPECT_EQ(merged, (std::vector<std::string>{"A=1", "CUDA_INJECTION64_PATH=/new.so", "B=2", "EMPTY=",
                                              "NVTX_INJECTION64_PATH=/cupti.so", "RANGEREPLAY_CONFIG=/tmp/c.json"}));
}

TEST(MergeEnvironment, duplicates_of_an_overridden_name_are_dropped) {
  EXPECT_EQ(merge_environment({"X=1", "Y=2", "X=3"}, {{"X", "9"}}), (std::vector<std::string>{"X=9", "Y=2"}));
  EXPECT_EQ(merge_environment({}, {}), std::vector<std::string>{});
  EXPECT_EQ(merge_environment({"A=1"}, {}), std::vector<std::string>{"A=1"});
  EXPECT_EQ(merge_environment({"AB=1"}, {{"A", "2"}}), (std::vector<std::string>{"AB=1", "A=2"}));
}

}  // namespace
}  // namespace rangereplay::cli
