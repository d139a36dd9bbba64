// Built-in metric sets, their sections, role resolution and --metrics/--set
// expansion (names only; the sets on every chip from Ampere on, with their
// pass counts, are checked in tests/cupti_host/).
#include "core/config/metric_sets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace rangereplay {
namespace {

std::vector<std::string> names_of_sets() {
  std::vector<std::string> names;
  for (const auto& set : metric_sets()) names.push_back(set.name);
  return names;
}

const MetricSet& set_named(const std::string& name) {
  auto found = find_metric_set(name);
  EXPECT_TRUE(found.ok()) << found.status().to_string();
  return **found;
}

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

TEST(MetricSets, are_listed_cheapest_first_with_ncu_names) {
  const std::vector<std::string> want = {"single-pass", "triage", "basic", "memory", "compute", "detailed", "full"};
  EXPECT_EQ(names_of_sets(), want);
}

TEST(MetricSets, hold_each_metric_once_and_have_descriptions) {
  for (const auto& set : metric_sets()) {
    EXPECT_FALSE(set.description.empty()) << set.name;
    EXPECT_FALSE(set.metrics.empty()) << set.name;
    const std::set<std::string> unique(set.metrics.begin(), set.metrics.end());
    EXPECT_EQ(unique.size(), set.metrics.size()) << set.name;
  }
}

TEST(MetricSets, names_are_full_metric_names_without_spaces) {
  for (const auto& set : metric_sets()) {
    for (const auto& name : set.metrics) {
      EXPECT_NE(name.find("__"), std::string::npos) << set.name << ": " << name;
      EXPECT_NE(name.find('.'), std::string::npos) << set.name << ": " << name;
      EXPECT_EQ(name.find_first_of(" ,\t"), std::string::npos) << set.name << ": " << name;
    }
  }
}

TEST(MetricSets, have_the_sizes_of_their_lists) {
  EXPECT_EQ(set_named("single-pass").metrics.size(), 16u);
  EXPECT_EQ(set_named("triage").metrics.size(), 5u);
  EXPECT_EQ(set_named("basic").metrics.size(), 14u);
  EXPECT_EQ(set_named("memory").metrics.size(), 59u);
  EXPECT_EQ(set_named("compute").metrics.size(), 49u);
  EXPECT_EQ(set_named("detailed").metrics.size(), 108u);
  EXPECT_EQ(set_named("full").metrics.size(), 402u);
}

TEST(MetricSets, detailed_is_basic_compute_and_memory_and_full_contains_detailed) {
  const auto& detailed = set_named("detailed").metrics;
  const auto& full = set_named("full").metrics;
  for (const char* part : {"basic", "compute", "memory"}) {
    for (const auto& name : set_named(part).metrics) {
      EXPECT_TRUE(contains(detailed, name)) << part << ": " << name;
    }
  }
  for (const auto& name : detailed) EXPECT_TRUE(contains(full, name)) << name;
}

TEST(MetricSets, basic_has_the_speed_of_light_headline) {
  const auto& basic = set_named("basic").metrics;
  for (const char* name :
       {"gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes_read.sum",
        "dram__bytes_write.sum", "smsp__inst_executed.sum", "sm__warps_active.avg.pct_of_peak_sustained_active"}) {
    EXPECT_TRUE(contains(basic, name)) << name;
  }
}

TEST(MetricSets, contain_no_launch_attributes_or_pcie_counters) {
  for (const auto& set : metric_sets()) {
    for (const auto& name : set.metrics) {
      EXPECT_NE(name.rfind("launch__", 0), 0u) << set.name << ": " << name;
      EXPECT_NE(name.rfind("pcie__", 0), 0u) << set.name << ": " << name;
    }
  }
}

TEST(MetricSets, are_lists_of_sections_the_same_on_every_chip) {
  const std::vector<std::string> detailed = {"SpeedOfLight", "ComputeWorkloadAnalysis", "MemoryWorkloadAnalysis"};
  EXPECT_EQ(set_named("basic").sections, std::vector<std::string>{"SpeedOfLight"});
  EXPECT_EQ(set_named("detailed").sections, detailed);
  const auto& full = set_named("full").sections;
  ASSERT_EQ(full.size(), 13u);
  EXPECT_TRUE(std::equal(detailed.begin(), detailed.end(), full.begin()));
  EXPECT_TRUE(contains(full, "WarpStateStats"));
  EXPECT_TRUE(contains(full, "InstructionStats"));
  // A set's metrics are its sections' roles in order, each once.
  for (const auto& set : metric_sets()) {
    std::vector<std::string> roles;
    for (const auto& name : set.sections) {
      const MetricSection* section = find_metric_section(name);
      ASSERT_NE(section, nullptr) << set.name << ": " << name;
      EXPECT_FALSE(section->title.empty()) << name;
      for (const auto& role : section->roles)
        if (!contains(roles, role)) roles.push_back(role);
    }
    EXPECT_EQ(roles, set.metrics) << set.name;
  }
  EXPECT_EQ(find_metric_section("NoSuchSection"), nullptr);
}

TEST(RoleSpellings, put_the_gh100_name_first_then_other_chips_names) {
  EXPECT_EQ(role_spellings("dram__bytes_read.sum"),
            (std::vector<std::string>{"dram__bytes_read.sum", "dram__bytes_op_read.sum"}));
  EXPECT_EQ(role_spellings("gpu__time_duration.sum"), std::vector<std::string>{"gpu__time_duration.sum"});
  EXPECT_EQ(role_spellings("not_a__role.sum"), std::vector<std::string>{"not_a__role.sum"});
}

TEST(ResolveRoles, takes_the_first_spelling_the_chip_has_and_reports_the_rest_missing) {
  // A chip that spells DRAM reads the Blackwell GB20x way and has no lrc__ unit.
  const MetricPresence chip_has = [](const std::string& n) {
    return n != "dram__bytes_read.sum" && n.rfind("lrc__", 0) != 0;
  };
  ResolvedMetrics got = resolve_roles(
      {"gpu__time_duration.sum", "dram__bytes_read.sum", "lrc__ilc_input_sectors.sum", "dram__bytes_op_read.sum"},
      chip_has);
  EXPECT_EQ(got.metrics, (std::vector<std::string>{"gpu__time_duration.sum", "dram__bytes_op_read.sum"}));
  EXPECT_EQ(got.missing, std::vector<std::string>{"lrc__ilc_input_sectors.sum"});
}

TEST(ResolveMetricList, keeps_explicit_names_as_typed_and_resolves_the_set) {
  const MetricPresence chip_has = [](const std::string& n) {
    return n != "dram__bytes_read.sum" && n != "dram__bytes_write.sum";
  };
  auto got = resolve_metric_list("dram__bytes_read.sum, x__y.sum", "basic", chip_has);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->metrics.front(), "dram__bytes_read.sum");  // typed: the chip's catalog judges it
  EXPECT_EQ(got->metrics[1], "x__y.sum");
  EXPECT_TRUE(contains(got->metrics, "dram__bytes_op_read.sum"));
  EXPECT_TRUE(contains(got->metrics, "dram__bytes_op_write.sum"));
  EXPECT_TRUE(got->missing.empty());
  EXPECT_EQ(got->metrics.size(), 2u + set_named("basic").metrics.size());
}

TEST(ResolveMetricList, on_a_chip_with_every_gh100_name_gives_the_gh100_lists) {
  const MetricPresence all = [](const std::string&) { return true; };
  for (const auto& set : metric_sets()) {
    auto got = resolve_metric_list("", set.name, all);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->metrics, set.metrics) << set.name;
    EXPECT_TRUE(got->missing.empty()) << set.name;
    EXPECT_EQ(*expand_metric_list("", set.name), set.metrics) << set.name;
  }
}

TEST(ResolveMetricList, lists_every_role_missing_on_a_chip_with_none) {
  const MetricPresence none = [](const std::string&) { return false; };
  auto got = resolve_metric_list("", "basic", none);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->metrics.empty());
  EXPECT_EQ(got->missing, set_named("basic").metrics);
  EXPECT_EQ(resolve_metric_list("", "fulll", none).status().code(), StatusCode::kInvalidArgument);
  auto no_set = resolve_metric_list("a__b.sum", "", none);
  ASSERT_TRUE(no_set.ok());
  EXPECT_EQ(no_set->metrics, std::vector<std::string>{"a__b.sum"});
}

TEST(FindMetricSet, unknown_name_suggests_the_closest_and_lists_all) {
  auto found = find_metric_set("ful");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(found.status().message(),
            "unknown metric set 'ful'; did you mean 'full'? known sets: single-pass, triage, basic, memory, "
            "compute, detailed, full");
}

// --set triage: summable counts PM sampling takes in one configuration,
// each resolved per chip as the other sets' roles (GB20x's DRAM names).
TEST(MetricSets, triage_holds_the_summable_counts_of_pm_sampling) {
  EXPECT_EQ(set_named(std::string(kTriageSetName)).metrics,
            (std::vector<std::string>{"smsp__inst_executed.sum", "sm__cycles_active.sum", "dram__bytes_read.sum",
                                      "dram__bytes_write.sum", "lts__t_sectors.sum"}));
  EXPECT_NE(set_named("triage").description.find("PM sampling"), std::string::npos);
  const std::set<std::string> gb202 = {"smsp__inst_executed.sum", "sm__cycles_active.sum", "dram__bytes_op_read.sum",
                                       "dram__bytes_op_write.sum", "lts__t_sectors.sum"};
  StatusOr<ResolvedMetrics> on_gb202 =
      resolve_metric_list("", "triage", [&](const std::string& n) { return gb202.contains(n); });
  ASSERT_TRUE(on_gb202.ok());
  EXPECT_EQ(on_gb202->metrics,
            (std::vector<std::string>{"smsp__inst_executed.sum", "sm__cycles_active.sum", "dram__bytes_op_read.sum",
                                      "dram__bytes_op_write.sum", "lts__t_sectors.sum"}));
  EXPECT_TRUE(on_gb202->missing.empty());
}

TEST(FindMetricSet, far_name_lists_the_sets_without_a_guess) {
  auto found = find_metric_set("everything-please");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(
      found.status().message(),
      "unknown metric set 'everything-please'; known sets: single-pass, triage, basic, memory, compute, detailed, "
      "full");
}

TEST(FindMetricSet, is_case_sensitive) { EXPECT_FALSE(find_metric_set("Full").ok()); }

TEST(FindMetricSet, a_name_in_capitals_is_told_that_set_names_are_lower_case) {
  auto found = find_metric_set("FULL");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(
      found.status().message(),
      "unknown metric set 'FULL'; set names are lower case: did you mean 'full'? known sets: single-pass, triage, "
      "basic, memory, compute, detailed, full");
}

TEST(SplitMetricCsv, trims_and_skips_empty_items) {
  EXPECT_TRUE(split_metric_csv("").empty());
  EXPECT_TRUE(split_metric_csv(" , ,").empty());
  const std::vector<std::string> one = {"a.sum"};
  EXPECT_EQ(split_metric_csv("a.sum"), one);
  const std::vector<std::string> three = {"a.sum", "b.avg", "c.max"};
  EXPECT_EQ(split_metric_csv(" a.sum, b.avg,,\tc.max "), three);
}

TEST(ExpandMetricList, empty_inputs_give_an_empty_list) {
  auto got = expand_metric_list("", "");
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->empty());
}

TEST(ExpandMetricList, explicit_metrics_keep_their_order_and_lose_duplicates) {
  auto got = expand_metric_list("b.sum,a.sum,b.sum", "");
  ASSERT_TRUE(got.ok());
  const std::vector<std::string> want = {"b.sum", "a.sum"};
  EXPECT_EQ(*got, want);
}

TEST(ExpandMetricList, a_set_alone_gives_its_metrics) {
  auto got = expand_metric_list("", "basic");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, set_named("basic").metrics);
}

TEST(ExpandMetricList, explicit_metrics_come_first_then_the_set_without_repeats) {
  auto got = expand_metric_list("my__metric.sum,dram__bytes_read.sum", "basic");
  ASSERT_TRUE(got.ok());
  const auto& basic = set_named("basic").metrics;
  ASSERT_EQ(got->size(), basic.size() + 1);
  EXPECT_EQ((*got)[0], "my__metric.sum");
  EXPECT_EQ((*got)[1], "dram__bytes_read.sum");
  std::vector<std::string> rest(got->begin() + 2, got->end());
  std::vector<std::string> basic_without;
  for (const auto& name : basic) {
    if (name != "dram__bytes_read.sum") basic_without.push_back(name);
  }
  EXPECT_EQ(rest, basic_without);
}

TEST(ExpandMetricList, unknown_set_is_an_error) {
  auto got = expand_metric_list("a.sum", "fulll");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(got.status().message().find("did you mean 'full'?"), std::string::npos);
}

TEST(ExpandMetricList, set_name_is_trimmed) {
  auto got = expand_metric_list("", " full ");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->size(), 402u);
}

TEST(DefaultMetricSet, is_a_built_in_set) { EXPECT_TRUE(find_metric_set(kDefaultMetricSetName).ok()); }

}  // namespace
}  // namespace rangereplay
