// Decline reasons (stable names, explanations, fixes, docs coverage) and the
// Eligibility decision table.
#include "core/base/decline_reason.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace rangereplay {
namespace {

TEST(DeclineReason, names_are_stable) {
  const std::pair<DeclineReason, const char*> expected[] = {
      {DeclineReason::kAllocationInRange, "allocation_in_range"},
      {DeclineReason::kFreeInRange, "free_in_range"},
      {DeclineReason::kModuleLoadInRange, "module_load_in_range"},
      {DeclineReason::kModuleUnloadInRange, "module_unload_in_range"},
      {DeclineReason::kUnsupportedApi, "unsupported_api"},
      {DeclineReason::kStreamCaptureActive, "stream_capture_active"},
      {DeclineReason::kHostFunctionInRange, "host_function_in_range"},
      {DeclineReason::kTooManyOperations, "too_many_operations"},
      {DeclineReason::kHostDataTooLarge, "host_data_too_large"},
      {DeclineReason::kSnapshotDoesNotFit, "snapshot_does_not_fit"},
      {DeclineReason::kCountersUnavailable, "counters_unavailable"},
      {DeclineReason::kCountersNotPermitted, "counters_not_permitted"},
      {DeclineReason::kNoKernelInRange, "no_kernel_in_range"},
      {DeclineReason::kMultipleContexts, "multiple_contexts"},
      {DeclineReason::kMultipleDevices, "multiple_devices"},
      {DeclineReason::kUnknownMetric, "unknown_metric"},
      {DeclineReason::kReplayFailed, "replay_failed"},
      {DeclineReason::kOverlappingRange, "overlapping_range"},
      {DeclineReason::kRangeNotClosed, "range_not_closed"},
      {DeclineReason::kGraphDestroyedInRange, "graph_destroyed_in_range"},
      {DeclineReason::kCollectiveInRange, "collective_in_range"},
      {DeclineReason::kModuleGlobalsInRange, "module_globals_in_range"},
      {DeclineReason::kPeerDeclined, "peer_declined"},
      {DeclineReason::kRendezvousFailed, "rendezvous_failed"},
      {DeclineReason::kNondeterministicApplication, "nondeterministic_application"},
      {DeclineReason::kWriteSetLearned, "write_set_learned"},
      {DeclineReason::kWriteSetExceeded, "write_set_exceeded"},
      {DeclineReason::kAppRangeIncomplete, "app_range_incomplete"},
      {DeclineReason::kNoContext, "no_context"},
      {DeclineReason::kCounterRangesMismatch, "counter_ranges_mismatch"},
      {DeclineReason::kProcessEnded, "process_ended"},
  };
  ASSERT_EQ(all_decline_reasons().size(), std::size(expected));
  for (std::size_t i = 0; i < std::size(expected); ++i) {
    EXPECT_EQ(all_decline_reasons()[i], expected[i].first);
    EXPECT_EQ(decline_reason_name(expected[i].first), expected[i].second);
    EXPECT_EQ(decline_reason_from_name(expected[i].second), expected[i].first);
  }
}

TEST(DeclineReason, every_reason_has_a_unique_snake_case_name_and_one_line_texts) {
  const re2::RE2 snake("[a-z]+(_[a-z]+)*");
  std::set<std::string_view> names;
  for (DeclineReason r : all_decline_reasons()) {
    const std::string name(decline_reason_name(r));
    EXPECT_TRUE(re2::RE2::FullMatch(name, snake)) << name;
    EXPECT_TRUE(names.insert(decline_reason_name(r)).second) << "duplicate " << name;
    EXPECT_FALSE(decline_reason_explanation(r).empty()) << name;
    EXPECT_FALSE(decline_reason_fix(r).empty()) << name;
    EXPECT_EQ(decline_reason_explanation(r).find('\n'), std::string_view::npos) << name;
    EXPECT_EQ(decline_reason_fix(r).find('\n'), std::string_view::npos) << name;
  }
}

TEST(DeclineReason, unknown_names_are_not_reasons) {
  EXPECT_FALSE(decline_reason_from_name("").has_value());
  EXPECT_FALSE(decline_reason_from_name("Free_In_Range").has_value());
  EXPECT_FALSE(decline_reason_from_name("free_in_range ").has_value());
}

TEST(DeclineReason, the_documented_caps_appear_in_their_explanations) {
  EXPECT_EQ(kMaxRecordedOperations, 65536u);
  EXPECT_EQ(kMaxCapturedHostBytes, 1073741824u);
  EXPECT_NE(decline_reason_explanation(DeclineReason::kTooManyOperations).find("65536"), std::string_view::npos);
  EXPECT_NE(decline_reason_explanation(DeclineReason::kHostDataTooLarge).find("1 GiB"), std::string_view::npos);
}

TEST(DeclineReason, report_detail_is_the_detail_then_the_fix) {
  EXPECT_EQ(decline_report_detail(DeclineReason::kFreeInRange, "cuMemFree(0x7f0000001000)"),
            "cuMemFree(0x7f0000001000); free the memory after the range ends");
  EXPECT_EQ(decline_report_detail(DeclineReason::kFreeInRange, ""), "free the memory after the range ends");
}

TEST(DeclineReason, limitations_doc_explains_every_reason) {
  // tests/unit/core/base/ -> repository root.
  const std::filesystem::path doc =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().parent_path().parent_path() / "docs" /
      "limitations.md";
  std::ifstream in(doc);
  ASSERT_TRUE(in.good()) << "cannot read " << doc;
  std::stringstream text;
  text << in.rdbuf();
  for (DeclineReason r : all_decline_reasons()) {
    const std::string heading = "### `" + std::string(decline_reason_name(r)) + "`";
    EXPECT_NE(text.str().find(heading), std::string::npos) << "docs/limitations.md lacks " << heading;
  }
}

// --- Eligibility as a decision table -------------------------------------

struct Row {
  const char* name;
  std::function<void(Eligibility&)> observe;
  std::optional<DeclineReason> reason;
  const char* detail;
};

TEST(Eligibility, decision_table) {
  const EligibilityLimits small{3, 100};
  const Row rows[] = {
      {"one kernel on one context is eligible", [](Eligibility& e) { e.observe_operation(1, 0, true); }, std::nullopt,
       ""},
      {"a graph launch counts as kernel work",
       [](Eligibility& e) {
         e.observe_operation(1, 0, false);
         e.observe_operation(1, 0, true);
       },
       std::nullopt, ""},
      {"copies only decline no_kernel_in_range",
       [](Eligibility& e) {
         e.observe_operation(1, 0, false);
         e.observe_operation(1, 0, false);
       },
       DeclineReason::kNoKernelInRange, "no kernel or graph launch among 2 recorded operations"},
      {"an empty range declines no_kernel_in_range", [](Eligibility&) {}, DeclineReason::kNoKernelInRange,
       "no kernel or graph launch among 0 recorded operations"},
      {"a second context declines multiple_contexts",
       [](Eligibility& e) {
         e.observe_operation(0x10, 0, true);
         e.observe_operation(0x20, 0, true);
       },
       DeclineReason::kMultipleContexts, "operations on contexts 0x10 and 0x20"},
      {"a second device declines multiple_devices",
       [](Eligibility& e) {
         e.observe_operation(0x10, 0, true);
         e.observe_operation(0x10, 1, true);
       },
       DeclineReason::kMultipleDevices, "operations on devices 0 and 1"},
      {"a context and device change at once declines multiple_devices",
       [](Eligibility& e) {
         e.observe_operation(0x10, 0, true);
         e.observe_operation(0x20, 1, true);
       },
       DeclineReason::kMultipleDevices, "operations on devices 0 and 1"},
      {"operations up to the cap are eligible",
       [](Eligibility& e) {
         for (int i = 0; i < 3; ++i) e.observe_operation(1, 0, true);
       },
       std::nullopt, ""},
      {"one operation past the cap declines too_many_operations",
       [](Eligibility& e) {
         for (int i = 0; i < 4; ++i) e.observe_operation(1, 0, true);
       },
       DeclineReason::kTooManyOperations, "more than 3 operations recorded"},
      {"host bytes up to the cap are eligible",
       [](Eligibility& e) {
         e.observe_operation(1, 0, true);
         e.observe_captured_host_bytes(0);
         e.observe_captured_host_bytes(60);
         e.observe_captured_host_bytes(40);
       },
       std::nullopt, ""},
      {"one host byte past the cap declines host_data_too_large",
       [](Eligibility& e) {
         e.observe_operation(1, 0, true);
         e.observe_captured_host_bytes(100);
         e.observe_captured_host_bytes(1);
       },
       DeclineReason::kHostDataTooLarge, "101 bytes of host-to-device source data, cap 100"},
      {"an explicit decline keeps its detail",
       [](Eligibility& e) {
         e.observe_operation(1, 0, true);
         e.decline(DeclineReason::kUnsupportedApi, "cuMemcpyPeerAsync");
       },
       DeclineReason::kUnsupportedApi, "cuMemcpyPeerAsync"},
      {"an earlier decline outranks no_kernel_in_range",
       [](Eligibility& e) { e.decline(DeclineReason::kStreamCaptureActive, "stream 0x5 capturing"); },
       DeclineReason::kStreamCaptureActive, "stream 0x5 capturing"},
  };
  for (const Row& row : rows) {
    Eligibility e(small);
    row.observe(e);
    e.finish();
    EXPECT_EQ(e.reason(), row.reason) << row.name;
    EXPECT_EQ(e.declined(), row.reason.has_value()) << row.name;
    EXPECT_EQ(e.detail(), row.detail) << row.name;
  }
}

TEST(Eligibility, first_decline_reason_wins) {
  Eligibility e;
  EXPECT_TRUE(e.decline(DeclineReason::kFreeInRange, "cuMemFree(0x1000)"));
  EXPECT_FALSE(e.decline(DeclineReason::kModuleLoadInRange, "cuModuleLoad"));
  EXPECT_FALSE(e.decline(DeclineReason::kFreeInRange, "cuMemFree(0x2000)"));
  e.finish();  // no kernel either: counted, not reported
  EXPECT_EQ(e.reason(), DeclineReason::kFreeInRange);
  EXPECT_EQ(e.detail(), "cuMemFree(0x1000)");
  EXPECT_EQ(e.later_declines(), 3u);
}

TEST(Eligibility, counts_operations_kernels_and_host_bytes) {
  Eligibility e;
  e.observe_operation(7, 2, true);
  e.observe_operation(7, 2, false);
  e.observe_captured_host_bytes(4096);
  e.observe_captured_host_bytes(3);
  EXPECT_EQ(e.operations(), 2u);
  EXPECT_EQ(e.kernel_operations(), 1u);
  EXPECT_EQ(e.captured_host_bytes(), 4099u);
  e.finish();
  EXPECT_FALSE(e.declined());
  EXPECT_EQ(e.detail(), "");
}

TEST(Eligibility, default_cap_allows_exactly_65536_operations) {
  Eligibility e;
  for (std::uint64_t i = 0; i < kMaxRecordedOperations; ++i) e.observe_operation(1, 0, true);
  EXPECT_FALSE(e.declined());
  e.observe_operation(1, 0, true);
  EXPECT_EQ(e.reason(), DeclineReason::kTooManyOperations);
  EXPECT_EQ(e.detail(), "more than 65536 operations recorded");
  for (int i = 0; i < 10; ++i) e.observe_operation(1, 0, true);
  EXPECT_EQ(e.later_declines(), 0u);  // the cap declines once
}

TEST(Eligibility, default_host_cap_is_one_gibibyte_and_large_sizes_do_not_wrap) {
  Eligibility e;
  e.observe_operation(1, 0, true);
  e.observe_captured_host_bytes(kMaxCapturedHostBytes);
  EXPECT_FALSE(e.declined());
  e.observe_captured_host_bytes(std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(e.reason(), DeclineReason::kHostDataTooLarge);
  EXPECT_EQ(e.captured_host_bytes(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(e.detail(), "18446744073709551615 bytes of host-to-device source data, cap 1073741824");
}

}  // namespace
}  // namespace rangereplay
