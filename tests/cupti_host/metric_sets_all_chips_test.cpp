// Every built-in metric set on every chip CUPTI's profiler host API knows from
// Ampere on, without a GPU: each set resolves (its roles to the chip's names,
// a role the chip lacks reported missing), its names validate, and it
// schedules; the test prints the passes per chip per set (the table in
// docs/performance.md). About 0.1 s per chip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/config/gpu_support.h"
#include "core/config/metric_sets.h"
#include "cupti/metric_catalog.h"

namespace rangereplay::cupti {
namespace {

struct SetOnChip {
  std::size_t metrics = 0;
  std::size_t missing = 0;
  uint32_t passes = 0;
};

// chip -> set name -> result, computed once for the tests below.
struct AllChips {
  std::vector<std::string> chips;  // from Ampere on, in the host API's order
  std::map<std::string, std::map<std::string, SetOnChip>> results;
  std::map<std::string, std::vector<std::string>> missing_full;  // chip -> roles of `full` it lacks
  std::set<std::string> spellings_seen;                          // every spelling some chip has
  std::vector<std::string> failures;                             // "<chip> <set>: <error>"
};

const AllChips& all_chips() {
  static const AllChips all = [] {
    AllChips a;
    auto chips = supported_chips();
    if (!chips.ok()) {
      a.failures.push_back("supported_chips: " + chips.status().to_string());
      return a;
    }
    for (const auto& chip : *chips)
      if (is_ampere_or_later_chip(chip)) a.chips.push_back(chip);
    for (const auto& chip : a.chips) {
      auto catalog = MetricCatalog::create(chip);
      if (!catalog.ok()) {
        a.failures.push_back(chip + ": " + catalog.status().to_string());
        continue;
      }
      const MetricPresence chip_has = [&](const std::string& n) { return catalog->contains(n); };
      for (const auto& set : metric_sets()) {
        for (const auto& role : set.metrics)
          for (const auto& name : role_spellings(role))
            if (catalog->contains(name)) a.spellings_seen.insert(name);
        auto resolved = resolve_metric_list("", set.name, chip_has);
        if (!resolved.ok()) {
          a.failures.push_back(chip + " " + set.name + ": " + resolved.status().to_string());
          continue;
        }
        auto passes = catalog->pass_count(resolved->metrics);
        if (!passes.ok()) {
          a.failures.push_back(chip + " " + set.name + ": " + passes.status().to_string());
          continue;
        }
        a.results[chip][set.name] = {resolved->metrics.size(), resolved->missing.size(), *passes};
        if (set.name == "full") a.missing_full[chip] = resolved->missing;
      }
    }
    return a;
  }();
  return all;
}

TEST(MetricSetsAllChips, cover_every_family_from_ampere_on) {
  const auto& chips = all_chips().chips;
  for (const char* chip : {"GA100", "GA102", "GA104", "AD102", "AD104", "GH100", "GB100", "GB202"})
    EXPECT_NE(std::find(chips.begin(), chips.end(), chip), chips.end()) << chip;
  for (const auto& chip : chips) EXPECT_NE(chip.rfind("TU", 0), 0u) << chip;
}

TEST(MetricSetsAllChips, every_set_resolves_and_schedules_on_every_chip) {
  const AllChips& a = all_chips();
  for (const auto& failure : a.failures) ADD_FAILURE() << failure;
  // The table: passes per chip per set, and "(n missing)" where the chip
  // lacks some of the set's roles.
  std::printf("  %-6s", "chip");
  for (const auto& set : metric_sets()) std::printf(" %16s", set.name.c_str());
  std::printf("\n");
  for (const auto& chip : a.chips) {
    ASSERT_EQ(a.results.count(chip), 1u) << chip;
    const auto& row = a.results.at(chip);
    std::printf("  %-6s", chip.c_str());
    for (const auto& set : metric_sets()) {
      ASSERT_EQ(row.count(set.name), 1u) << chip << " " << set.name;
      const SetOnChip& r = row.at(set.name);
      const std::string cell =
          std::to_string(r.passes) + (r.missing ? " (" + std::to_string(r.missing) + " miss)" : "");
      std::printf(" %16s", cell.c_str());
      EXPECT_GT(r.metrics, 0u) << chip << " " << set.name;
      EXPECT_EQ(r.metrics + r.missing, set.metrics.size()) << chip << " " << set.name;
      EXPECT_GE(r.passes, 1u) << chip << " " << set.name;
    }
    std::printf("\n");
    // The one-pass set is one pass everywhere; full needs the most.
    EXPECT_EQ(row.at("single-pass").passes, 1u) << chip;
    for (const auto& set : metric_sets()) EXPECT_LE(row.at(set.name).passes, row.at("full").passes) << chip;
  }
}

TEST(MetricSetsAllChips, gh100_keeps_its_lists_and_pass_counts) {
  const auto& gh100 = all_chips().results.at("GH100");
  const std::map<std::string, uint32_t> passes = {{"single-pass", 1}, {"triage", 1},    {"basic", 9}, {"memory", 12},
                                                  {"compute", 12},    {"detailed", 14}, {"full", 32}};
  for (const auto& [set, want] : passes) {
    EXPECT_EQ(gh100.at(set).passes, want) << set;
    EXPECT_EQ(gh100.at(set).missing, 0u) << set;
  }
  EXPECT_TRUE(all_chips().missing_full.at("GH100").empty());
}

TEST(MetricSetsAllChips, other_chips_lack_what_their_architecture_lacks) {
  const auto& missing = all_chips().missing_full;
  const auto lacks = [&](const std::string& chip, const std::string& role) {
    const auto& m = missing.at(chip);
    return std::find(m.begin(), m.end(), role) != m.end();
  };
  // Ampere and Ada have no lrc__ unit and no TMA; Hopper-only GMMA too.
  for (const char* chip : {"GA100", "GA102", "AD102"}) {
    EXPECT_TRUE(lacks(chip, "lrc__ilc_input_sectors.sum")) << chip;
    EXPECT_TRUE(lacks(chip, "sm__inst_executed_pipe_tma.avg.pct_of_peak_sustained_active")) << chip;
    EXPECT_FALSE(lacks(chip, "dram__bytes_read.sum")) << chip;
  }
  // GB20x spells DRAM reads dram__bytes_op_read: resolved, not missing.
  EXPECT_FALSE(lacks("GB202", "dram__bytes_read.sum"));
  // Blackwell's L2 has no per-aperture breakdown of TEX traffic.
  EXPECT_TRUE(lacks("GB100", "lts__t_sectors_srcunit_tex_aperture_device_lookup_miss.sum"));
  // GA100's FP16 pipe is its own pipe: resolved, not missing.
  EXPECT_FALSE(lacks("GA100", "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active"));
}

TEST(MetricSetsAllChips, every_other_spelling_exists_on_some_chip) {
  const AllChips& a = all_chips();
  for (const auto& set : metric_sets()) {
    for (const auto& role : set.metrics) {
      for (const auto& name : role_spellings(role)) {
        EXPECT_EQ(a.spellings_seen.count(name), 1u)
            << "no chip from Ampere on has '" << name << "' (role " << role << ")";
      }
    }
  }
}

}  // namespace
}  // namespace rangereplay::cupti
