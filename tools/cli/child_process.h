// Runs the application as a child process: its environment carries the
// injection variables, SIGINT/SIGTERM/SIGHUP/SIGQUIT sent to the launcher are
// passed on to it, and its exit status becomes the launcher's exit code.
//
//   RR_ASSIGN_OR_RETURN(pid_t pid, spawn_child({path, argv, env}));
//   ... (pid known: expand %p)
//   RR_ASSIGN_OR_RETURN(int wait_status, wait_child(pid));
//   return exit_code_from_wait_status(wait_status);
//
// or, when a check fails while it runs, kill_child(pid): the application's
// whole tree ends, not only the direct child.
//
// Thread-safety: one child at a time per process (the forwarding handler
// reads one global pid). Not async-signal-unsafe between fork and exec: all
// memory the child needs is prepared before fork.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "cli/process_tree.h"
#include "core/base/status.h"

namespace rangereplay::cli {

struct ChildSpec {
  std::string path;               // file to execute (from resolve_application)
  std::vector<std::string> argv;  // argv[0] is the name as the user typed it
  std::vector<std::string> env;   // complete environment, "NAME=value" entries
  // Close-on-exec descriptors the application inherits all the same (the
  // flag is cleared in the child only, between fork and exec).
  std::vector<int> inherited_fds;
  // Where the application's standard output and error go (descriptors
  // dup2'ed over 1 and 2 in the child); -1 leaves the launcher's.
  int stdout_fd = -1;
  int stderr_fd = -1;
  // The application's standard input (dup2'ed over 0); -1 leaves the launcher's.
  int stdin_fd = -1;
};

/// `base` ("NAME=value" entries, e.g. from environ) with `overrides` applied:
/// an entry whose name is overridden is replaced in place, the rest of the
/// overrides are appended in name order. Thread-safe (pure).
std::vector<std::string> merge_environment(const std::vector<std::string>& base,
                                           const std::map<std::string, std::string>& overrides);

/// The launcher's own environment as "NAME=value" entries.
std::vector<std::string> current_environment();

/// Forks and executes `spec` (a file the kernel refuses as a binary,
/// ENOEXEC, runs through /bin/sh, as execvp does). Installs signal forwarding
/// before fork, so a signal arriving while starting is not lost. Errors: fork
/// fails (resource_exhausted); exec fails (not_found / permission_denied /
/// internal with strerror), reported from the child through a close-on-exec
/// pipe, after the failed child was reaped and forwarding removed.
StatusOr<pid_t> spawn_child(const ChildSpec& spec);

/// Waits until `pid` ends, forwarding SIGINT, SIGTERM, SIGHUP and SIGQUIT that
/// are sent to the launcher (signals a terminal sends to the whole foreground
/// process group are not sent twice). Removes forwarding afterwards. Returns
/// the raw wait status. Errors: internal when waitpid fails.
StatusOr<int> wait_child(pid_t pid);

/// The last of SIGINT, SIGTERM, SIGHUP and SIGQUIT that reached the launcher
/// between the last spawn_child and the end of its wait_child (including a
/// terminal's ^C sent to the whole process group, which is not forwarded
/// again), or 0 when none did: whether the user asked to stop, whatever the
/// application did with the signal. Async-signal-safe to read.
int signal_during_child();

/// Ends `pid` (started by spawn_child) and its whole process tree with
/// SIGKILL (kill_process_tree in process_tree.h: with a ChildSubreaper active
/// since before spawn_child, also the processes of the tree whose parents
/// already ended), reaps the launcher's children and removes signal
/// forwarding: for a child started before a check that then failed. The
/// application keeps its process group throughout. Returns what the kill did;
/// its `left` counts processes still ending when it gave up.
TreeKill kill_child(pid_t pid);

/// The launcher's exit code for a child's wait status: the child's exit code,
/// or 128 + signal number when a signal ended it (as shells report it).
int exit_code_from_wait_status(int wait_status);

}  // namespace rangereplay::cli
