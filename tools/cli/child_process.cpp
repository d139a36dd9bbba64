// Child process start, signal forwarding and exit status (see child_process.h).
#include "cli/child_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

extern char** environ;  // NOLINT: POSIX

namespace rangereplay::cli {
namespace {

constexpr std::array<int, 4> kForwarded = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

volatile sig_atomic_t g_child_pid = 0;
volatile sig_atomic_t g_signal_seen = 0;
std::array<struct sigaction, kForwarded.size()> g_previous{};

void forward_signal(int sig, siginfo_t* info, void* /*context*/) {
  g_signal_seen = sig;
  // A terminal's ^C / ^\ is sent by the kernel (SI_KERNEL) to the whole
  // foreground process group, which includes the child: do not send it twice.
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  pid_t pid = g_child_pid;
  if (pid > 0) ::kill(pid, sig);
}

sigset_t forwarded_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kForwarded) sigaddset(&set, sig);
  return set;
}

void install_forwarding() {
  struct sigaction sa {};
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &sa, &g_previous[i]);
}

void remove_forwarding() {
  for (std::size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &g_previous[i], nullptr);
  g_child_pid = 0;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

Status exec_error(int err, const std::string& path) {
  switch (err) {
    case ENOENT: return not_found("application '" + path + "' not found; check the path");
    case EACCES:
      return permission_denied("application '" + path + "' is not executable; run chmod +x '" + path +
                               "' or check the path");
    default: return internal_error("cannot start '" + path + "': " + std::strerror(err));
  }
}

}  // namespace

std::vector<std::string> merge_environment(const std::vector<std::string>& base,
                                           const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> out;
  out.reserve(base.size() + overrides.size());
  std::map<std::string, bool> used;
  for (const std::string& entry : base) {
    std::string name = entry.substr(0, entry.find('='));
    auto it = overrides.find(name);
    if (it == overrides.end()) {
      out.push_back(entry);
    } else if (!used[name]) {
      out.push_back(name + "=" + it->second);
      used[name] = true;
    }  // a duplicate of an overridden name is dropped
  }
  for (const auto& [name, value] : overrides) {
    if (!used[name]) out.push_back(name + "=" + value);
  }
  return out;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

StatusOr<pid_t> spawn_child(const ChildSpec& spec) {
  // Everything the child touches is built before fork.
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = spec.env;
  std::vector<std::string> sh_strings = {"/bin/sh", spec.path};
  sh_strings.insert(sh_strings.end(), spec.argv.begin() + (spec.argv.empty() ? 0 : 1), spec.argv.end());
  std::vector<char*> argv = c_strings(argv_strings);
  std::vector<char*> envp = c_strings(env_strings);
  std::vector<char*> sh_argv = c_strings(sh_strings);
  const char* path = spec.path.c_str();
  const std::vector<int>& inherited = spec.inherited_fds;
  const int out_fd = spec.stdout_fd;
  const int err_fd = spec.stderr_fd;
  const int in_fd = spec.stdin_fd;
  g_signal_seen = 0;

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return resource_exhausted(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  // Block the forwarded signals across fork: one that arrives before the
  // child's pid is known stays pending and is forwarded once it is.
  sigset_t block = forwarded_set(), old_mask;
  ::sigprocmask(SIG_BLOCK, &block, &old_mask);
  install_forwarding();
  pid_t pid = ::fork();
  if (pid == 0) {
    // Child: only async-signal-safe calls from here on.
    for (std::size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &g_previous[i], nullptr);
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::close(pipe_fds[0]);
    for (int fd : inherited) ::fcntl(fd, F_SETFD, 0);
    if (out_fd >= 0) ::dup2(out_fd, STDOUT_FILENO);
    if (err_fd >= 0) ::dup2(err_fd, STDERR_FILENO);
    if (in_fd >= 0) ::dup2(in_fd, STDIN_FILENO);
    ::execve(path, argv.data(), envp.data());
    if (errno == ENOEXEC) ::execve("/bin/sh", sh_argv.data(), envp.data());
    int err = errno;
    ssize_t ignored = ::write(pipe_fds[1], &err, sizeof err);
    (void)ignored;
    ::_exit(127);
  }
  int fork_errno = errno;
  ::close(pipe_fds[1]);
  if (pid < 0) {
    ::close(pipe_fds[0]);
    remove_forwarding();
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    return resource_exhausted(std::string("cannot fork: ") + std::strerror(fork_errno));
  }
  g_child_pid = pid;
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);

  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(pipe_fds[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  ::close(pipe_fds[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    remove_forwarding();
    return exec_error(child_errno, spec.argv.empty() ? spec.path : spec.argv[0]);
  }
  return pid;
}

StatusOr<int> wait_child(pid_t pid) {
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid, &status, 0);
  } while (r < 0 && errno == EINTR);
  int err = errno;
  remove_forwarding();
  if (r < 0) return internal_error(std::string("waitpid failed: ") + std::strerror(err));
  return status;
}

TreeKill kill_child(pid_t pid) {
  // Signals that arrive during the kill are not forwarded: the pid may be
  // reaped, and reused, before the kill returns.
  g_child_pid = 0;
  TreeKill killed = kill_process_tree(pid);  // reaps `pid`: SIGKILL cannot be caught
  remove_forwarding();
  return killed;
}

int signal_during_child() { return g_signal_seen; }

int exit_code_from_wait_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;  // stopped/continued are not final states; waitpid without WUNTRACED never returns them
}

}  // namespace rangereplay::cli
