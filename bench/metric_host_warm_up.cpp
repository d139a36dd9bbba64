// What starting CUPTI's metric host library early saves the first range's
// counter set-up (RANGEREPLAY_METRIC_HOST_WARMUP, on by default). CPU only: the host API
// needs no GPU or driver.
//
// Each measurement runs in a fresh child process (the host API's one-time
// initialization happens once per process), in two modes:
//   cold    the set-up's host side as the first host-API use of the process:
//           a catalog for the chip, the set resolved on it, its config image
//           and pass count;
//   warmed  a thread runs cupti::warm_up_host_api() while the main thread
//           sleeps --start-up-ms (the application's own start-up between its
//           first context and its first range), then the same set-up.
// It prints the median of each mode over --repeat children, the warm-up's own
// time, and the ratio cold / warmed; raw numbers go to the JSON file given as
// the first argument.
//
//   metric_host_warm_up <out.json> [--chip GH100] [--set full] [--start-up-ms 500] [--repeat 5]
#include <sys/wait.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/config/metric_sets.h"
#include "cupti/metric_catalog.h"

namespace {

using rangereplay::cupti::MetricCatalog;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Sample {
  double set_up_ms = -1;  // the set-up's host side; negative on failure
  double warm_up_ms = 0;  // the warm-up thread's call (warmed mode)
};

// The counter set-up's host side for `set` on `chip`; -1 on failure.
double set_up(const std::string& chip, const std::string& set) {
  const auto start = Clock::now();
  auto catalog = MetricCatalog::create(chip);
  if (!catalog.ok()) return -1;
  auto resolved = rangereplay::resolve_metric_list("", set, [&](const std::string& m) { return catalog->contains(m); });
  if (!resolved.ok()) return -1;
  auto image = catalog->config_image(resolved->metrics);
  if (!image.ok()) return -1;
  if (!rangereplay::cupti::pass_count_of_config_image(*image).ok()) return -1;
  return ms_since(start);
}

// One measurement in a child process of its own.
Sample measure(bool warmed, const std::string& chip, const std::string& set, int start_up_ms) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t child = ::fork();
  if (child < 0) return {};
  if (child == 0) {
    ::close(fds[0]);
    Sample s;
    if (warmed) {
      std::thread warm([&] {
        const auto start = Clock::now();
        rangereplay::cupti::warm_up_host_api().ignore();
        s.warm_up_ms = ms_since(start);
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(start_up_ms));
      s.set_up_ms = set_up(chip, set);
      warm.join();
    } else {
      s.set_up_ms = set_up(chip, set);
    }
    const bool written = ::write(fds[1], &s, sizeof s) == static_cast<ssize_t>(sizeof s);
    ::_exit(written ? 0 : 1);
  }
  ::close(fds[1]);
  Sample s;
  if (::read(fds[0], &s, sizeof s) != static_cast<ssize_t>(sizeof s)) s = {};
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return s;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  CLI::App app{"The first range's counter set-up with and without CUPTI's host library started early (CPU only)"};
  std::string out_path, chip = "GH100", set = "full";
  int start_up_ms = 500, repeat = 5;
  app.add_option("out", out_path, "JSON file for the raw numbers")->required();
  app.add_option("--chip", chip, "chip name for CUPTI's host API")->capture_default_str();
  app.add_option("--set", set, "metric set the set-up builds")->capture_default_str();
  app.add_option("--start-up-ms", start_up_ms, "the application's start-up the warm-up overlaps, in ms")
      ->check(CLI::Range(0, 60000))
      ->capture_default_str();
  app.add_option("--repeat", repeat, "child processes per mode")->check(CLI::Range(1, 100))->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::vector<double> cold, warmed, warm_up;
  for (int i = 0; i < repeat; ++i) {
    const Sample c = measure(false, chip, set, start_up_ms);
    const Sample w = measure(true, chip, set, start_up_ms);
    if (c.set_up_ms < 0 || w.set_up_ms < 0) {
      std::fprintf(stderr,
                   "metric_host_warm_up: the set-up of '%s' on %s failed (run `metrics-probe --chip %s --set %s`)\n",
                   set.c_str(), chip.c_str(), chip.c_str(), set.c_str());
      return 1;
    }
    cold.push_back(c.set_up_ms);
    warmed.push_back(w.set_up_ms);
    warm_up.push_back(w.warm_up_ms);
  }
  const double c = median(cold), w = median(warmed), u = median(warm_up);
  std::printf("chip %s, set %s, %d children per mode, start-up %d ms\n", chip.c_str(), set.c_str(), repeat,
              start_up_ms);
  std::printf("%-34s %10s\n", "median", "ms");
  std::printf("%-34s %10.1f\n", "first set-up, cold", c);
  std::printf("%-34s %10.1f\n", "first set-up, after the warm-up", w);
  std::printf("%-34s %10.1f\n", "the warm-up (on its thread)", u);
  std::printf("%-34s %9.2fx\n", "ratio cold / warmed", w > 0 ? c / w : 0.0);
  nlohmann::json raw = {{"chip", chip},    {"set", set},          {"start_up_ms", start_up_ms},
                        {"cold_ms", cold}, {"warmed_ms", warmed}, {"warm_up_ms", warm_up}};
  std::ofstream(out_path) << raw.dump(2) << "\n";
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "metric_host_warm_up: %s\n", e.what());
  return 1;
}
