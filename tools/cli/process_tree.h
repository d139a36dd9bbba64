// The application's whole process tree, from /proc: so that a failed device
// check ends every process the application started (a wrapper such as a shell
// script or torchrun runs the real work in its children), not only the
// launcher's direct child. The application stays in the terminal's
// foreground process group (no setpgid, so job control and ^C work as
// without the launcher): the tree is found from parent links instead.
//
// While the checks run the launcher is a child subreaper (Linux
// PR_SET_CHILD_SUBREAPER): a process of the tree whose parent ends is
// re-parented to the launcher, not to init, so it is still found.
//
//   ChildSubreaper adopt;                        // before spawn_child
//   pid_t pid = ...spawn_child(...);
//   if (check failed) kill_process_tree(pid);    // the tree and adopted orphans, reaped
//   adopt.release();                             // checks passed: normal run
//   reap_ended_children_except(pid);             // orphans adopted meanwhile that ended
//
// Thread-safety: the /proc readers are thread-safe; kill_process_tree and
// reap_ended_children_except reap children of this process, so no other
// thread may wait for them at the same time; the subreaper setting is
// process-wide.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace rangereplay::cli {

/// The parent pid in the text of /proc/<pid>/stat, "<pid> (<comm>) <state>
/// <ppid> ...". comm may hold spaces and ')', so the fields are read after the
/// last ')' (proc(5)). nullopt when the text is not in that form.
std::optional<pid_t> parent_in_proc_stat(std::string_view stat);

/// pid -> parent pid of every process under `proc_root` (its numeric folders
/// with a readable, well-formed stat file). A process that ends while the
/// folder is read is left out. Empty when `proc_root` cannot be opened.
std::map<pid_t, pid_t> read_parent_links(const std::string& proc_root = "/proc");

/// Every descendant of `root` in `parents` (pid -> parent pid), root itself
/// excluded, each parent before its children (breadth first, children in pid
/// order). Empty when `root` has no child there.
std::vector<pid_t> descendants_of(pid_t root, const std::map<pid_t, pid_t>& parents);

/// Makes this process a child subreaper (`on`) or stops it being one (Linux
/// prctl PR_SET_CHILD_SUBREAPER). Errors: internal with strerror when prctl
/// fails; unimplemented off Linux.
Status set_child_subreaper(bool on);

/// Whether this process is a child subreaper (false off Linux).
bool is_child_subreaper();

/// This process is a child subreaper from construction until release() or
/// destruction, which restore the setting found at construction. When prctl
/// fails nothing changes (active() is false): the tree is then found only
/// through processes whose parents are still running. Not copyable.
class ChildSubreaper {
 public:
  ChildSubreaper();
  ~ChildSubreaper() { release(); }
  ChildSubreaper(const ChildSubreaper&) = delete;
  ChildSubreaper& operator=(const ChildSubreaper&) = delete;
  /// Restores the previous setting. Idempotent.
  void release();
  bool active() const { return active_; }

 private:
  bool active_ = false;
  bool previous_ = false;
};

/// Rounds of kill_process_tree before it gives up on processes that do not
/// end: pauses of 1, 2, 4 ... ms capped at 50 ms, about 5 s in all.
inline constexpr int kKillRounds = 100;

struct TreeKill {
  int rounds = 0;             // rounds run (1 when everything ended at once)
  std::size_t signalled = 0;  // SIGKILLs sent (a slow process counts once per round)
  std::size_t reaped = 0;     // children of this process reaped: root and adopted orphans
  std::size_t left = 0;       // processes still descending from this process at the end (0: all ended)
};

/// Ends `root` (a child of this process), every process descending from it,
/// and every other child of this process, taken to be an orphan of the tree
/// adopted as child subreaper, with their descendants; reaps this process's
/// children. Each round reads the parent links from /proc, then sends SIGKILL
/// to every descendant of this process found (parents before children, so a
/// new child's parent is already dying), then reaps without blocking; it stops
/// when this process has no child left, or after `max_rounds` rounds. `root`
/// is reaped when this returns: after the last round it is waited for (it
/// cannot survive SIGKILL). Requires that this process has no child outside
/// the tree and that nothing else waits for its children. A pid of a
/// grandchild reaped by its own parent between the scan and the kill could in
/// principle be reused meanwhile (pids wrap only after pid_max processes).
TreeKill kill_process_tree(pid_t root, int max_rounds = kKillRounds);

/// Reaps the children of this process that have ended, except `keep`, whose
/// exit status stays for its own waitpid. Never blocks. Returns how many were
/// reaped.
std::size_t reap_ended_children_except(pid_t keep);

}  // namespace rangereplay::cli
