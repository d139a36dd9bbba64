// The application's process tree: /proc parsing, the tree walk, the child
// subreaper setting, and the kill on real process trees (a shell that starts
// a background grandchild, a middle process that already exited, a child that
// keeps forking): after kill_child nothing of the tree runs.
#include "cli/process_tree.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/child_process.h"
#include "temp_tree.h"

namespace rangereplay::cli {
namespace {

using testing::TempTree;

bool wait_for_file(const std::string& path) {
  for (int i = 0; i < 1000; ++i) {  // up to 10 s
    if (std::filesystem::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Shell words that write `pid` (e.g. "$!") to t.path("gc"), whole once the
// file exists (written aside, then renamed): read it with read_pid_file.
std::string publish_pid(const TempTree& t, const std::string& pid) {
  return "echo " + pid + " > '" + t.path("gc.tmp") + "' && mv '" + t.path("gc.tmp") + "' '" + t.path("gc") + "'";
}

// The pid publish_pid wrote to `path`; -1 when it never came.
pid_t read_pid_file(const std::string& path) {
  if (!wait_for_file(path)) return -1;
  pid_t pid = -1;
  std::ifstream(path) >> pid;
  return pid;
}

// Running: listed in /proc and not a zombie (a zombie whose parent is gone
// waits for init, which in a container may never reap it).
bool running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  const std::size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return false;
  const char state = line[close + 2];
  return state != 'Z' && state != 'X';
}

std::optional<pid_t> parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  return parent_in_proc_stat(line);
}

std::vector<pid_t> own_descendants() { return descendants_of(::getpid(), read_parent_links()); }

StatusOr<pid_t> spawn_sh(const std::string& script) {
  return spawn_child({"/bin/sh", {"sh", "-c", script}, current_environment()});
}

TEST(ParentInProcStat, the_fourth_field_is_the_parent) {
  EXPECT_EQ(parent_in_proc_stat("123 (bash) S 45 123 123 34816 0"), 45);
  EXPECT_EQ(parent_in_proc_stat("1 (init) S 0 1 1 0 -1\n"), 0);
  EXPECT_EQ(parent_in_proc_stat("7 (a) R 2147483647"), 2147483647);
}

TEST(ParentInProcStat, a_command_name_with_spaces_and_parentheses_is_skipped_whole) {
  EXPECT_EQ(parent_in_proc_stat("77 (my app) S 12 77 77"), 12);
  EXPECT_EQ(parent_in_proc_stat("77 (a) S 9 (b)) Z 31 77 77"), 31);
  EXPECT_EQ(parent_in_proc_stat("77 () S 5 0"), 5);
}

TEST(ParentInProcStat, malformed_text_gives_no_parent) {
  EXPECT_EQ(parent_in_proc_stat(""), std::nullopt);
  EXPECT_EQ(parent_in_proc_stat("123 bash S 45"), std::nullopt);
  EXPECT_EQ(parent_in_proc_stat("x (bash) S 45"), std::nullopt);
  EXPECT_EQ(parent_in_proc_stat("123 (bash) S"), std::nullopt);
  EXPECT_EQ(parent_in_proc_stat("123 (bash) S x5"), std::nullopt);
  EXPECT_EQ(parent_in_proc_stat("123 (bash)S 45"), std::nullopt);
  EXPECT_EQ(parent_in_proc_stat("123 (bash) S 4294967296"), std::nullopt);
}

TEST(DescendantsOf, parents_come_before_their_children_and_others_are_left_out) {
  // 10 -> 11 -> 13 -> 14, 10 -> 12, 20 -> 21 (another tree), 1 -> 10.
  const std::map<pid_t, pid_t> parents = {{10, 1}, {11, 10}, {12, 10}, {13, 11}, {14, 13}, {20, 1}, {21, 20}};
  EXPECT_EQ(descendants_of(10, parents), (std::vector<pid_t>{11, 12, 13, 14}));
  EXPECT_EQ(descendants_of(13, parents), (std::vector<pid_t>{14}));
  EXPECT_EQ(descendants_of(1, parents), (std::vector<pid_t>{10, 20, 11, 12, 21, 13, 14}));
}

TEST(DescendantsOf, a_leaf_an_unknown_pid_and_an_empty_table_have_none) {
  const std::map<pid_t, pid_t> parents = {{10, 1}, {11, 10}};
  EXPECT_EQ(descendants_of(11, parents), std::vector<pid_t>{});
  EXPECT_EQ(descendants_of(99, parents), std::vector<pid_t>{});
  EXPECT_EQ(descendants_of(1, {}), std::vector<pid_t>{});
}

TEST(DescendantsOf, a_cycle_in_the_links_lists_each_pid_once) {
  EXPECT_EQ(descendants_of(5, {{5, 6}, {6, 5}, {7, 6}}), (std::vector<pid_t>{6, 7}));
}

TEST(ReadParentLinks, numeric_folders_with_a_well_formed_stat_are_read) {
  TempTree t;
  t.file("12/stat", 0644, "12 (a) S 1 12 12 0\n");
  t.file("13/stat", 0644, "13 (b ) c) R 12 13 13 0\n");
  t.file("self/stat", 0644, "99 (self) S 1\n");  // not a pid
  t.folder("14");                                // ended: no stat
  t.file("15/stat", 0644, "garbage");
  t.file("1x/stat", 0644, "16 (x) S 1\n");
  EXPECT_EQ(read_parent_links(t.root()), (std::map<pid_t, pid_t>{{12, 1}, {13, 12}}));
  EXPECT_EQ(read_parent_links(t.path("none")), (std::map<pid_t, pid_t>{}));
}

TEST(ReadParentLinks, the_real_proc_holds_this_process_and_its_parent) {
  const std::map<pid_t, pid_t> parents = read_parent_links();
  ASSERT_EQ(parents.count(::getpid()), 1u);
  EXPECT_EQ(parents.at(::getpid()), ::getppid());
}

TEST(ChildSubreaper, is_set_until_release_and_restored_after) {
  ASSERT_FALSE(is_child_subreaper());
  {
    ChildSubreaper adopt;
    ASSERT_TRUE(adopt.active());
    EXPECT_TRUE(is_child_subreaper());
    adopt.release();
    EXPECT_FALSE(adopt.active());
    EXPECT_FALSE(is_child_subreaper());
    adopt.release();  // idempotent
    EXPECT_FALSE(is_child_subreaper());
  }
  {
    ChildSubreaper adopt;
    EXPECT_TRUE(is_child_subreaper());
  }
  EXPECT_FALSE(is_child_subreaper());
}

TEST(ChildSubreaper, a_setting_found_on_is_left_on) {
  ASSERT_TRUE(set_child_subreaper(true).ok());
  {
    ChildSubreaper adopt;
    adopt.release();
    EXPECT_TRUE(is_child_subreaper());
  }
  EXPECT_TRUE(is_child_subreaper());
  ASSERT_TRUE(set_child_subreaper(false).ok());
  EXPECT_FALSE(is_child_subreaper());
}

// The fresh-clone report: `bash -c '(sleep 1; touch marker) & wait'` left the
// marker after a failed check killed bash.
TEST(KillChild, a_background_grandchild_ends_with_the_child) {
  TempTree t;
  ChildSubreaper adopt;
  // The grandchild, a shell in the background, writes its own pid, then sleeps
  // in a great-grandchild before it writes the marker.
  StatusOr<pid_t> pid = spawn_sh("sh -c 'echo $$ > \"$0.tmp\" && mv \"$0.tmp\" \"$0\"; sleep 0.3; : > \"$1\"' '" +
                                 t.path("gc") + "' '" + t.path("marker") + "' & wait");
  ASSERT_TRUE(pid.ok()) << pid.status().to_string();
  const pid_t grandchild = read_pid_file(t.path("gc"));
  ASSERT_GT(grandchild, 0);
  EXPECT_EQ(parent_of(grandchild), *pid);
  const TreeKill killed = kill_child(*pid);
  EXPECT_EQ(killed.left, 0u);
  EXPECT_GE(killed.signalled, 2u);  // the child and the grandchild at least
  // The child, the grandchild adopted when the child ended, and the sleep
  // unless the grandchild reaped it while dying.
  EXPECT_GE(killed.reaped, 2u);
  EXPECT_LE(killed.reaped, 3u);
  EXPECT_FALSE(running(grandchild));
  EXPECT_EQ(own_descendants(), std::vector<pid_t>{});
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_FALSE(std::filesystem::exists(t.path("marker")));
  EXPECT_EQ(::waitpid(*pid, nullptr, WNOHANG), -1) << "already reaped";
  EXPECT_EQ(errno, ECHILD);
}

TEST(KillChild, a_grandchild_whose_parent_already_exited_is_found_through_the_subreaper) {
  TempTree t;
  ChildSubreaper adopt;
  // The subshell starts `sleep 30` and exits: sleep's parent becomes this process.
  StatusOr<pid_t> pid = spawn_sh("(sleep 30 & " + publish_pid(t, "$!") + "); exec sleep 30");
  ASSERT_TRUE(pid.ok()) << pid.status().to_string();
  const pid_t grandchild = read_pid_file(t.path("gc"));
  ASSERT_GT(grandchild, 0);
  for (int i = 0; i < 500 && parent_of(grandchild) != ::getpid(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(parent_of(grandchild), ::getpid()) << "adopted, not re-parented to init";
  // The subshell has exited, but the child reaps it before its `exec sleep`:
  // until then the subshell is a zombie under the child, and would be
  // adopted (and reaped) too when the child is killed.
  const auto command_of = [](pid_t p) {
    std::string comm;
    std::ifstream("/proc/" + std::to_string(p) + "/comm") >> comm;
    return comm;
  };
  for (int i = 0; i < 500 && command_of(*pid) != "sleep"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(command_of(*pid), "sleep");
  ASSERT_TRUE(running(grandchild));
  const TreeKill killed = kill_child(*pid);
  EXPECT_EQ(killed.left, 0u);
  EXPECT_EQ(killed.reaped, 2u);
  EXPECT_FALSE(running(grandchild));
  EXPECT_EQ(::kill(grandchild, 0), -1) << "reaped, not a zombie";
  EXPECT_EQ(own_descendants(), std::vector<pid_t>{});
}

TEST(KillChild, without_the_subreaper_the_grandchildren_under_a_running_child_still_end) {
  TempTree t;
  ASSERT_FALSE(is_child_subreaper());
  StatusOr<pid_t> pid = spawn_sh("sleep 30 & " + publish_pid(t, "$!") + "; wait");
  ASSERT_TRUE(pid.ok()) << pid.status().to_string();
  const pid_t grandchild = read_pid_file(t.path("gc"));
  ASSERT_GT(grandchild, 0);
  const TreeKill killed = kill_child(*pid);
  EXPECT_EQ(killed.left, 0u);
  EXPECT_EQ(killed.reaped, 1u) << "the grandchild is not this process's child";
  for (int i = 0; i < 500 && running(grandchild); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(running(grandchild));
}

TEST(KillChild, a_child_that_keeps_forking_ends_with_everything_it_started) {
  TempTree t;
  ChildSubreaper adopt;
  StatusOr<pid_t> pid =
      spawn_sh(": > '" + t.path("ready") + "'; while :; do sleep 30 & (sleep 30 &); sleep 0.01; done");
  ASSERT_TRUE(pid.ok()) << pid.status().to_string();
  ASSERT_TRUE(wait_for_file(t.path("ready")));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_GE(own_descendants().size(), 3u);
  const TreeKill killed = kill_child(*pid);
  EXPECT_EQ(killed.left, 0u);
  EXPECT_GE(killed.reaped, 2u);
  EXPECT_EQ(own_descendants(), std::vector<pid_t>{});
  int status = 0;
  EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(KillChild, a_child_that_already_ended_is_reaped_with_its_orphans) {
  TempTree t;
  ChildSubreaper adopt;
  StatusOr<pid_t> pid = spawn_sh("sleep 30 & " + publish_pid(t, "$!") + "; exit 3");
  ASSERT_TRUE(pid.ok());
  const pid_t grandchild = read_pid_file(t.path("gc"));
  ASSERT_GT(grandchild, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const TreeKill killed = kill_process_tree(*pid);
  EXPECT_EQ(killed.left, 0u);
  EXPECT_EQ(killed.reaped, 2u);
  EXPECT_FALSE(running(grandchild));
  EXPECT_EQ(own_descendants(), std::vector<pid_t>{});
}

// The normal path: once the checks pass the launcher stops adopting, reaps
// the adopted orphans that ended, and leaves the application's status alone.
TEST(ReapEndedChildrenExcept, reaps_ended_children_but_keeps_the_given_one_waitable) {
  StatusOr<pid_t> kept = spawn_sh("exit 4");
  ASSERT_TRUE(kept.ok());
  const pid_t other = ::fork();
  ASSERT_GE(other, 0);
  if (other == 0) ::_exit(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(reap_ended_children_except(*kept), 1u);
  EXPECT_EQ(::waitpid(other, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_EQ(reap_ended_children_except(*kept), 0u);
  StatusOr<int> status = wait_child(*kept);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(exit_code_from_wait_status(*status), 4);
}

TEST(ReapEndedChildrenExcept, leaves_running_children_alone) {
  StatusOr<pid_t> pid = spawn_sh("exec sleep 30");
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(reap_ended_children_except(-1), 0u);
  EXPECT_TRUE(running(*pid));
  EXPECT_EQ(kill_child(*pid).left, 0u);
}

TEST(ChildSubreaper, after_release_an_orphan_is_not_adopted) {
  TempTree t;
  ChildSubreaper adopt;
  StatusOr<pid_t> pid =
      spawn_sh("while [ ! -e '" + t.path("go") + "' ]; do sleep 0.01; done; (sleep 30 & " + publish_pid(t, "$!") + ")");
  ASSERT_TRUE(pid.ok());
  adopt.release();  // before the subshell starts its orphan
  t.file("go");
  const pid_t orphan = read_pid_file(t.path("gc"));
  ASSERT_GT(orphan, 0);
  StatusOr<int> status = wait_child(*pid);
  ASSERT_TRUE(status.ok());
  std::optional<pid_t> parent = parent_of(orphan);
  ASSERT_TRUE(parent.has_value());
  EXPECT_NE(*parent, ::getpid());
  ::kill(orphan, SIGKILL);
}

}  // namespace
}  // namespace rangereplay::cli
