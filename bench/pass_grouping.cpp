// Whether grouping a metric list ourselves needs fewer counter passes than
// CUPTI's own scheduling of the whole list. CPU only: CUPTI's profiler host
// API answers pass counts from a chip name, with no GPU or driver.
//
// For each named set it prints the passes CUPTI schedules for the whole list
// and those of two groupings of our own, each group scheduled by CUPTI on its
// own: first fit (each metric joins the first group that still fits in one
// pass; a metric that alone needs several passes is a group of its own), and
// by hardware unit (the metric name's prefix before "__": dram, lts, sm, ...).
// Raw numbers go to the JSON file given as the first argument.
//
//   pass_grouping <out.json> [--chip GH100] [--set basic --set full ...]
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/config/metric_sets.h"
#include "cupti/metric_catalog.h"

namespace {

using rangereplay::cupti::MetricCatalog;

struct Grouping {
  std::uint32_t cupti_passes = 0;
  std::uint32_t grouped_passes = 0;
  std::size_t groups = 0;
  std::uint32_t unit_passes = 0;
  std::size_t units = 0;
  double seconds = 0;
};

// Passes of `names`, or 0 when CUPTI cannot schedule them together.
std::uint32_t passes_of(const MetricCatalog& catalog, const std::vector<std::string>& names) {
  auto n = catalog.pass_count(names);
  return n.ok() ? *n : 0;
}

Grouping group(const MetricCatalog& catalog, const std::vector<std::string>& metrics) {
  const auto start = std::chrono::steady_clock::now();
  Grouping g;
  g.cupti_passes = passes_of(catalog, metrics);
  std::vector<std::vector<std::string>> groups;
  std::vector<std::uint32_t> passes;
  for (const std::string& m : metrics) {
    bool placed = false;
    for (std::size_t i = 0; i < groups.size() && !placed; ++i) {
      if (passes[i] != 1) continue;
      groups[i].push_back(m);
      if (passes_of(catalog, groups[i]) == 1) {
        placed = true;
      } else {
        groups[i].pop_back();
      }
    }
    if (!placed) {
      groups.push_back({m});
      passes.push_back(passes_of(catalog, groups.back()));
    }
  }
  for (std::uint32_t p : passes) g.grouped_passes += p;
  g.groups = groups.size();
  std::map<std::string, std::vector<std::string>> by_unit;
  for (const std::string& m : metrics) by_unit[m.substr(0, m.find("__"))].push_back(m);
  for (const auto& [unit, names] : by_unit) g.unit_passes += passes_of(catalog, names);
  g.units = by_unit.size();
  g.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Counter passes of a metric list: CUPTI's scheduling against a first-fit grouping (CPU only)"};
  std::string out_path, chip = "GH100";
  std::vector<std::string> sets = {"basic", "full"};
  app.add_option("out", out_path, "JSON file for the raw numbers")->required();
  app.add_option("--chip", chip, "chip name for CUPTI's host API")->capture_default_str();
  app.add_option("--set", sets, "metric sets to compare")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto catalog = MetricCatalog::create(chip);
  if (!catalog.ok()) {
    std::fprintf(stderr, "pass_grouping: %s\n", catalog.status().message().c_str());
    return 1;
  }
  nlohmann::json raw;
  std::printf("%-8s %8s %14s %18s %8s %16s %8s %9s\n", "set", "metrics", "CUPTI passes", "first-fit passes", "ratio",
              "by-unit passes", "ratio", "seconds");
  for (const std::string& set : sets) {
    auto metrics = rangereplay::expand_metric_list("", set);
    if (!metrics.ok()) {
      std::fprintf(stderr, "pass_grouping: %s\n", metrics.status().message().c_str());
      return 1;
    }
    const Grouping g = group(*catalog, *metrics);
    raw[set] = {{"metrics", metrics->size()}, {"cupti_passes", g.cupti_passes}, {"grouped_passes", g.grouped_passes},
                {"groups", g.groups},         {"unit_passes", g.unit_passes},   {"units", g.units},
                {"seconds", g.seconds}};
    const auto ratio = [&](std::uint32_t ours) { return ours ? static_cast<double>(g.cupti_passes) / ours : 0.0; };
    std::printf("%-8s %8zu %14u %18u %7.2fx %16u %7.2fx %9.1f\n", set.c_str(), metrics->size(), g.cupti_passes,
                g.grouped_passes, ratio(g.grouped_passes), g.unit_passes, ratio(g.unit_passes), g.seconds);
  }
  std::ofstream(out_path) << raw.dump(2) << "\n";
  return 0;
}
