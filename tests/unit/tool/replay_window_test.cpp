// ReplayWindow with fakes: the order of the window's steps, one pass per
// call until the counter session has every pass, the exit-state hand-back
// after any failing step, the decline of a failed window, and the verify
// observer's view of every pass.
#include "tool/logic/replay_window.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace rangereplay::tool {
namespace {

using Log = std::vector<std::string>;

// Fails the step named `fail_at` the `fail_on`-th time it runs (1-based).
struct Failure {
  std::string fail_at;
  int fail_on = 1;
  int seen = 0;
  Status check(const std::string& step) {
    if (step != fail_at || ++seen != fail_on) return ok_status();
    return internal_error(step + " failed");
  }
};

class FakeRestore final : public RestoreStrategy {
 public:
  FakeRestore(Log& log, Failure& failure) : log_(log), failure_(failure) {}
  Status capture_exit() override { return step("capture_exit"); }
  Status restore_entry() override {
    ++restores_;
    return step("restore_entry");
  }
  Status read_back() override { return step("read_back"); }
  std::uint64_t restored_bytes() const override { return 100 * restores_; }
  Status restore_exit() override { return step("restore_exit"); }
  void restore_exit_after_failure() override { log_.push_back("restore_exit_after_failure"); }

 private:
  Status step(const std::string& name) {
    log_.push_back(name);
    return failure_.check(name);
  }
  Log& log_;
  Failure& failure_;
  std::uint64_t restores_ = 0;
};

// A counter session that needs `passes` passes; the first was pass 0 (the
// application's), so every end_pass of the window counts one more.
class FakeCounters final : public CounterPasses {
 public:
  FakeCounters(Log& log, Failure& failure, int passes) : log_(log), failure_(failure), passes_(passes) {}
  Status start_pass(const std::string& range_name) override {
    log_.push_back("start_pass " + range_name);
    RR_RETURN_IF_ERROR(failure_.check("start_pass"));
    in_pass_ = true;
    return ok_status();
  }
  StatusOr<bool> end_pass() override {
    log_.push_back("end_pass");
    in_pass_ = false;
    if (throw_at_end_pass) throw std::bad_alloc();
    RR_RETURN_IF_ERROR(failure_.check("end_pass"));
    return ++ended_ + 1 >= passes_;
  }
  bool in_pass() const override { return in_pass_; }
  Status push_range(const std::string& range_name) override {
    log_.push_back("push " + range_name);
    return failure_.check("push");
  }
  Status pop_range() override {
    log_.push_back("pop");
    return ok_status();
  }

  bool throw_at_end_pass = false;

 private:
  Log& log_;
  Failure& failure_;
  int passes_;
  int ended_ = 0;
  bool in_pass_ = false;
};

class FakeResubmission final : public Resubmission {
 public:
  FakeResubmission(Log& log, Failure& failure) : log_(log), failure_(failure) {}
  Status submit() override {
    log_.push_back("submit");
    return failure_.check("submit");
  }

 private:
  Log& log_;
  Failure& failure_;
};

class FakeStream final : public ReplayStream {
 public:
  FakeStream(Log& log, Failure& failure) : log_(log), failure_(failure) {}
  Status create_events() override {
    log_.push_back("create_events");
    return failure_.check("create_events");
  }
  void release_events() override { log_.push_back("release_events"); }
  Status record(Event e) override {
    log_.push_back("record " + name(e));
    return ok_status();
  }
  Status wait(Event e) override {
    log_.push_back("wait " + name(e));
    return ok_status();
  }
  Status synchronize() override {
    log_.push_back("synchronize");
    return ok_status();
  }
  StatusOr<float> elapsed_ms(Event from, Event) override {
    return from == Event::kRestoreBegin ? 1.5f : 2.25f;  // restore, replayed work
  }

 private:
  static std::string name(Event e) {
    switch (e) {
      case Event::kRestoreBegin: return "restore_begin";
      case Event::kRestoreEnd: return "restore_end";
      case Event::kWorkBegin: return "work_begin";
      case Event::kWorkEnd: return "work_end";
    }
    return "?";
  }
  Log& log_;
  Failure& failure_;
};

class FakeObserver final : public ReplayObserver {
 public:
  explicit FakeObserver(Log& log) : log_(log) {}
  void begin(report::RangeRecord&) override { log_.push_back("verify begin"); }
  void restored(report::PassRecord* previous, report::StageTimings&) override {
    log_.push_back("verify restored " + (previous ? std::to_string(previous->pass) : std::string("none")));
  }
  Status replayed(report::PassRecord& pass, report::StageTimings&) override {
    log_.push_back("verify replayed " + std::to_string(pass.pass));
    pass.divergences.push_back({pass.pass, 16, "fake"});
    return ok_status();
  }
  Status before_exit_restore(report::PassRecord& last, report::StageTimings&) override {
    log_.push_back("verify before_exit_restore " + std::to_string(last.pass));
    return ok_status();
  }
  void exit_restored(report::PassRecord& last, report::StageTimings&) override {
    log_.push_back("verify exit_restored " + std::to_string(last.pass));
  }
  void release() override { log_.push_back("verify release"); }

 private:
  Log& log_;
};

struct Fixture {
  explicit Fixture(int passes, bool with_verify = false)
      : restore(log, failure),
        counters(log, failure, passes),
        resubmission(log, failure),
        stream(log, failure),
        observer(log),
        verify(with_verify) {}
  std::optional<Decline> run(std::uint32_t pass_count, ReplayNotes notes = {}) {
    std::function<Status()> flush;
    if (flush_caches)
      flush = [this] {
        log.push_back("flush_caches");
        if (flush_sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(flush_sleep_ms));
        return failure.check("flush_caches");
      };
    std::function<Status(std::size_t)> barrier;
    if (barriers)
      barrier = [this](std::size_t pass) {
        log.push_back("barrier " + std::to_string(pass));
        return failure.check("barrier " + std::to_string(pass));
      };
    std::function<Status()> lead_in;
    if (lead_in_flush)
      lead_in = [this] {
        log.push_back("lead-in flush");
        return failure.check("lead-in flush");
      };
    return run_window(resubmission,
                      ReplayWindowParts{counters, stream, "step",
                                        [this](std::size_t pass) { log.push_back("pass " + std::to_string(pass)); },
                                        flush, barrier, lead_in},
                      pass_count, notes);
  }
  // A window of one member, as the immediate path runs it; its decline.
  std::optional<Decline> run_window(Resubmission& submit, ReplayWindowParts parts, std::uint32_t pass_count,
                                    ReplayNotes notes = {}) {
    std::function<bool()> module_unloaded = [this] { return unloaded; };
    std::vector<ReplayMember> members{
        ReplayMember{&restore, &submit, &record, "", verify ? &observer : nullptr, module_unloaded, notes}};
    ReplayWindow window(std::move(parts), pass_count);
    const Status s = window.run(members);
    steps = window.steps();
    if (s.ok()) return std::nullopt;
    return replay_window_decline(s, module_unloaded);
  }
  Log log;
  ReplayWindowSteps steps;
  Failure failure;
  FakeRestore restore;
  FakeCounters counters;
  FakeResubmission resubmission;
  FakeStream stream;
  FakeObserver observer;
  bool verify;
  bool unloaded = false;
  bool flush_caches = false;
  int flush_sleep_ms = 0;  // how long each flush takes on the host
  bool lead_in_flush = false;
  bool barriers = false;
  report::RangeRecord record;
};

const Log kOnePass = {"pass 1",    "record restore_begin", "restore_entry",   "record restore_end",
                      "read_back", "synchronize",          "start_pass step", "record work_begin",
                      "submit",    "record work_end",      "wait work_end",   "end_pass"};

Log concat(std::initializer_list<Log> parts) {
  Log out;
  for (const Log& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Log renumbered(Log pass, std::size_t n) {
  pass.front() = "pass " + std::to_string(n);
  return pass;
}

TEST(ReplayWindow, runs_one_pass_per_call_until_the_session_has_every_pass) {
  Fixture f(/*passes=*/3);
  EXPECT_EQ(f.run(3), std::nullopt);
  EXPECT_EQ(
      f.log,
      concat(
          {{"capture_exit", "create_events"}, kOnePass, renumbered(kOnePass, 2), {"restore_exit", "release_events"}}));
  // Pass 0 and two replays.
  EXPECT_EQ(f.record.passes, 3u);
  ASSERT_EQ(f.record.pass_records.size(), 2u);
  EXPECT_EQ(f.record.pass_records[0].pass, 1u);
  EXPECT_EQ(f.record.pass_records[0].restored_bytes, 100u);
  EXPECT_EQ(f.record.pass_records[1].pass, 2u);
  EXPECT_EQ(f.record.pass_records[1].restored_bytes, 200u);
  // Device times of the restore and of the replayed work, summed per pass.
  EXPECT_DOUBLE_EQ(f.record.timings.kernels_ms, 4.5);
  EXPECT_GE(f.record.timings.restore_ms, 3.0);
  EXPECT_TRUE(f.record.notes.empty());
}

TEST(ReplayWindow, times_each_host_step_and_names_them_in_one_line) {
  Fixture f(/*passes=*/3);
  f.flush_caches = true;
  f.flush_sleep_ms = 3;
  ASSERT_EQ(f.run(3), std::nullopt);
  const ReplayWindowSteps& t = f.steps;
  // Two flushes of 3 ms each, timed as the flush's step and no other.
  EXPECT_GE(t.flush_enqueue_ms, 6.0);
  EXPECT_LT(t.restore_enqueue_ms + t.read_back_ms + t.synchronize_ms + t.before_submit_ms + t.work_wait_ms, 6.0);
  // The re-submission's host time is the member's replay_submit_ms.
  EXPECT_DOUBLE_EQ(t.submit_ms, f.record.timings.replay_submit_ms);
  ReplayWindowSteps fixed;
  fixed.flush_enqueue_ms = 1.25;
  fixed.end_pass_ms = 30;
  const std::string line = describe_window_steps(fixed, 3);
  EXPECT_TRUE(line.starts_with("window of 3, host ms: exit captures 0.00, restore enqueue 0.00,")) << line;
  EXPECT_NE(line.find(" flush enqueue 1.25,"), std::string::npos) << line;
  EXPECT_NE(line.find(" synchronize 0.00, before submit 0.00, submit 0.00,"), std::string::npos) << line;
  EXPECT_TRUE(line.ends_with(" pass ends 30.00, hand-back 0.00")) << line;
}

TEST(ReplayWindow, a_flush_runs_after_each_restore_and_before_the_counters_start) {
  Fixture f(/*passes=*/2);
  f.flush_caches = true;
  EXPECT_EQ(f.run(2), std::nullopt);
  Log pass = kOnePass;
  pass.insert(std::find(pass.begin(), pass.end(), "synchronize"), "flush_caches");
  EXPECT_EQ(f.log, concat({{"capture_exit", "create_events"}, pass, {"restore_exit", "release_events"}}));
}

TEST(ReplayWindow, a_lead_in_flush_runs_after_the_counters_start_and_before_the_timed_work) {
  Fixture f(/*passes=*/2);
  f.flush_caches = true;
  f.lead_in_flush = true;
  EXPECT_EQ(f.run(2), std::nullopt);
  Log pass = kOnePass;
  pass.insert(std::find(pass.begin(), pass.end(), "synchronize"), "flush_caches");
  pass.insert(std::find(pass.begin(), pass.end(), "record work_begin"), "lead-in flush");
  EXPECT_EQ(f.log, concat({{"capture_exit", "create_events"}, pass, {"restore_exit", "release_events"}}));
}

TEST(ReplayWindow, a_lead_in_flush_that_fails_ends_the_open_pass_and_hands_back_the_exit_state) {
  Fixture f(/*passes=*/2);
  f.lead_in_flush = true;
  f.failure.fail_at = "lead-in flush";
  const std::optional<Decline> d = f.run(2);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->detail, "lead-in flush failed");
  const Log tail(f.log.end() - 4, f.log.end());
  EXPECT_EQ(tail, (Log{"lead-in flush", "release_events", "end_pass", "restore_exit_after_failure"}));
}

TEST(ReplayWindow, a_hand_back_step_that_throws_does_not_stop_the_next_one) {
  // A submit fails inside a pass; the guard's end_pass then throws (an
  // allocation failing as the error is built): the exit state is still
  // handed back, and nothing escapes the window.
  Fixture f(/*passes=*/2);
  f.failure = {"submit", 1};
  f.counters.throw_at_end_pass = true;
  const std::optional<Decline> declined = f.run(2);
  ASSERT_TRUE(declined.has_value());
  EXPECT_EQ(declined->detail, "submit failed");
  EXPECT_EQ(f.log.back(), "restore_exit_after_failure");
}

TEST(ReplayWindow, the_ranks_meet_before_each_submit_and_before_the_exit_state_is_handed_back) {
  Fixture f(/*passes=*/2);
  f.barriers = true;
  EXPECT_EQ(f.run(2), std::nullopt);
  Log pass = kOnePass;
  // The barrier comes before the work's begin event: no part of its GPU time.
  pass.insert(std::find(pass.begin(), pass.end(), "record work_begin"), "barrier 1");
  EXPECT_EQ(f.log, concat({{"capture_exit", "create_events"}, pass, {"barrier 2", "restore_exit", "release_events"}}));
}

TEST(ReplayWindow, a_barrier_that_fails_declines_with_its_reason_and_hands_back_the_exit_state) {
  Fixture f(/*passes=*/2);
  f.barriers = true;
  f.failure.fail_at = "barrier 1";
  const std::optional<Decline> d = f.run(2);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->detail, "barrier 1 failed");
  EXPECT_EQ(std::count(f.log.begin(), f.log.end(), "submit"), 0);
  EXPECT_NE(std::find(f.log.begin(), f.log.end(), "restore_exit_after_failure"), f.log.end());
}

TEST(ReplayWindow, a_flush_that_fails_declines_before_the_counters_start_and_hands_back_the_exit_state) {
  Fixture f(/*passes=*/2);
  f.flush_caches = true;
  f.failure.fail_at = "flush_caches";
  const std::optional<Decline> d = f.run(2);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->reason, DeclineReason::kReplayFailed);
  EXPECT_EQ(d->detail, "flush_caches failed");
  EXPECT_EQ(std::count(f.log.begin(), f.log.end(), "start_pass step"), 0);
  EXPECT_NE(std::find(f.log.begin(), f.log.end(), "restore_exit_after_failure"), f.log.end());
}

TEST(ReplayWindow, notes_name_the_restored_host_bytes_and_an_uncounted_pass_0) {
  Fixture f(/*passes=*/3);
  EXPECT_EQ(f.run(2, ReplayNotes{4096, /*counting_pass0=*/false, /*recorded_kernels=*/7}), std::nullopt);
  EXPECT_EQ(f.record.notes,
            (std::vector<std::string>{
                "4096 bytes of pinned host memory passed to kernels were restored with the snapshot",
                "pass 0 ran without counters (it sized the counter data to its 7 kernels); all 2 counter passes "
                "were replays"}));
}

TEST(ReplayWindow, a_restore_failing_mid_window_still_hands_back_the_exit_state) {
  Fixture f(/*passes=*/4);
  f.failure = {"restore_entry", 2};
  const std::optional<Decline> declined = f.run(4);
  ASSERT_TRUE(declined.has_value());
  EXPECT_EQ(declined->reason, DeclineReason::kReplayFailed);
  EXPECT_EQ(declined->detail, "restore_entry failed");
  // The second restore failed outside a counter pass: no end_pass, the
  // events released, then the exit state restored.
  EXPECT_EQ(
      f.log,
      concat({{"capture_exit", "create_events"},
              kOnePass,
              {"pass 2", "record restore_begin", "restore_entry", "release_events", "restore_exit_after_failure"}}));
  EXPECT_EQ(f.record.pass_records.size(), 1u);
}

TEST(ReplayWindow, a_failure_inside_a_counter_pass_ends_it_before_the_exit_state_is_restored) {
  Fixture f(/*passes=*/2);
  f.failure = {"submit", 1};
  const std::optional<Decline> declined = f.run(2);
  ASSERT_TRUE(declined.has_value());
  EXPECT_EQ(declined->reason, DeclineReason::kReplayFailed);
  EXPECT_EQ(declined->detail, "submit failed");
  const Log tail(f.log.end() - 4, f.log.end());
  EXPECT_EQ(tail, (Log{"submit", "release_events", "end_pass", "restore_exit_after_failure"}));
}

TEST(ReplayWindow, a_failure_with_verify_releases_the_events_then_the_observer_then_restores_the_exit_state) {
  Fixture f(/*passes=*/3, /*with_verify=*/true);
  f.failure = {"submit", 2};
  ASSERT_TRUE(f.run(3).has_value());
  const Log tail(f.log.end() - 5, f.log.end());
  EXPECT_EQ(tail, (Log{"submit", "release_events", "verify release", "end_pass", "restore_exit_after_failure"}));
}

TEST(ReplayWindow, a_window_that_completes_leaves_the_observer_to_its_owner) {
  Fixture f(/*passes=*/2, /*with_verify=*/true);
  ASSERT_EQ(f.run(2), std::nullopt);
  EXPECT_EQ(std::count(f.log.begin(), f.log.end(), "verify release"), 0);
}

TEST(ReplayWindow, a_failed_exit_capture_restores_nothing) {
  // Before the exit state exists there is nothing to hand back.
  Fixture f(/*passes=*/2);
  f.failure = {"capture_exit", 1};
  const std::optional<Decline> declined = f.run(2);
  ASSERT_TRUE(declined.has_value());
  EXPECT_EQ(declined->reason, DeclineReason::kReplayFailed);
  EXPECT_EQ(f.log, (Log{"capture_exit"}));
}

TEST(ReplayWindow, a_failed_exit_restore_is_tried_again) {
  Fixture f(/*passes=*/2);
  f.failure = {"restore_exit", 1};
  ASSERT_TRUE(f.run(2).has_value());
  const Log tail(f.log.end() - 3, f.log.end());
  EXPECT_EQ(tail, (Log{"restore_exit", "release_events", "restore_exit_after_failure"}));
}

TEST(ReplayWindow, a_module_unload_between_passes_stops_the_window) {
  Fixture f(/*passes=*/4);
  // Another thread unloads a module while the first replay runs.
  f.failure = {"never"};
  struct UnloadOnSubmit final : Resubmission {
    Fixture* f;
    Status submit() override {
      f->log.push_back("submit");
      f->unloaded = true;
      return ok_status();
    }
  } unload_on_submit;
  unload_on_submit.f = &f;
  const std::optional<Decline> declined =
      f.run_window(unload_on_submit, ReplayWindowParts{f.counters, f.stream, "step"}, 4);
  ASSERT_TRUE(declined.has_value());
  EXPECT_EQ(declined->reason, DeclineReason::kModuleUnloadInRange);
  EXPECT_EQ(declined->detail,
            "a module was unloaded by another thread since the range ended; its kernels cannot be launched again");
  // The second pass started its counters, found the unload before any
  // launch (and before the work's begin event), ended the pass and handed
  // the exit state back.
  const Log tail(f.log.end() - 5, f.log.end());
  EXPECT_EQ(tail, (Log{"synchronize", "start_pass step", "release_events", "end_pass", "restore_exit_after_failure"}));
  EXPECT_EQ(std::count(f.log.begin(), f.log.end(), "submit"), 1);
}

TEST(ReplayWindow, the_decline_of_a_failure_before_the_window_names_an_unload) {
  EXPECT_EQ(replay_window_decline(internal_error("x"), [] { return true; }).reason,
            DeclineReason::kModuleUnloadInRange);
  EXPECT_EQ(replay_window_decline(internal_error("x"), [] { return false; }).reason, DeclineReason::kReplayFailed);
  EXPECT_EQ(replay_window_decline(internal_error("x"), nullptr).detail, "x");
}

TEST(ReplayWindow, the_verify_observer_sees_every_pass) {
  Fixture f(/*passes=*/3, /*verify=*/true);
  EXPECT_EQ(f.run(3), std::nullopt);
  Log verify;
  for (const std::string& line : f.log)
    if (line.rfind("verify ", 0) == 0) verify.push_back(line);
  EXPECT_EQ(verify, (Log{"verify begin", "verify restored none", "verify replayed 1", "verify restored 1",
                         "verify replayed 2", "verify before_exit_restore 2", "verify exit_restored 2"}));
  // Its hooks come after the exit capture, after each synchronized restore
  // and around the exit restore.
  EXPECT_EQ(f.log[1], "verify begin");
  const auto before_exit = std::find(f.log.begin(), f.log.end(), "verify before_exit_restore 2");
  ASSERT_NE(before_exit, f.log.end());
  EXPECT_EQ(*(before_exit + 1), "restore_exit");
  ASSERT_EQ(f.record.pass_records.size(), 2u);
  EXPECT_EQ(f.record.pass_records[1].divergences.size(), 1u);
}

TEST(ReplayWindow, a_session_asking_for_too_many_passes_fails_the_window) {
  // A session that never reports every pass: at most 4 x 1 + 8 passes.
  Fixture f(/*passes=*/1000);
  const std::optional<Decline> declined = f.run(1);
  ASSERT_TRUE(declined.has_value());
  EXPECT_EQ(declined->detail, "CUPTI asked for more passes than the metric list needs");
  EXPECT_EQ(f.record.pass_records.size(), 11u);
  EXPECT_EQ(f.log.back(), "restore_exit_after_failure");
}

// A batch of two ranges over one fake session: each member logs under its
// own name.
class NamedRestore final : public RestoreStrategy {
 public:
  NamedRestore(std::string name, Log& log, Failure& failure) : name_(std::move(name)), log_(log), failure_(failure) {}
  Status capture_exit() override { return step("capture_exit"); }
  Status restore_entry() override {
    ++restores;
    if (launched != nullptr) *launched += kernels + (restores == one_more_at ? 1 : 0);
    return step("restore_entry");
  }
  Status read_back() override { return ok_status(); }
  std::uint64_t restored_bytes() const override { return 7; }

  // The tool's kernel launches, counted; each restore adds `kernels`, and the
  // `one_more_at`-th (1-based) one more.
  std::uint64_t* launched = nullptr;
  std::uint64_t kernels = 0;
  int one_more_at = 0;
  int restores = 0;
  Status restore_exit() override { return step("restore_exit"); }
  void restore_exit_after_failure() override { log_.push_back(name_ + " restore_exit_after_failure"); }

 private:
  Status step(const std::string& what) {
    log_.push_back(name_ + " " + what);
    return failure_.check(name_ + " " + what);
  }
  std::string name_;
  Log& log_;
  Failure& failure_;
};

class NamedResubmission final : public Resubmission {
 public:
  NamedResubmission(std::string name, Log& log, Failure& failure)
      : name_(std::move(name)), log_(log), failure_(failure) {}
  Status submit() override {
    log_.push_back(name_ + " submit");
    return failure_.check(name_ + " submit");
  }

 private:
  std::string name_;
  Log& log_;
  Failure& failure_;
};

struct BatchFixture {
  explicit BatchFixture(int passes)
      : counters(log, failure, passes + 1),  // no pass 0 in a batch: every pass is a replay
        stream(log, failure),
        restore_a("a", log, failure),
        restore_b("b", log, failure),
        submit_a("a", log, failure),
        submit_b("b", log, failure) {
    members = {ReplayMember{&restore_a, &submit_a, &record_a, "step#0"},
               ReplayMember{&restore_b, &submit_b, &record_b, "step#1"}};
  }
  Status run(std::uint32_t pass_count, bool flush = false) {
    ReplayWindowParts parts{counters,
                            stream,
                            "batch",
                            {},
                            flush ? std::function<Status()>([this] {
                              log.push_back("flush_caches");
                              ++launched;
                              return failure.check("flush_caches");
                            })
                                  : std::function<Status()>()};
    if (count_tool_kernels) parts.tool_kernels = [this] { return launched; };
    ReplayWindow window(std::move(parts), pass_count);
    const Status s = window.run(members);
    tool_kernels_before = window.tool_kernels_before();
    return s;
  }
  // The tool's kernels: the restores' and flushes' launches, counted by the
  // window when count_tool_kernels.
  std::uint64_t launched = 0;
  bool count_tool_kernels = false;
  std::optional<std::vector<std::size_t>> tool_kernels_before;
  // The lines of `log` that name a member, a pass, a counter range or a flush.
  Log steps() const {
    Log out;
    for (const std::string& line : log) {
      if (line.starts_with("a ") || line.starts_with("b ") || line.starts_with("start_pass") ||
          line.starts_with("end_pass") || line.starts_with("push") || line == "pop" || line == "flush_caches")
        out.push_back(line);
    }
    return out;
  }
  Log log;
  Failure failure;
  FakeCounters counters;
  FakeStream stream;
  NamedRestore restore_a, restore_b;
  NamedResubmission submit_a, submit_b;
  report::RangeRecord record_a, record_b;
  std::vector<ReplayMember> members;
};

TEST(ReplayWindowOfSeveral, one_start_and_stop_per_pass_for_every_member_each_restored_outside_its_counter_ranges) {
  BatchFixture f(/*passes=*/2);
  ASSERT_TRUE(f.run(2).ok());
  const Log pass = {"start_pass batch", "a restore_entry", "push step#0", "a submit", "pop",
                    "b restore_entry",  "push step#1",     "b submit",    "pop",      "end_pass"};
  EXPECT_EQ(f.steps(),
            concat({{"a capture_exit", "b capture_exit"}, pass, pass, {"b restore_exit", "a restore_exit"}}));
  // Every restore has finished (synchronize) before the member's counter range opens.
  const auto restore = std::find(f.log.begin(), f.log.end(), "a restore_entry");
  const auto push = std::find(restore, f.log.end(), "push step#0");
  EXPECT_NE(std::find(restore, push, "synchronize"), push);
  EXPECT_EQ(f.record_a.passes, 3u);
  EXPECT_EQ(f.record_b.pass_records.size(), 2u);
  EXPECT_DOUBLE_EQ(f.record_b.timings.kernels_ms, 2 * 2.25);
  EXPECT_DOUBLE_EQ(f.record_a.timings.counters_ms, f.record_b.timings.counters_ms);  // shared equally
}

TEST(ReplayWindowOfSeveral, a_flush_runs_after_each_members_restore_and_ends_before_its_counter_ranges_open) {
  BatchFixture f(/*passes=*/2);
  ASSERT_TRUE(f.run(2, /*flush=*/true).ok());
  const Log pass = {"start_pass batch", "a restore_entry", "flush_caches", "push step#0", "a submit", "pop",
                    "b restore_entry",  "flush_caches",    "push step#1",  "b submit",    "pop",      "end_pass"};
  EXPECT_EQ(f.steps(),
            concat({{"a capture_exit", "b capture_exit"}, pass, pass, {"b restore_exit", "a restore_exit"}}));
  const auto flush = std::find(f.log.begin(), f.log.end(), "flush_caches");
  const auto push = std::find(flush, f.log.end(), "push step#0");
  EXPECT_NE(std::find(flush, push, "synchronize"), push);
}

TEST(ReplayWindowOfSeveral, a_failure_hands_the_state_back_for_every_captured_member) {
  BatchFixture f(/*passes=*/2);
  f.failure.fail_at = "b submit";
  f.failure.fail_on = 1;
  EXPECT_EQ(f.run(2).message(), "b submit failed");
  const Log steps = f.steps();
  // The open pass is ended first, then both members restore their state.
  ASSERT_GE(steps.size(), 3u);
  EXPECT_EQ(Log(steps.end() - 3, steps.end()),
            (Log{"end_pass", "b restore_exit_after_failure", "a restore_exit_after_failure"}));
}

TEST(ReplayWindowOfSeveral, a_member_whose_module_was_unloaded_is_not_launched) {
  BatchFixture f(/*passes=*/2);
  f.members[1].module_unloaded = [] { return true; };
  const Status s = f.run(2);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  const Log steps = f.steps();
  EXPECT_EQ(std::count(steps.begin(), steps.end(), "b submit"), 0);
  EXPECT_EQ(Log(steps.end() - 2, steps.end()), (Log{"b restore_exit_after_failure", "a restore_exit_after_failure"}));
}

TEST(ReplayWindowOfSeveral, a_failed_capture_restores_only_the_members_captured_before_it) {
  BatchFixture f(/*passes=*/2);
  f.failure.fail_at = "b capture_exit";
  EXPECT_FALSE(f.run(2).ok());
  EXPECT_EQ(f.steps(), (Log{"a capture_exit", "b capture_exit", "a restore_exit_after_failure"}));
}

TEST(ReplayWindowOfSeveral, an_observer_is_refused_before_anything_runs) {
  // With several members, one member's restore would find another's
  // result: --verify replays each range in a window of its own.
  BatchFixture f(/*passes=*/2);
  FakeObserver observer(f.log);
  f.members[1].observer = &observer;
  const Status s = f.run(2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(f.log.empty());
}

TEST(ReplayWindowOfSeveral, the_ranks_meet_once_per_pass_before_the_first_member_submits) {
  BatchFixture f(/*passes=*/2);
  ReplayWindow window(ReplayWindowParts{f.counters,
                                        f.stream,
                                        "batch",
                                        {},
                                        {},
                                        [&f](std::size_t pass) {
                                          f.log.push_back("barrier " + std::to_string(pass));
                                          return ok_status();
                                        }},
                      2);
  ASSERT_TRUE(window.run(f.members).ok());
  Log seen;
  for (const std::string& line : f.log) {
    if (line.starts_with("barrier") || line.ends_with("submit") || line.ends_with("restore_exit")) seen.push_back(line);
  }
  EXPECT_EQ(seen, (Log{"barrier 1", "a submit", "b submit", "barrier 2", "a submit", "b submit", "barrier 3",
                       "b restore_exit", "a restore_exit"}));
}

TEST(ReplayWindowOfSeveral, each_member_gets_its_own_notes) {
  BatchFixture f(/*passes=*/2);
  f.members[0].notes = ReplayNotes{0, /*counting_pass0=*/false, /*recorded_kernels=*/3};
  ASSERT_TRUE(f.run(2).ok());
  EXPECT_EQ(f.record_a.notes,
            (std::vector<std::string>{"pass 0 ran without counters (it sized the counter data to its 3 kernels); "
                                      "all 2 counter passes were replays"}));
  EXPECT_TRUE(f.record_b.notes.empty());
}

TEST(ReplayWindowOfSeveral, counts_the_tool_kernels_each_pass_launches_before_each_members_work) {
  BatchFixture f(/*passes=*/3);
  f.count_tool_kernels = true;
  f.restore_a.launched = f.restore_b.launched = &f.launched;
  f.restore_a.kernels = 1;  // a full restore's copy kernel
  f.restore_b.kernels = 2;  // a restore of two launches (a digest, then a copy)
  ASSERT_TRUE(f.run(3, /*flush=*/true).ok());
  // Each member's flush is its last kernel before its work.
  ASSERT_TRUE(f.tool_kernels_before.has_value());
  EXPECT_EQ(*f.tool_kernels_before, (std::vector<std::size_t>{2, 3}));
  // The exit states, handed back after the last pass, are not counted.
  EXPECT_EQ(f.launched, 3u * (2u + 3u));
}

TEST(ReplayWindowOfSeveral, passes_that_launch_different_tool_kernels_give_no_count) {
  BatchFixture f(/*passes=*/3);
  f.count_tool_kernels = true;
  f.restore_a.launched = f.restore_b.launched = &f.launched;
  f.restore_b.kernels = 1;
  f.restore_b.one_more_at = 2;  // the second pass's restore of b launches two
  ASSERT_TRUE(f.run(3, /*flush=*/true).ok());
  EXPECT_FALSE(f.tool_kernels_before.has_value());
}

TEST(ReplayWindowOfSeveral, gives_no_count_without_the_counter) {
  BatchFixture f(/*passes=*/2);
  ASSERT_TRUE(f.run(2, /*flush=*/true).ok());
  EXPECT_FALSE(f.tool_kernels_before.has_value());
}

TEST(ReplayWindowOfSeveral, a_window_without_members_is_refused) {
  BatchFixture f(/*passes=*/2);
  std::vector<ReplayMember> none;
  ReplayWindow window(ReplayWindowParts{f.counters, f.stream, "batch"}, 2);
  EXPECT_EQ(window.run(none).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(f.log.empty());
}

TEST(EntryRestoreByCopyEngines, only_in_automatic_ranges_without_verify) {
  EXPECT_TRUE(entry_restore_by_copy_engines(true, false, true, 256 << 20, 0, 3));
  EXPECT_TRUE(entry_restore_by_copy_engines(true, false, false, 256 << 20, 0, 3));
  EXPECT_FALSE(entry_restore_by_copy_engines(false, false, true, 256 << 20, 0, 3));
  EXPECT_FALSE(entry_restore_by_copy_engines(false, false, false, 0, 0, 0));
  EXPECT_FALSE(entry_restore_by_copy_engines(true, true, true, 0, 0, 0));
  EXPECT_FALSE(entry_restore_by_copy_engines(true, true, false, 0, 0, 0));
}

TEST(EntryRestoreByCopyEngines, a_differential_restore_stays_for_large_or_pinned_entry_states) {
  EXPECT_TRUE(entry_restore_by_copy_engines(true, false, true, kCopyEngineEntryRestoreMaxBytes, 0, 1));
  EXPECT_FALSE(entry_restore_by_copy_engines(true, false, true, kCopyEngineEntryRestoreMaxBytes + 1, 0, 1));
  EXPECT_FALSE(entry_restore_by_copy_engines(true, false, true, 1 << 20, 1, 2));
  // A full restore copies every byte anyway: the copy engines at any size and on any tier.
  EXPECT_TRUE(entry_restore_by_copy_engines(true, false, false, std::uint64_t{64} << 30, std::uint64_t{8} << 30, 2));
}

TEST(EntryRestoreByCopyEngines, an_entry_state_of_many_pieces_keeps_its_own_restore) {
  // One cuMemcpyAsync per piece: past the limit, under either restore.
  EXPECT_TRUE(entry_restore_by_copy_engines(true, false, true, 1 << 20, 0, kCopyEngineEntryRestoreMaxPieces));
  EXPECT_FALSE(entry_restore_by_copy_engines(true, false, true, 1 << 20, 0, kCopyEngineEntryRestoreMaxPieces + 1));
  EXPECT_FALSE(entry_restore_by_copy_engines(true, false, false, 1 << 20, 0, kCopyEngineEntryRestoreMaxPieces + 1));
}

}  // namespace
}  // namespace rangereplay::tool
