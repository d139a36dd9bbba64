// A fake CounterBackend (tool/logic/counter_session.h) for the unit tests of
// CounterSession and StandingPass: every call is written into a log, with
// the values, failures and image limits a test sets; and a fixture holding a
// CounterSession over it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "tool/logic/counter_session.h"

namespace rangereplay::tool::testing {

/// The backend's calls, in order ("set_mode 2", "push_range step#0", ...).
using Log = std::vector<std::string>;

/// A CounterBackend that writes each call into a Log: `values` is what
/// evaluate() returns, `fail_at` names the call that fails (set_mode or
/// end_pass), `most` and `bytes` the image's limits; an application pass
/// adds its pass number to `image` at its decode.
class FakeBackend final : public CounterBackend {
 public:
  explicit FakeBackend(Log& log) : log_(log) {}
  Status set_mode(CounterMode mode) override {
    log_.push_back("set_mode " + std::to_string(static_cast<int>(mode)));
    return fail_at == "set_mode" ? internal_error("set_mode failed") : ok_status();
  }
  Status resize(std::size_t n) override {
    log_.push_back("resize " + std::to_string(n));
    max_ranges_ = n;
    return ok_status();
  }
  Status begin_range() override {
    log_.push_back("begin_range");
    return ok_status();
  }
  Status start_pass(const std::string& name) override {
    log_.push_back("start_pass " + name);
    in_pass_ = true;
    return ok_status();
  }
  StatusOr<bool> end_pass() override {
    log_.push_back("end_pass");
    in_pass_ = false;
    if (fail_at == "end_pass") return internal_error("cuptiRangeProfilerStop failed");
    return all_submitted;
  }
  Status push_range(const std::string& name) override {
    log_.push_back("push_range " + name);
    return ok_status();
  }
  Status pop_range() override {
    log_.push_back("pop_range");
    return ok_status();
  }
  Status set_lead_in(bool on) override {
    log_.push_back(std::string("set_lead_in ") + (on ? "1" : "0"));
    return ok_status();
  }
  Status end_lead_in(const std::string& name) override {
    log_.push_back("end_lead_in " + name);
    return ok_status();
  }
  bool pass_has_lead_in() const override { return false; }
  StatusOr<std::size_t> decode() override {
    log_.push_back("decode");
    image.push_back(static_cast<std::uint8_t>(current_pass_));  // what a decoded pass adds to the image
    return std::size_t{0};
  }
  StatusOr<std::vector<std::vector<double>>> evaluate() const override {
    log_.push_back("evaluate");
    return values;
  }
  bool in_pass() const override { return in_pass_; }
  std::size_t max_ranges() const override { return max_ranges_; }
  std::size_t most_ranges() const override { return most; }
  std::size_t bytes_per_range() const override { return bytes; }
  Status begin_application_pass(const std::vector<std::uint8_t>& carried, std::size_t pass,
                                std::uint16_t nesting) override {
    log_.push_back("begin_application_pass " + std::to_string(carried.size()) + " " + std::to_string(pass) + " " +
                   std::to_string(nesting));
    image = carried.empty() ? std::vector<std::uint8_t>(4, 0) : carried;
    current_pass_ = pass;
    next_pass_ = pass + 1;  // CUPTI's pass index after the stop
    return ok_status();
  }
  std::span<const std::uint8_t> counter_data() const override { return image; }
  std::size_t next_pass() const override { return next_pass_; }
  std::size_t next_nesting_level() const override { return 1; }
  std::vector<std::uint8_t> image;
  std::size_t next_pass_ = 0;
  std::size_t current_pass_ = 0;

  std::vector<std::vector<double>> values;
  std::string fail_at;
  bool all_submitted = true;
  std::size_t most = 100000;
  std::size_t bytes = 9 * 1024 * 10;  // ~9 KB per metric and range, 10 metrics

 private:
  Log& log_;
  std::size_t max_ranges_ = 1;
  bool in_pass_ = false;
};

/// A CounterSession over a FakeBackend with one metric
/// (sm__cycles_elapsed.avg, in cycles); `log` has the backend's calls,
/// `debug` the session's debug lines.
struct Fixture {
  explicit Fixture(CounterSessionOptions options) {
    auto b = std::make_unique<FakeBackend>(log);
    backend = b.get();
    session = std::make_unique<CounterSession>(std::move(b), std::vector<std::string>{"sm__cycles_elapsed.avg"},
                                               std::vector<std::string>{"cycle"}, options,
                                               [this](const std::string& line) { debug.push_back(line); });
  }
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;
  StandingPass& standing() { return session->standing(); }
  Log log;
  Log debug;
  FakeBackend* backend = nullptr;
  std::unique_ptr<CounterSession> session;
};

/// Options of a one-pass metric list counted for whole ranges (the standing
/// pass applies).
inline CounterSessionOptions one_pass_whole_range() {
  CounterSessionOptions o;
  o.pass_count = 1;
  o.whole_range_metrics = true;
  return o;
}

}  // namespace rangereplay::tool::testing
