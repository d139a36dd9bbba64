// The application's process tree from /proc, and its end (see process_tree.h).
#include "cli/process_tree.h"

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <set>
#include <thread>

#include "core/base/ascii.h"
#include "report/report_file.h"

namespace rangereplay::cli {
namespace {

std::optional<pid_t> parse_pid(std::string_view text) {
  std::uint64_t value = 0;
  if (!parse_unsigned_decimal(text, value) || value > 0x7fffffff) return std::nullopt;
  return static_cast<pid_t>(value);
}

// Reaps every ended child without blocking. Returns whether children remain.
bool reap_ended(pid_t root, bool& root_reaped, std::size_t& reaped) {
  for (;;) {
    pid_t r = ::waitpid(-1, nullptr, WNOHANG);
    if (r > 0) {
      ++reaped;
      if (r == root) root_reaped = true;
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    return r == 0;  // 0: children left, none ended yet; -1 (ECHILD): none left
  }
}

}  // namespace

std::optional<pid_t> parent_in_proc_stat(std::string_view stat) {
  const std::size_t open = stat.find(" (");
  const std::size_t close = stat.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  if (!parse_pid(stat.substr(0, open))) return std::nullopt;
  // ") S 45 ...": one space, the state letter, one space, the parent pid.
  std::string_view rest = stat.substr(close + 1);
  if (rest.size() < 4 || rest[0] != ' ' || rest[2] != ' ') return std::nullopt;
  rest.remove_prefix(3);
  return parse_pid(rest.substr(0, rest.find(' ')));
}

std::map<pid_t, pid_t> read_parent_links(const std::string& proc_root) {
  std::map<pid_t, pid_t> parents;
  DIR* dir = ::opendir(proc_root.c_str());
  if (dir == nullptr) return parents;
  while (const dirent* entry = ::readdir(dir)) {
    std::optional<pid_t> pid = parse_pid(entry->d_name);
    if (!pid) continue;
    StatusOr<std::string> stat = report::read_text_file(proc_root + "/" + entry->d_name + "/stat");
    if (!stat.ok()) continue;  // ended meanwhile
    if (std::optional<pid_t> parent = parent_in_proc_stat(*stat)) parents[*pid] = *parent;
  }
  ::closedir(dir);
  return parents;
}

std::vector<pid_t> descendants_of(pid_t root, const std::map<pid_t, pid_t>& parents) {
  std::multimap<pid_t, pid_t> children;  // parent -> child, children in pid order
  for (const auto& [pid, parent] : parents) children.emplace(parent, pid);
  std::vector<pid_t> out;
  std::set<pid_t> seen = {root};  // a (malformed) cycle cannot repeat a pid
  auto add_children_of = [&](pid_t parent) {
    auto [begin, end] = children.equal_range(parent);
    for (auto it = begin; it != end; ++it) {
      if (seen.insert(it->second).second) out.push_back(it->second);
    }
  };
  add_children_of(root);
  for (std::size_t i = 0; i < out.size(); ++i) add_children_of(out[i]);
  return out;
}

Status set_child_subreaper(bool on) {
#ifdef __linux__
  if (::prctl(PR_SET_CHILD_SUBREAPER, on ? 1UL : 0UL, 0UL, 0UL, 0UL) != 0) {
    return internal_error(std::string("prctl(PR_SET_CHILD_SUBREAPER) failed: ") + std::strerror(errno));
  }
  return ok_status();
#else
  (void)on;
  return unimplemented("child subreapers exist only on Linux");
#endif
}

bool is_child_subreaper() {
#ifdef __linux__
  int value = 0;
  return ::prctl(PR_GET_CHILD_SUBREAPER, &value, 0UL, 0UL, 0UL) == 0 && value != 0;
#else
  return false;
#endif
}

ChildSubreaper::ChildSubreaper() : previous_(is_child_subreaper()) { active_ = set_child_subreaper(true).ok(); }

void ChildSubreaper::release() {
  if (!active_) return;
  active_ = false;
  if (!previous_) (void)set_child_subreaper(false);
}

TreeKill kill_process_tree(pid_t root, int max_rounds) {
  TreeKill result;
  bool root_reaped = false;
  bool children_left = true;
  std::chrono::milliseconds pause(1);
  for (;;) {
    ++result.rounds;
    // Scan, then kill: a process killed before the scan could end and leave
    // its children to init (no subreaper) before the scan finds them.
    for (pid_t pid : descendants_of(::getpid(), read_parent_links())) {
      if (::kill(pid, SIGKILL) == 0) ++result.signalled;
    }
    // The root by its pid too, whatever the scan saw (no /proc, another pid
    // namespace's /proc, no descriptors left): an unreaped child's pid cannot
    // have been reused, and the blocking wait below must not wait forever.
    if (!root_reaped && ::kill(root, SIGKILL) == 0) ++result.signalled;
    children_left = reap_ended(root, root_reaped, result.reaped);
    if (!children_left || result.rounds >= max_rounds) break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  if (!root_reaped) {
    // SIGKILL cannot be caught: it ends, if slowly (a driver call to finish).
    pid_t r;
    do {
      r = ::waitpid(root, nullptr, 0);
    } while (r < 0 && errno == EINTR);
    if (r == root) ++result.reaped;
    children_left = reap_ended(root, root_reaped, result.reaped);
  }
  result.left = children_left ? descendants_of(::getpid(), read_parent_links()).size() : 0;
  return result;
}

std::size_t reap_ended_children_except(pid_t keep) {
  std::size_t reaped = 0;
  for (const auto& [pid, parent] : read_parent_links()) {
    if (parent != ::getpid() || pid == keep) continue;
    pid_t r;
    do {
      r = ::waitpid(pid, nullptr, WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == pid) ++reaped;
  }
  return reaped;
}

}  // namespace rangereplay::cli
