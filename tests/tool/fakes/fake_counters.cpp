// The fake counter backend and the harness's set_up_counters (fake_counters.h).
#include "tool/fakes/fake_counters.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <utility>

#include "tool/counter_setup.h"
#include "tool/fakes/fake_cuda.h"

namespace rangereplay::fake {
namespace {

CounterOptions g_options;

// Kernels the fake device ran: the application's and the tool's.
std::uint64_t kernels_run() { return counts().launches + counts().tool_kernels; }

CounterLog g_log;
std::atomic<std::size_t> g_setup_steps_begun{0};
std::atomic<bool> g_setup_step_in_flight{false};

std::atomic<std::size_t> g_metric_host_warm_ups{0};
std::atomic<std::int64_t> g_warm_up_ms{0};
std::mutex g_warm_up_mutex;  // guards the two below
std::thread::id g_warm_up_thread;
std::size_t g_warm_ups_running = 0;
std::size_t g_warm_ups_begun = 0;
std::condition_variable g_warm_up_changed;  // g_warm_ups_running changed

class FakeCounterBackend final : public tool::CounterBackend {
 public:
  // Starts in `mode`, as set_up_counters leaves the real session (in the
  // configured mode).
  FakeCounterBackend(std::uint32_t pass_count, tool::CounterMode mode) : pass_count_(pass_count), mode_(mode) {}
  Status set_mode(tool::CounterMode mode) override {
    mode_ = mode;
    return ok_status();
  }
  Status resize(std::size_t max_ranges) override {
    if (max_ranges > g_options.most_ranges)
      return resource_exhausted("fake counters: " + std::to_string(max_ranges) + " counter ranges, more than the " +
                                std::to_string(g_options.most_ranges) + " one image holds");
    max_ranges_ = max_ranges;
    return ok_status();
  }
  Status begin_range() override {
    passes_since_begin_ = 0;
    ++g_log.ranges_begun;
    return ok_status();
  }
  Status start_pass(const std::string& range_name) override {
    if (in_pass_) return internal_error("fake counters: start_pass inside a pass");
    in_pass_ = true;
    // As the Range Profiler session: only a whole-range pass opens with a
    // lead-in range, and only when the image holds two ranges.
    pass_has_lead_in_ = lead_in_ && mode_ == tool::CounterMode::kWholeRange && max_ranges_ >= 2;
    rows_ = (pass_has_lead_in_ ? 1 : 0) + (mode_ == tool::CounterMode::kWholeRange ? 1 : 0);
    launches_at_start_ = kernels_run();
    copies_at_start_ = counts().async_copy_calls;
    tool_kernels_at_start_ = counts().tool_kernels;
    g_log.started.push_back(range_name);
    return ok_status();
  }
  StatusOr<bool> end_pass() override {
    if (!in_pass_) return internal_error("fake counters: end_pass outside a pass");
    in_pass_ = false;
    if (mode_ == tool::CounterMode::kPerKernel) {
      rows_ += kernels_run() - launches_at_start_;
      if (g_options.auto_ranges_count_copies) rows_ += counts().async_copy_calls - copies_at_start_;
      if (g_options.auto_ranges_drop_one && rows_ > 0) --rows_;
      if (g_options.auto_ranges_add_one) ++rows_;
      const std::uint64_t tool_kernels = counts().tool_kernels - tool_kernels_at_start_;
      if (g_options.auto_pass_fails_over_tool_kernels > 0 && tool_kernels > g_options.auto_pass_fails_over_tool_kernels)
        return internal_error("fake counters: " + std::to_string(tool_kernels) +
                              " of the tool's kernels in a pass of automatic ranges");
    }
    // As CUPTI: counter ranges past the image are dropped.
    dropped_ = rows_ > max_ranges_ ? rows_ - max_ranges_ : 0;
    decoded_rows_ = rows_ - dropped_;
    if (application_pass_) image_.push_back(static_cast<std::uint8_t>(passes_since_begin_));
    ++passes_since_begin_;
    ++g_log.passes;
    return passes_since_begin_ >= pass_count_;
  }
  Status push_range(const std::string&) override {
    if (!in_pass_ || mode_ != tool::CounterMode::kUserRanges)
      return failed_precondition("push_range outside a user-ranges pass");
    ++rows_;
    return ok_status();
  }
  Status pop_range() override {
    if (!in_pass_ || mode_ != tool::CounterMode::kUserRanges)
      return failed_precondition("pop_range outside a user-ranges pass");
    return ok_status();
  }
  Status set_lead_in(bool on) override {
    lead_in_ = on;
    return ok_status();
  }
  Status end_lead_in(const std::string&) override { return ok_status(); }
  bool pass_has_lead_in() const override { return pass_has_lead_in_; }
  StatusOr<std::size_t> decode() override { return dropped_; }
  StatusOr<std::vector<std::vector<double>>> evaluate() const override {
    ++g_log.evaluations;
    std::vector<std::vector<double>> rows(decoded_rows_, std::vector<double>(metrics_));
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::size_t m = 0; m < metrics_; ++m) rows[r][m] = counter_value(r, m);
    return rows;
  }
  // As the range profiler's backend: the rows left out stay zeros.
  StatusOr<std::vector<std::vector<double>>> evaluate_rows(const std::vector<bool>& wanted) const override {
    RR_ASSIGN_OR_RETURN(std::vector<std::vector<double>> rows, evaluate());
    for (std::size_t r = 0; r < rows.size() && r < wanted.size(); ++r) {
      if (wanted[r]) continue;
      rows[r].assign(rows[r].size(), 0.0);
      ++g_log.rows_left_out;
    }
    return rows;
  }
  bool in_pass() const override { return in_pass_; }
  std::size_t max_ranges() const override { return max_ranges_; }
  std::size_t most_ranges() const override { return g_options.most_ranges; }
  std::size_t bytes_per_range() const override { return 1024; }
  // Application range replay: pass `pass` over the carried image (a fresh
  // one of kImageBytes for pass 0); each pass's end_pass adds one byte, the
  // pass number, to the image the next run carries.
  Status begin_application_pass(const std::vector<std::uint8_t>& carried, std::size_t pass, std::uint16_t) override {
    if (mode_ != tool::CounterMode::kWholeRange)
      return failed_precondition("begin_application_pass outside whole-range mode");
    image_ = carried.empty() ? std::vector<std::uint8_t>(kImageBytes, 0) : carried;
    passes_since_begin_ = pass;
    application_pass_ = true;
    return ok_status();
  }
  std::span<const std::uint8_t> counter_data() const override { return image_; }
  std::size_t next_pass() const override { return passes_since_begin_; }
  std::size_t next_nesting_level() const override { return 1; }

  std::size_t metrics_ = 1;

 private:
  std::uint32_t pass_count_;
  tool::CounterMode mode_;
  std::size_t max_ranges_ = 1;
  std::size_t passes_since_begin_ = 0;
  bool in_pass_ = false;
  bool lead_in_ = false;
  bool pass_has_lead_in_ = false;
  std::size_t rows_ = 0;
  std::size_t decoded_rows_ = 0;
  std::uint64_t launches_at_start_ = 0;
  std::uint64_t tool_kernels_at_start_ = 0;
  std::uint64_t copies_at_start_ = 0;
  std::size_t dropped_ = 0;
  bool application_pass_ = false;
  std::vector<std::uint8_t> image_;
  static constexpr std::size_t kImageBytes = 16;
};

}  // namespace

void configure_counters(const CounterOptions& options) {
  g_options = options;
  g_log = CounterLog{};
  g_setup_steps_begun = 0;
}

std::size_t setup_steps_begun() { return g_setup_steps_begun.load(); }
bool setup_step_in_flight() { return g_setup_step_in_flight.load(); }

CounterLog counters() { return g_log; }

std::size_t metric_host_warm_ups() { return g_metric_host_warm_ups.load(); }

std::thread::id last_metric_host_warm_up_thread() {
  std::lock_guard<std::mutex> lock(g_warm_up_mutex);
  return g_warm_up_thread;
}

void set_metric_host_warm_up_time(std::chrono::milliseconds time) { g_warm_up_ms.store(time.count()); }

std::size_t metric_host_warm_ups_begun() {
  std::lock_guard<std::mutex> lock(g_warm_up_mutex);
  return g_warm_ups_begun;
}

bool metric_host_warm_ups_begun_over(std::size_t begun, std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(g_warm_up_mutex);
  return g_warm_up_changed.wait_for(lock, limit, [&] { return g_warm_ups_begun > begun; });
}

}  // namespace rangereplay::fake

namespace rangereplay::tool {

// The harness's definition (counter_setup.h; cupti_counters.cpp's is not
// linked into the tests).
StatusOr<CounterSetup> set_up_counters(CUcontext, const std::vector<std::string>& metrics, const std::string&,
                                       CounterSessionOptions options, const CounterSetupHooks& hooks) {
  if (!fake::g_options.setup_error.ok()) return fake::g_options.setup_error;
  for (const char* stage : {"configuring counters: chip name", "configuring counters: counter availability",
                            "configuring counters: config image"}) {
    if (hooks.stage) hooks.stage(stage);
    fake::g_setup_step_in_flight = true;
    ++fake::g_setup_steps_begun;
    std::this_thread::sleep_for(fake::g_options.setup_step_time);
    fake::g_setup_step_in_flight = false;
  }
  options.pass_count = fake::g_options.pass_count;
  auto backend = std::make_unique<fake::FakeCounterBackend>(options.pass_count,
                                                            configured_counter_mode(options.whole_range_metrics));
  backend->metrics_ = metrics.size();
  CounterSetup setup;
  setup.session = std::make_unique<CounterSession>(std::move(backend), metrics,
                                                   std::vector<std::string>(metrics.size(), ""), options, hooks.debug);
  setup.chip = "GH100";
  setup.backend = "fake";
  setup.metrics = metrics;
  fake::g_log.set_up = true;
  ++fake::g_log.set_ups;
  fake::g_log.set_up_thread = std::this_thread::get_id();
  {
    std::lock_guard<std::mutex> lock(fake::g_warm_up_mutex);
    if (fake::g_warm_ups_running > 0) fake::g_log.set_up_during_metric_host_warm_up = true;
  }
  return setup;
}

// The harness's definition: waits until no warm_up_metric_host call runs, as
// the real one waits for the host API's initialization on another thread.
Status metric_host_ready() noexcept {
  if (!fake::g_options.host_ready_error.ok()) return fake::g_options.host_ready_error;
  std::unique_lock<std::mutex> lock(fake::g_warm_up_mutex);
  if (!fake::g_warm_up_changed.wait_for(lock, std::chrono::seconds(10), [] { return fake::g_warm_ups_running == 0; }))
    return unavailable("the fake metric host warm-up has run for more than 10 s");
  return ok_status();
}

// The harness's definition: takes the time set, then counts the call and
// notes its thread.
void warm_up_metric_host() noexcept {
  {
    std::lock_guard<std::mutex> lock(fake::g_warm_up_mutex);
    ++fake::g_warm_ups_running;
    ++fake::g_warm_ups_begun;
  }
  fake::g_warm_up_changed.notify_all();
  std::this_thread::sleep_for(std::chrono::milliseconds(fake::g_warm_up_ms.load()));
  {
    std::lock_guard<std::mutex> lock(fake::g_warm_up_mutex);
    fake::g_warm_up_thread = std::this_thread::get_id();
    --fake::g_warm_ups_running;
  }
  fake::g_warm_up_changed.notify_all();
  fake::g_metric_host_warm_ups.fetch_add(1);
}

}  // namespace rangereplay::tool
